export const EMBED_BATCHER = Symbol('EMBED_BATCHER');
export const EMBEDDER_METRICS = Symbol('EMBEDDER_METRICS');
