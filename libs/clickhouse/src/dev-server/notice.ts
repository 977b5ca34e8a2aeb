// Shared by the server (which logs it first thing) and the child-process harness (which waits for
// it), without the harness having to load chDB.
export const DEV_ENDPOINT_NOTICE = 'development ClickHouse endpoint over chDB — a test and development tool, never a production path';
