export * from './client';
export * from './agent';
