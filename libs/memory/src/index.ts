export * from './extraction-prompt';
export * from './memory.service';
export * from './extraction-queue';
export * from './context-pack';
export * from './observations.service';
