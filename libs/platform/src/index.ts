export * from './config/loom.config';
export * from './logging/logger';
export * from './metrics/metrics';
export * from './tracing/tracing';
export * from './ids';
export * from './batching/micro-batcher';
export * from './process/shutdown';
export * from './tracing/correlation';
