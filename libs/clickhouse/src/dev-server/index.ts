// The development ClickHouse endpoint (chDB behind ClickHouse's HTTP interface): a test and
// development tool, never a production path. Test harness helpers (spawnTsProcess,
// startDevClickHouseChild) are deliberately not re-exported here; import them by path.
export { startDevClickHouse } from './dev-clickhouse.server';
export type { DevClickHouseOptions, DevClickHouseServer } from './dev-clickhouse.server';
export { DEV_ENDPOINT_NOTICE } from './notice';
export { runDevClickHouseMain } from './dev-clickhouse.main';
export { parseDevClickHouseArgs } from './dev-clickhouse.args';
export type { DevClickHouseMainArgs } from './dev-clickhouse.args';
