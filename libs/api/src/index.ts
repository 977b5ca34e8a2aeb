export * from './runtime';
export * from './bootstrap';
export * from './gateway.module';
export * from './ops/op-dispatcher';
export * from './ops/op-handlers';
export * from './ops/op-context';
export * from './titler';
export * from './erasure-worker';
