/** Injection tokens of the service modules. */
export const HOST_LOGGER = Symbol('HOST_LOGGER');
export const COMPACTION = Symbol('COMPACTION');
export const ERASURE = Symbol('ERASURE');
export const BRIEFS = Symbol('BRIEFS');
export const MEMORY = Symbol('MEMORY');
