export * from './lease';
export * from './in-memory.leases';
export * from './nats-kv.leases';
