import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createTrackerTables, FIXTURE_SECRET, LoomApi, startSplitTopology, trackerRegistration, uniqueNamespace, writeGitFixture, type GitFixture, type SplitTopology } from '../libs/testing/src';
// The incidents case (its own describe block at the end).
import { createOutagesTable, trackerRegistrationWithIncidents } from '../libs/testing/src';

jest.setTimeout(300_000);

/**
 * The code-history plane in the split topology: gateway processes on NATS (the ingest's lease in
 * NATS KV) writing to and reading from a ClickHouse server, not the embedded engine. Two replicas
 * with LOOM_CODE_INGEST_ENABLED=true and LOOM_TRACKER_ORG, and one started with both planes off.
 */
describe('Code history plane in the split topology [issue 13: split topology]', () => {
  let topology: SplitTopology;
  let off: LoomApi;
  let fixture: GitFixture;
  let team: ClickHouseClient;
  const ns = uniqueNamespace();
  const db = 'team_history_' + randomBytes(4).toString('hex');

  beforeAll(async () => {
    topology = await startSplitTopology({ embedders: 0, gateways: 2, env: { LOOM_CODE_INGEST_ENABLED: 'true', LOOM_TRACKER_ORG: 'acme' } });
    off = (await topology.startGateway({ LOOM_CODE_INGEST_ENABLED: 'false', LOOM_TRACKER_ORG: '' })).admin;
    fixture = writeGitFixture();
    team = createClient({ url: topology.clickhouseUrl });
    await createTrackerTables({ client: team }, db);
  });
  afterAll(async () => {
    await team?.command({ query: `DROP DATABASE IF EXISTS ${db}` }).catch(() => undefined);
    await team?.close();
    await topology?.close();
  });
  const [a, b] = [() => new LoomApi(topology.urls[0]!, topology.admin.token), () => new LoomApi(topology.urls[1]!, topology.admin.token)];

  it('PRHIST-01, PRHIST-04, TRACKER-01, SETTINGS-09 (split): with the switches off every code, history and tracker op answers 501 saying how to turn it on; code.list says off; /readyz says which planes are on', async () => {
    for (const [op, body, says] of [
      ['code.add', { path: fixture.path }, 'LOOM_CODE_INGEST_ENABLED=true'],
      ['history.path', { repository: 'demo', path: 'README.md' }, 'LOOM_CODE_INGEST_ENABLED=true'],
      ['history.symbol', { repository: 'demo', symbol: 'query' }, 'LOOM_CODE_INGEST_ENABLED=true'],
      ['history.line', { repository: 'demo', path: 'README.md', line: 1 }, 'LOOM_CODE_INGEST_ENABLED=true'],
      ['history.review_brief', { repository: 'demo', pr_number: 2 }, 'LOOM_CODE_INGEST_ENABLED=true'],
      ['history.duplicate_check', { repository: 'demo', title: 'timeout' }, 'LOOM_CODE_INGEST_ENABLED=true'],
      ['history.bisect', { repository: 'demo', description: 'hangs' }, 'LOOM_CODE_INGEST_ENABLED=true'],
      ['tracker.duplicate_check', { title: 'x' }, 'LOOM_TRACKER_ORG'],
      ['tracker.source_register', trackerRegistration(db), 'LOOM_TRACKER_ORG'],
    ] as const) {
      const answer = await off.call(op, { namespace: ns, ...body });
      expect({ op, status: answer.status, code: answer.body.error.code }).toEqual({ op, status: 501, code: 'not_configured' });
      expect(answer.body.error.message).toContain(says);
    }
    expect(await off.ok('code.list', { namespace: ns })).toEqual({ enabled: false, repositories: [] });
    const status = await (await fetch(`${off.url}/readyz`)).json();
    expect(status.planes).toMatchObject({ code_history: { enabled: false, how_to_enable: expect.stringContaining('LOOM_CODE_INGEST_ENABLED=true') }, tracker: { enabled: false, how_to_enable: expect.stringContaining('LOOM_TRACKER_ORG') } });
    expect((await (await fetch(`${topology.url}/readyz`)).json()).planes).toMatchObject({ code_history: { enabled: true }, tracker: { enabled: true } });
    // On, but no repository added yet: no history before then, and the answer says how to add one.
    const none = await a().call('history.path', { namespace: ns, repository: 'demo', path: 'README.md' });
    expect([none.status, none.body.error.code]).toEqual([404, 'not_found']);
    expect(none.body.error.message).toContain('loom code add');
  });

  it('PRHIST-05 (split): the status page (/readyz) marks the ranked history and tracker ops experimental', async () => {
    const status = await (await fetch(`${topology.urls[1]}/readyz`)).json();
    expect(status.planes.code_history.experimental_ops).toEqual(['history.review_brief', 'history.duplicate_check', 'history.bisect']);
    expect(status.planes.tracker.experimental_ops).toEqual(['tracker.duplicate_check']);
  });

  it('PRHIST-04, PRHIST-03 (split): code.add asked of both gateways at once ingests once (NATS lease); path, symbol and line history answer from either', async () => {
    const [first, second] = await Promise.all([a().ok('code.add', { namespace: ns, path: fixture.path, name: 'demo', wait: true }), b().ok('code.add', { namespace: ns, path: fixture.path, name: 'demo' })]);
    expect(first.repository).toMatchObject({ name: 'demo', state: 'ready', commits_indexed: 7, commits_total: 7, head: fixture.commits.cFile });
    expect(second.repository.name).toBe('demo');
    // Whichever ran it, once done the other takes nothing more.
    const deadline = Date.now() + 60_000;
    while ((await b().ok('code.list', { namespace: ns })).repositories[0]?.state !== 'ready' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await b().ok('code.list', { namespace: ns })).toMatchObject({ enabled: true, repositories: [{ name: 'demo', state: 'ready', commits_indexed: 7, commits_total: 7 }] });
    const rows = async (table: string) => Number((await (await team.query({ query: `SELECT count() AS n FROM ${topology.database}.${table} FINAL WHERE namespace = {ns:String}`, query_params: { ns }, format: 'JSONEachRow' })).json<{ n: string }>())[0]!.n);
    expect(await rows('code_commits')).toBe(7);

    const path = await b().ok('history.path', { namespace: ns, repository: 'demo', path: 'src/connection.ts' });
    expect(path.changes.map((c: { sha: string }) => c.sha)).toEqual([fixture.commits.mergePing, fixture.commits.rename, fixture.commits.fixQuery, fixture.commits.addClose, fixture.commits.initial]);
    expect(path.changes.map((c: { pr_number: number | null }) => c.pr_number)).toEqual([4, 3, 2, 1, null]);
    const symbol = await a().ok('history.symbol', { namespace: ns, repository: 'demo', symbol: 'Helper.run' });
    expect(symbol.changes.map((c: { pr_number: number }) => c.pr_number)).toEqual([6, 5]);
    const line = await b().ok('history.line', { namespace: ns, repository: 'demo', path: 'src/connection.ts', line: 4 });
    expect(line.changes.map((c: { sha: string; path: string; origin: boolean }) => [c.sha, c.path, c.origin])).toEqual([
      [fixture.commits.fixQuery, 'src/client.ts', false],
      [fixture.commits.initial, 'src/client.ts', true],
    ]);
    // A commit added later: a rerun on the other gateway takes only it.
    execFileSync('git', ['-C', fixture.path, '-c', 'user.name=B', '-c', 'user.email=b@example.com', '-c', 'commit.gpgsign=false', 'commit', '-q', '--allow-empty', '-m', 'Empty follow-up (#7)']);
    expect((await b().ok('code.add', { namespace: ns, path: fixture.path, name: 'demo', wait: true })).repository).toMatchObject({ state: 'ready', commits_indexed: 8, commits_total: 8 });
    expect(await rows('code_commits')).toBe(8);
    // One row per file each mainline commit changed, as git counts them: nothing doubled by the rerun.
    const changed = execFileSync('git', ['-C', fixture.path, 'log', '--first-parent', '--diff-merges=first-parent', '-M', '--format=', '--name-only'], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(await rows('code_file_changes')).toBe(changed.length);
  });

  it('PRHIST-03 (split): a review brief (by the builder), the pre-PR duplicate check and bisect candidates, each with its reasons', async () => {
    const brief = await a().ok('history.review_brief', { namespace: ns, repository: 'demo', pr_number: 2 });
    expect(brief).toMatchObject({ pr_number: 2, sha: fixture.commits.fixQuery, written_by: 'builder', symbols: ['Client.query'], linked_issues: [12], files: [{ path: 'src/client.ts', change: 'modified' }] });
    expect(JSON.stringify(brief)).not.toContain(FIXTURE_SECRET);
    const duplicate = await b().ok('history.duplicate_check', { namespace: ns, repository: 'demo', title: 'Add a timeout to slow queries' });
    expect(duplicate.candidates[0]).toMatchObject({ sha: fixture.commits.fixQuery, pr_number: 2 });
    expect(duplicate.candidates[0].reasons.join(' ')).toContain('"timeout"');
    const bisect = await a().ok('history.bisect', { namespace: ns, repository: 'demo', description: 'queries hang forever, the timeout seems gone', good: fixture.commits.initial, bad: fixture.commits.cFile });
    expect(bisect.range).toEqual({ from: fixture.commits.initial, to: fixture.commits.cFile, commits: 6 });
    expect(bisect.candidates[0].sha).toBe(fixture.commits.fixQuery);
    expect(bisect.candidates[0].reasons.join(' ')).toContain('"timeout"');
  });

  it('PRHIST-02, TRACKER-01, TRACKER-02, TRACKER-03 (split): once on, the history names the merged PRs (squash and merge commits) and the issues they fix; with a tracker source registered on the server, its CI runs, PR links and older issues are read live beside it', async () => {
    const prs = (await a().ok('history.path', { namespace: ns, repository: 'demo', path: 'src' })).changes.map((c: { pr_number: number | null }) => c.pr_number);
    expect(prs).toEqual([4, 3, 2, 1, null]);
    expect((await b().ok('history.review_brief', { namespace: ns, repository: 'demo', pr_number: 4 })).title).toBe('Merge pull request #4 from acme/ping');
    expect((await a().call('tracker.flaky_tests', { namespace: ns })).status).toBe(501);
    const registered = await b().ok('tracker.source_register', { namespace: ns, ...trackerRegistration(db), connection: { url: topology.clickhouseUrl, user: 'default', database: db } });
    expect(registered).toMatchObject({ registered: true, issues: 6 });
    expect(await a().ok('tracker.status', { namespace: ns })).toMatchObject({ enabled: true, org: 'acme', source_registered: true });
    expect((await a().ok('tracker.flaky_tests', { namespace: ns })).tests.map((t: { test: string; flaky_commits: number }) => [t.test, t.flaky_commits])).toEqual([
      ['test_a', 2],
      ['test_c', 1],
    ]);
    // Live: a CI run the team records now is read by the next call, from either gateway.
    await team.insert({ table: `${db}.ci_results`, format: 'JSONEachRow', values: [{ case_name: 'test_d', sha: 'sha5', outcome: 'fail', finished: '2026-03-01 11:00:00.000' }] });
    expect((await b().ok('tracker.flaky_tests', { namespace: ns })).tests.map((t: { test: string }) => t.test)).toEqual(expect.arrayContaining(['test_a', 'test_c', 'test_d']));
    expect((await a().ok('tracker.issue_links', { namespace: ns, issue: '101' })).links.map((l: { pr: string; source: string }) => [l.pr, l.source])).toEqual(
      expect.arrayContaining([['2001', 'link_table'], ['2007', 'commit_message'], ['2008', 'pr_body']]),
    );
    const duplicate = await b().ok('tracker.duplicate_check', { namespace: ns, issue: '106' });
    expect(duplicate.candidates[0]).toMatchObject({ id: '101', duplicate: true });
    expect(duplicate.candidates.map((c: { id: string }) => c.id)).not.toContain('106');
  });
});

/**
 * Incidents in the split topology (issue 13: incidents; ADR 0032): the team's incident table sits
 * on the ClickHouse server beside its other tracker tables, and a gateway on NATS reads it live
 * into history answers and bisect evidence, and lists it with tracker.incidents.
 */
describe('Incidents from the tracker source in the split topology [issue 13: incidents, split topology]', () => {
  let topology: SplitTopology;
  let fixture: GitFixture;
  let team: ClickHouseClient;
  const ns = uniqueNamespace();
  const db = 'team_incidents_' + randomBytes(4).toString('hex');

  beforeAll(async () => {
    topology = await startSplitTopology({ embedders: 0, gateways: 1, env: { LOOM_CODE_INGEST_ENABLED: 'true', LOOM_TRACKER_ORG: 'acme' } });
    fixture = writeGitFixture();
    team = createClient({ url: topology.clickhouseUrl });
    await createTrackerTables({ client: team }, db);
  });
  afterAll(async () => {
    await team?.command({ query: `DROP DATABASE IF EXISTS ${db}` }).catch(() => undefined);
    await team?.close();
    await topology?.close();
  });
  const api = () => new LoomApi(topology.urls[0]!, topology.admin.token);

  it('PRHIST-02, PRHIST-03, TRACKER-02 (split): history answers carry the incidents that name their commits or PRs, bisect counts them as evidence, tracker.incidents lists them, and an unreadable incidents table leaves the history answering with the reason', async () => {
    const added = await api().ok('code.add', { namespace: ns, path: fixture.path, name: 'demo', wait: true });
    expect(added.repository).toMatchObject({ state: 'ready', commits_indexed: 7 });
    const path = await api().ok('history.path', { namespace: ns, repository: 'demo', path: 'src/connection.ts' });
    expect(path.incidents_reason).toMatch(/no tracker source is registered/);
    const renamed = path.changes.find((c: { sha: string }) => c.sha === fixture.commits.rename).committed_at as string;
    const at = (iso: string, plusMs: number) => new Date(Date.parse(iso) + plusMs).toISOString().slice(0, 19).replace('T', ' ');
    await createOutagesTable({ client: team }, db, [
      { ref: 'INC-20', headline: 'Connection pool exhausted under load', sev: 'SEV1', state: 'resolved', began: at(renamed, 30 * 60_000), ended: null, postmortem: 'Pool sized to 1.', culprit_prs: [3], culprit_shas: '', remedy_prs: null, remedy_shas: [fixture.commits.mergePing] },
    ]);
    await api().ok('tracker.source_register', { namespace: ns, ...trackerRegistrationWithIncidents(db), connection: { url: topology.clickhouseUrl, user: 'default', database: db } });

    const listed = await api().ok('tracker.incidents', { namespace: ns, pr: 3 });
    expect(listed.incidents).toEqual([expect.objectContaining({ id: 'INC-20', severity: 'SEV1', summary: 'Pool sized to 1.', caused_by: { prs: [3], commits: [], pr_refs: [{ repository: null, number: 3 }] }, fixed_by: { prs: [], commits: [fixture.commits.mergePing], pr_refs: [] } })]);
    const linked = await api().ok('history.path', { namespace: ns, repository: 'demo', path: 'src/connection.ts' });
    expect(linked.incidents_reason).toBeNull();
    expect(linked.changes.map((c: { sha: string; incidents: { id: string; role: string; via: string }[] }) => [c.sha, c.incidents.map((i) => `${i.id}:${i.role}:${i.via}`)])).toEqual([
      [fixture.commits.mergePing, ['INC-20:fixed:commit']],
      [fixture.commits.rename, ['INC-20:caused:pr']],
      [fixture.commits.fixQuery, []],
      [fixture.commits.addClose, []],
      [fixture.commits.initial, []],
    ]);
    const bisect = await api().ok('history.bisect', { namespace: ns, repository: 'demo', description: 'connections exhausted under load, the pool runs dry', good: fixture.commits.initial, bad: fixture.commits.cFile });
    expect(bisect.candidates[0].sha).toBe(fixture.commits.rename);
    expect(bisect.candidates[0].reasons[0]).toMatch(/^incident INC-20 .* names PR #3 \(by number alone, which names #3 in every repository of the namespace\) as its cause/);

    await team.command({ query: `DROP TABLE ${db}.outages` });
    const without = await api().ok('history.path', { namespace: ns, repository: 'demo', path: 'src/connection.ts' });
    expect(without.changes).toHaveLength(5);
    expect(without.incidents_reason).toMatch(/incidents were not read: could not read the tracker source at http/);
    const refused = await api().call('tracker.incidents', { namespace: ns });
    expect([refused.status, refused.body.error.code]).toEqual([503, 'unavailable']);
  });
});
