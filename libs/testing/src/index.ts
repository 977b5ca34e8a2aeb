export * from './storage.harness';
export * from './api.client';
export * from './embedded-loom';
export * from './test-providers';
export * from './processes';
export * from './split-topology';
export * from './api-checks';
export * from './openai-compatible.server';
