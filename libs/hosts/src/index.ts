// The hosts: one folder per process, each the composition root of one service. Imported by
// apps/ (and tests) only; lint enforces it (tag type:hosts, ADR 0019).
export * from './shared/host-config';
export * from './shared/run-host';
export * from './shared/service-host';
export * from './shared/llm';
export * from './gateway/gateway.host';
export * from './gateway/gateway.runtime';
export * from './gateway/gateway.module';
export * from './embedder/embedder.host';
export * from './titler/titler.host';
export * from './compactor/compactor.host';
export * from './erasure/erasure.host';
export * from './brief-condenser/brief-condenser.host';
