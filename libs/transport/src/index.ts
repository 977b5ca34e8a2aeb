export * from './request-client';
export * from './in-process.hub';
export * from './in-process.transport';
export * from './nats.transport';
export * from './context-headers';
export * from './nats-kv.lock';
