export * from './extraction-prompt';
export * from './memory.service';
export * from './extraction-queue';
