export * from './op-call';
export * from './append-ledger';
export * from './embedded-loom-child';
export * from './disk-faults';
export * from './latency-proxy';
export * from './cuttable-proxy';
