export * from './ingest/code-ingest';
export * from './queries/history-queries';
export * from './store/repository-store';
export * from './store/history-rows';
export * from './symbols/symbol-index';
export * from './git/commit';
export * from './code-history';
