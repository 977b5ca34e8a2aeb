export * from './storage.harness';
export * from './api.client';
export * from './embedded-loom';
export * from './test-providers';
