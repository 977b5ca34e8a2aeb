import type { ClickHouseClient } from '@clickhouse/client';

/**
 * A team's tracker as its own ClickHouse might hold it, with column names of its own choosing
 * (nothing like Loom's), created in the embedded engine so the mapping is what joins them.
 */
export const TRACKER_ISSUES = [
  { no: 101, headline: 'Logical error: Not-ready Set is passed', details: "Code: 49. DB::Exception: Not-ready Set is passed as the second argument for function 'in'. (LOGICAL_ERROR)\nStack: DB::FutureSetFromSubquery::get", opened: '2026-01-01 10:00:00', status: 'closed', dup: null },
  { no: 102, headline: 'Segfault in MergeTreeData::loadDataParts on startup', details: 'The server dies with SIGSEGV while loading parts.\n  DB::MergeTreeData::loadDataParts\n  DB::StorageMergeTree::startup', opened: '2026-01-05 10:00:00', status: 'closed', dup: null },
  { no: 103, headline: 'Typo on the JSON functions documentation page', details: 'The page says JSONExtractString takes three arguments in one example; it takes two.', opened: '2026-01-10 10:00:00', status: 'open', dup: null },
  { no: 104, headline: 'Support window functions inside projections', details: 'Feature request: allow a projection to hold a window function so dashboards can read it.', opened: '2026-01-12 10:00:00', status: 'open', dup: null },
  { no: 105, headline: 'Server crash reading Parquet with nested arrays', details: 'Code: 1001. DB::Exception: std::out_of_range: vector index in ParquetBlockInputFormat::read', opened: '2026-01-15 10:00:00', status: 'closed', dup: null },
  { no: 106, headline: 'Not-ready Set is passed (LOGICAL_ERROR) with IN subquery and the analyzer', details: "Code: 49. DB::Exception: Not-ready Set is passed as the second argument for function 'in'. (LOGICAL_ERROR)", opened: '2026-02-01 10:00:00', status: 'closed', dup: 101 },
] as const;

/**
 * Creates the tracker's tables and rows in `database` (dropped first), through any ClickHouse
 * client: the embedded engine's (`storage.client`) or one of a ClickHouse server.
 */
export async function createTrackerTables(target: { client: ClickHouseClient }, database: string): Promise<void> {
  const client = target.client;
  const command = (query: string) => client.command({ query });
  await command(`DROP DATABASE IF EXISTS ${database}`);
  await command(`CREATE DATABASE ${database}`);
  await command(
    `CREATE TABLE ${database}.tickets (ticket_no UInt32, headline String, details String, opened DateTime('UTC'), status LowCardinality(String), resolved Nullable(DateTime('UTC')), dup_of Nullable(UInt32)) ENGINE = MergeTree ORDER BY ticket_no`,
  );
  await command(`CREATE TABLE ${database}.ticket_prs (ticket UInt32, pull UInt32) ENGINE = MergeTree ORDER BY ticket`);
  await command(`CREATE TABLE ${database}.pulls (num UInt32, heading String, description String, merged DateTime('UTC')) ENGINE = MergeTree ORDER BY num`);
  await command(`CREATE TABLE ${database}.git_commits (hash String, msg String, at DateTime('UTC')) ENGINE = MergeTree ORDER BY hash`);
  await command(`CREATE TABLE ${database}.ci_results (case_name String, sha String, outcome String, finished DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY (case_name, finished)`);
  await client.insert({
    table: `${database}.tickets`,
    format: 'JSONEachRow',
    values: TRACKER_ISSUES.map((i) => ({ ticket_no: i.no, headline: i.headline, details: i.details, opened: i.opened, status: i.status, resolved: null, dup_of: i.dup })),
  });
  await client.insert({ table: `${database}.ticket_prs`, format: 'JSONEachRow', values: [{ ticket: 101, pull: 2001 }, { ticket: 105, pull: 2005 }] });
  await client.insert({
    table: `${database}.pulls`,
    format: 'JSONEachRow',
    values: [
      { num: 2002, heading: 'Fix crash on startup', description: 'Fixes #102 and #999', merged: '2026-01-06 10:00:00' },
      { num: 2003, heading: 'Refactor sets', description: 'Related to #101, does not fix it', merged: '2026-01-07 10:00:00' },
      { num: 2004, heading: 'Parquet nested arrays', description: 'Closes https://github.com/acme/app/issues/105', merged: '2026-01-16 10:00:00' },
      { num: 2006, heading: 'Elsewhere', description: 'Fixes other-org/lib#101', merged: '2026-01-17 10:00:00' },
      { num: 2008, heading: 'Same org, qualified', description: 'resolves acme/app#101', merged: '2026-01-18 10:00:00' },
    ],
  });
  await client.insert({
    table: `${database}.git_commits`,
    format: 'JSONEachRow',
    values: [
      { hash: 'a1b2c3d', msg: 'Fix not-ready set in IN subqueries (#2007)\n\nResolves #101', at: '2026-01-08 10:00:00' },
      { hash: 'd4e5f6a', msg: 'Bump dependencies (#2009)', at: '2026-01-09 10:00:00' },
    ],
  });
  const run = (case_name: string, sha: string, outcome: string, minute: number) => ({ case_name, sha, outcome, finished: `2026-03-01 10:${String(minute).padStart(2, '0')}:00.000` });
  await client.insert({
    table: `${database}.ci_results`,
    format: 'JSONEachRow',
    values: [
      run('test_a', 'sha1', 'fail', 1),
      run('test_a', 'sha1', 'pass', 2),
      run('test_a', 'sha1', 'pass', 3),
      run('test_a', 'sha2', 'pass', 4),
      run('test_a', 'sha4', 'error', 5),
      run('test_a', 'sha4', 'success', 6),
      run('test_b', 'sha1', 'fail', 7),
      run('test_b', 'sha1', 'fail', 8),
      run('test_c', 'sha3', 'FAILED', 9),
      run('test_c', 'sha3', 'OK', 10),
      run('test_d', 'sha5', 'pass', 11),
    ],
  });
}

/** The body of a tracker.source_register call for those tables. */
export function trackerRegistration(database: string): Record<string, unknown> {
  return {
    connection: { url: 'embedded', database },
    mapping: {
      issues: { table: 'tickets', id: 'ticket_no', title: 'headline', body: 'details', created_at: 'opened', state: 'status', closed_at: 'resolved', duplicate_of: 'dup_of' },
      pr_links: { table: 'ticket_prs', issue: 'ticket', pr: 'pull' },
      pull_requests: { table: 'pulls', number: 'num', title: 'heading', body: 'description', merged_at: 'merged' },
      commits: { table: 'git_commits', sha: 'hash', message: 'msg', committed_at: 'at' },
      ci_runs: { table: 'ci_results', test: 'case_name', commit: 'sha', status: 'outcome', run_at: 'finished' },
    },
    issue_url_base: 'https://github.com/acme/app/issues/',
  };
}

/** One incident as the team's `outages` table holds it (its own column names and kinds). */
export interface OutageRow {
  ref: string;
  headline: string;
  sev: string;
  state: string;
  began: string;
  ended: string | null;
  postmortem: string;
  /** PR numbers, as an Array column. */
  culprit_prs: number[];
  /** Commits as text: shas, prefixes or commit URLs separated by commas. */
  culprit_shas: string;
  /** A PR as text (`#12`, a pull URL) or NULL. */
  remedy_prs: string | null;
  remedy_shas: string[];
}

/** Incidents of the static tracker tables (PRs 2003-2008 and commit a1b2c3d of createTrackerTables). */
export const TRACKER_OUTAGES: OutageRow[] = [
  { ref: 'INC-1', headline: 'Checkout latency spike after the sets refactor', sev: 'SEV1', state: 'resolved', began: '2026-03-02 10:00:00', ended: '2026-03-02 11:30:00', postmortem: 'p99 went from 80 ms to 4 s.', culprit_prs: [2003], culprit_shas: 'a1b2c3d', remedy_prs: '#2008', remedy_shas: ['d4e5f6a'] },
  { ref: 'INC-2', headline: 'Replication lag alerts', sev: 'SEV2', state: 'open', began: '2026-03-05 08:00:00', ended: null, postmortem: '', culprit_prs: [], culprit_shas: '', remedy_prs: null, remedy_shas: [] },
  { ref: 'INC-3', headline: 'Parquet import crash', sev: 'SEV1', state: 'resolved', began: '2026-01-16 12:00:00', ended: '2026-01-16 13:00:00', postmortem: 'Nested arrays crashed the reader.', culprit_prs: [2004], culprit_shas: 'https://github.com/acme/app/commit/ABCDEF1234567', remedy_prs: 'https://github.com/acme/app/pull/2005', remedy_shas: [] },
];

/** Creates the team's incidents table (`outages`) in `database` with these rows. */
export async function createOutagesTable(target: { client: ClickHouseClient }, database: string, rows: readonly OutageRow[] = TRACKER_OUTAGES): Promise<void> {
  await target.client.command({ query: `DROP TABLE IF EXISTS ${database}.outages` });
  await target.client.command({
    query: `CREATE TABLE ${database}.outages (ref String, headline String, sev LowCardinality(String), state String, began DateTime('UTC'), ended Nullable(DateTime('UTC')), postmortem String,
      culprit_prs Array(UInt32), culprit_shas String, remedy_prs Nullable(String), remedy_shas Array(String), labels Map(String, String)) ENGINE = MergeTree ORDER BY began`,
  });
  if (rows.length > 0) await target.client.insert({ table: `${database}.outages`, format: 'JSONEachRow', values: rows.map((r) => ({ ...r, labels: {} })) });
}

/** The `mapping.incidents` section for the `outages` table. */
export const OUTAGES_MAPPING = {
  table: 'outages',
  id: 'ref',
  title: 'headline',
  started_at: 'began',
  resolved_at: 'ended',
  severity: 'sev',
  status: 'state',
  summary: 'postmortem',
  caused_by_pr: 'culprit_prs',
  caused_by_commit: 'culprit_shas',
  fixed_by_pr: 'remedy_prs',
  fixed_by_commit: 'remedy_shas',
} as const;

/** trackerRegistration with the incidents mapping added. */
export function trackerRegistrationWithIncidents(database: string): Record<string, unknown> {
  const body = trackerRegistration(database) as { mapping: Record<string, unknown> };
  return { ...body, mapping: { ...body.mapping, incidents: OUTAGES_MAPPING } };
}
