export * from './tables';
export * from './storage';
export * from './migrations.runner';
export * from './write-behind/write-ahead-log';
export * from './write-behind/write-behind';
export * from './conditions';
