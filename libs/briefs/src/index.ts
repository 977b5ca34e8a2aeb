export * from './brief-sections';
export * from './brief-keys';
export * from './brief-llm';
export * from './deterministic-builder';
export * from './briefs.service';
export * from './remote-brief-revision';
