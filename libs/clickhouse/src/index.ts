export * from './tables';
export * from './storage';
export * from './migrations.runner';
