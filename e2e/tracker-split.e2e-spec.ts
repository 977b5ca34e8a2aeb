import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { randomBytes } from 'node:crypto';
import { createTrackerTables, startSplitTopology, trackerRegistration, type SplitTopology } from '../libs/testing/src';

jest.setTimeout(300_000);

/**
 * The tracker plane in the split topology: the gateway process reads the team's tables on a
 * ClickHouse server (here the development endpoint, another database than Loom's) through a
 * source registered by URL: the client path, not the embedded engine.
 */
describe('Tracker plane in the split topology [issue 13: tracker]', () => {
  let topology: SplitTopology;
  let team: ClickHouseClient;
  const db = 'team_tracker_' + randomBytes(4).toString('hex');
  const ns = 'split-tracker';

  beforeAll(async () => {
    topology = await startSplitTopology({ embedders: 1, env: { LOOM_TRACKER_ORG: 'acme' } });
    team = createClient({ url: topology.clickhouseUrl });
    await createTrackerTables({ client: team }, db);
  });
  afterAll(async () => {
    await team?.command({ query: `DROP DATABASE IF EXISTS ${db}` }).catch(() => undefined);
    await team?.close();
    await topology?.close();
  });

  it('TRACKER-01, TRACKER-02, TRACKER-03, SETTINGS-09: off until registered; registered by URL it checks duplicates (a recorded duplicate answering with its original), links and flaky tests live', async () => {
    const off = await topology.admin.call('tracker.duplicate_check', { namespace: ns, title: 'x' });
    expect([off.status, off.body.error.code]).toEqual([501, 'not_configured']);
    const body = trackerRegistration(db) as { connection: object };
    const registered = await topology.admin.ok('tracker.source_register', { namespace: ns, ...body, connection: { url: topology.clickhouseUrl, user: 'default', password: 'split-tracker-pw', database: db } });
    expect(registered).toMatchObject({ registered: true, issues: 6, source: { connection: { url: topology.clickhouseUrl, user: 'default', password_set: true } } });
    expect(JSON.stringify(registered)).not.toContain('split-tracker-pw');
    const dup = await topology.admin.ok('tracker.duplicate_check', { namespace: ns, title: 'Not-ready Set is passed (LOGICAL_ERROR)', body: 'Code: 49', created_before: '2026-01-31T00:00:00Z' });
    expect(dup.candidates[0]).toMatchObject({ id: '101', duplicate: true, via: null });
    // The team's table records 106 as a duplicate of 101 (issues.duplicate_of): 106's own words answer with 101.
    const later = await topology.admin.ok('tracker.duplicate_check', { namespace: ns, title: 'Not-ready Set is passed (LOGICAL_ERROR) with IN subquery and the analyzer', body: "Code: 49. DB::Exception: Not-ready Set is passed as the second argument for function 'in'. (LOGICAL_ERROR)" });
    expect(later.candidates[0]).toMatchObject({ id: '101', via: '106', reason: 'the new issue matched #106, which the tracker records as a duplicate of #101' });
    expect(later.candidates.map((c: { id: string }) => c.id)).not.toContain('106');
    // Live: a row the team inserts is read by the next call.
    await team.insert({ table: `${db}.ticket_prs`, format: 'JSONEachRow', values: [{ ticket: 103, pull: 3001 }] });
    expect((await topology.admin.ok('tracker.issue_links', { namespace: ns, issue: '103' })).links).toEqual([{ pr: '3001', sha: null, source: 'link_table', phrase: null }]);
    expect((await topology.admin.ok('tracker.flaky_tests', { namespace: ns })).tests.map((t: { test: string }) => t.test)).toEqual(['test_a', 'test_c']);
  });

  it('an invalid mapping on a server source names each bad column; a table dropped later is a 503', async () => {
    const body = trackerRegistration(db) as { mapping: Record<string, Record<string, string>> };
    const bad = await topology.admin.call('tracker.source_register', {
      namespace: 'split-tracker-bad',
      connection: { url: topology.clickhouseUrl, database: db },
      mapping: { ...body.mapping, issues: { ...body.mapping['issues'], title: 'subject' }, pr_links: { ...body.mapping['pr_links'], pr: 'pull_no' } },
    });
    expect([bad.status, bad.body.error.fields.map((f: { field: string }) => f.field).sort()]).toEqual([400, ['mapping.issues.title', 'mapping.pr_links.pr']]);
    await team.command({ query: `DROP TABLE ${db}.ci_results` });
    const gone = await topology.admin.call('tracker.flaky_tests', { namespace: ns });
    expect([gone.status, gone.body.error.code]).toEqual([503, 'unavailable']);
  });
});
