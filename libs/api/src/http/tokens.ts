export const OP_DISPATCHER = Symbol('OP_DISPATCHER');
export const READINESS = Symbol('READINESS');
export const LOOM_METRICS = Symbol('LOOM_METRICS');
export const MCP_ENDPOINT = Symbol('MCP_ENDPOINT');
