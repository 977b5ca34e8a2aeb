export * from './extraction-prompt';
export * from './memory.service';
