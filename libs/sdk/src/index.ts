export * from './client';
export * from './agent';
export * from './wire.generated';
export * from './tracker';
