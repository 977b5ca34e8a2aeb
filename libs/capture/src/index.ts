export * from './transcript';
export * from './markdown';
export * from './json-array';
export * from './claude-code';
export * from './codex';
export * from './parse';
export * from './ingest';
export * from './usage';
