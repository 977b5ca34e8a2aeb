export * from './client';
export * from './agent';
export * from './tracker';
