import { createLogger } from '@loom/platform';
import { LoomApiError, Tracker } from '@loom/sdk';
import { Writable } from 'node:stream';
import { createTrackerTables, startTestLoom, trackerRegistration, uniqueNamespace, type TestLoom } from '../../testing/src';

/**
 * The tracker plane through the HTTP API on the embedded default: the team's tables live in a
 * database of their own in the embedded engine, with column names of their own, and Loom reads
 * them live through the registered mapping.
 */
describe('Tracker plane [issue 13: tracker]', () => {
  let off: TestLoom;
  let loom: TestLoom;
  let db: string;
  const ns = uniqueNamespace();
  /** Everything the tracker-on gateway logs, at debug level. */
  const logLines: string[] = [];

  beforeAll(async () => {
    off = await startTestLoom({ withEmbedder: false });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    loom = await startTestLoom({ withEmbedder: false, env: { LOOM_TRACKER_ORG: 'acme', LOOM_LOG_LEVEL: 'debug' }, logger: createLogger('gateway', 'debug', sink) });
    db = `${loom.gateway.runtime.storage.tables.database}_trk`;
    await createTrackerTables(loom.gateway.runtime.storage, db);
  });
  afterAll(async () => {
    await loom.gateway.runtime.storage.command(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    await off.close();
    await loom.close();
  });

  it('TRACKER-01, SETTINGS-09: without LOOM_TRACKER_ORG every tracker op answers not_configured (501) saying how to turn it on, and the status says it is off', async () => {
    const status = await off.admin.ok('tracker.status', { namespace: ns });
    expect(status).toMatchObject({ enabled: false, org: null, source_registered: false });
    expect(status.reason).toMatch(/LOOM_TRACKER_ORG/);
    for (const [op, body] of [
      ['tracker.duplicate_check', { title: 'anything' }],
      ['tracker.issue_links', { issue: '1' }],
      ['tracker.flaky_tests', {}],
      ['tracker.source_register', trackerRegistration('whatever_db')],
    ] as const) {
      const answer = await off.admin.call(op, { namespace: ns, ...body });
      expect([op, answer.status, answer.body.error.code]).toEqual([op, 501, 'not_configured']);
      expect(answer.body.error.message).toMatch(/LOOM_TRACKER_ORG/);
    }
  });

  it('TRACKER-01, SETTINGS-09: with LOOM_TRACKER_ORG but no registered source the plane stays off for that namespace, and says to register one', async () => {
    const other = uniqueNamespace();
    const status = await loom.admin.ok('tracker.status', { namespace: other });
    expect(status).toMatchObject({ enabled: false, org: 'acme', source_registered: false });
    expect(status.reason).toMatch(/tracker\.source_register/);
    const answer = await loom.admin.call('tracker.duplicate_check', { namespace: other, title: 'anything' });
    expect(answer.status).toBe(501);
    expect(answer.body.error.message).toMatch(/no tracker source is registered.*tracker\.source_register/);
  });

  it('TRACKER-01, TRACKER-02: an admin registers the source; the status turns on, shows the mapping and never the password', async () => {
    const registered = await loom.admin.ok('tracker.source_register', { namespace: ns, ...trackerRegistration(db) });
    expect(registered).toMatchObject({ registered: true, enabled: true, issues: 6 });
    expect(registered.source.connection).toEqual({ url: 'embedded', user: null, database: db, password_set: false });
    const status = await loom.admin.ok('tracker.status', { namespace: ns });
    expect(status).toMatchObject({ enabled: true, org: 'acme', source_registered: true, reason: null });
    expect(status.source.mapping.issues.title).toBe('headline');
    // A viewer may read, not register.
    const viewer = await loom.as(ns, 'viewer');
    expect((await viewer.call('tracker.source_register', { namespace: ns, ...trackerRegistration(db) })).status).toBe(403);
    expect((await viewer.call('tracker.status', { namespace: ns })).status).toBe(200);
  });

  it('TRACKER-03: duplicate_check ranks the older issue the new one duplicates first, with a score, shared evidence and the duplicate call from the live threshold', async () => {
    const body = { namespace: ns, title: 'LOGICAL_ERROR: Not-ready Set is passed as the second argument for function in', body: "Code: 49. DB::Exception: Not-ready Set is passed as the second argument for function 'in'. (LOGICAL_ERROR) in a subquery", created_before: '2026-01-31T00:00:00Z' };
    const answer = await loom.admin.ok('tracker.duplicate_check', body);
    expect(answer.considered).toBe(5);
    expect(answer.candidates[0]).toMatchObject({ id: '101', title: 'Logical error: Not-ready Set is passed', state: 'closed', created_at: '2026-01-01T10:00:00Z', url: 'https://github.com/acme/app/issues/101', duplicate: true });
    expect(answer.candidates[0].shared).toEqual(expect.arrayContaining(['Code: 49', 'logical_error']));
    expect(answer.candidates[0].score).toBeGreaterThan(answer.candidates[1].score);
    // Only older issues are candidates: 106 (the same bug, opened later) is not.
    expect(answer.candidates.map((c: { id: string }) => c.id)).not.toContain('106');
    expect(answer.candidates.filter((c: { duplicate: boolean }) => c.duplicate).map((c: { id: string }) => c.id)).toEqual(['101']);

    // The threshold is live: raised to 1, nothing is called a duplicate; the ranking stays.
    await loom.admin.ok('settings.set', { key: 'tracker_duplicate_threshold', value: 1 });
    try {
      const strict = await loom.admin.ok('tracker.duplicate_check', body);
      expect(strict.threshold).toBe(1);
      expect(strict.candidates[0].id).toBe('101');
      expect(strict.candidates.some((c: { duplicate: boolean }) => c.duplicate)).toBe(false);
    } finally {
      await loom.admin.ok('settings.set', { key: 'tracker_duplicate_threshold', value: 0.5 });
    }
    expect((await loom.admin.call('settings.set', { key: 'tracker_duplicate_threshold', value: 2 })).status).toBe(400);
  });

  it('TRACKER-03: for a given issue already in the tracker (by id), the issues opened before it are ranked and it is not its own candidate', async () => {
    const answer = await loom.admin.ok('tracker.duplicate_check', { namespace: ns, issue: '#106' });
    expect(answer.candidates[0]).toMatchObject({ id: '101', duplicate: true });
    expect(answer.candidates.map((c: { id: string }) => c.id)).not.toContain('106');
    expect(answer.considered).toBe(5);
    const missing = await loom.admin.call('tracker.duplicate_check', { namespace: ns, issue: '999' });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
    const neither = await loom.admin.call('tracker.duplicate_check', { namespace: ns, body: 'only a body' });
    expect([neither.status, neither.body.error.fields]).toEqual([400, [{ field: 'title', message: 'title is required unless issue names an issue in the tracker' }]]);
  });

  it('TRACKER-03: an unrelated issue is not called a duplicate of anything', async () => {
    const answer = await loom.admin.ok('tracker.duplicate_check', { namespace: ns, title: 'Add a Grafana dashboard for replication lag', body: 'It would help operators to see replica delay over time.' });
    expect(answer.candidates.some((c: { duplicate: boolean }) => c.duplicate)).toBe(false);
  });

  it('TRACKER-02: reads are live: an issue inserted into the team table after registration is a candidate at once', async () => {
    await loom.gateway.runtime.storage.client.insert({
      table: `${db}.tickets`,
      format: 'JSONEachRow',
      values: [{ ticket_no: 107, headline: 'Keeper session expired during ALTER on replicated table', details: 'Code: 999. Coordination::Exception: Session expired (KEEPER_EXCEPTION)', opened: '2026-02-10 10:00:00', status: 'open', resolved: null, dup_of: null }],
    });
    const answer = await loom.admin.ok('tracker.duplicate_check', { namespace: ns, title: 'Session expired (KEEPER_EXCEPTION) while running ALTER', body: 'Coordination::Exception: Session expired' });
    expect(answer.candidates[0].id).toBe('107');
  });

  it('issue-to-PR links come from the link table, "Fixes/Closes/Resolves #N" in PR bodies and commit messages; another org\'s reference and a mere mention do not count', async () => {
    const links = await loom.admin.ok('tracker.issue_links', { namespace: ns, issue: '#101' });
    expect(links.issue).toBe('101');
    expect(links.links).toEqual([
      { pr: '2001', sha: null, source: 'link_table', phrase: null },
      { pr: '2008', sha: null, source: 'pr_body', phrase: 'resolves acme/app#101' },
      { pr: '2007', sha: 'a1b2c3d', source: 'commit_message', phrase: 'Resolves #101' },
    ]);
    const parquet = await loom.admin.ok('tracker.issue_links', { namespace: ns, issue: '105' });
    expect(parquet.links.map((l: { pr: string; source: string }) => `${l.source}:${l.pr}`)).toEqual(['link_table:2005', 'pr_body:2004']);
    const crash = await loom.admin.ok('tracker.issue_links', { namespace: ns, issue: '102' });
    expect(crash.links.map((l: { pr: string }) => l.pr)).toEqual(['2002']);
    expect((await loom.admin.ok('tracker.issue_links', { namespace: ns, issue: '103' })).links).toEqual([]);
  });

  it('flaky tests: tests that both failed and passed on one commit, with counts and the latest runs, paged', async () => {
    const answer = await loom.admin.ok('tracker.flaky_tests', { namespace: ns, runs: 2 });
    expect(answer.tests.map((t: { test: string }) => t.test)).toEqual(['test_a', 'test_c']);
    expect(answer.tests[0]).toMatchObject({ test: 'test_a', flaky_commits: 2, failures: 2, passes: 3, last_seen: '2026-03-01T10:06:00Z' });
    expect(answer.tests[0].latest_runs).toEqual([
      { commit: 'sha4', status: 'success', run_at: '2026-03-01T10:06:00Z' },
      { commit: 'sha4', status: 'error', run_at: '2026-03-01T10:05:00Z' },
    ]);
    expect(answer.tests[1]).toMatchObject({ test: 'test_c', flaky_commits: 1, failures: 1, passes: 1 });
    expect(answer.next_offset).toBeNull();
    const first = await loom.admin.ok('tracker.flaky_tests', { namespace: ns, limit: 1 });
    expect(first.tests.map((t: { test: string }) => t.test)).toEqual(['test_a']);
    expect(first.next_offset).toBe(1);
    const second = await loom.admin.ok('tracker.flaky_tests', { namespace: ns, limit: 1, offset: 1 });
    expect(second.tests.map((t: { test: string }) => t.test)).toEqual(['test_c']);
    const since = await loom.admin.ok('tracker.flaky_tests', { namespace: ns, since: '2026-03-01T10:04:30Z' });
    expect(since.tests.map((t: { test: string; flaky_commits: number }) => `${t.test}:${t.flaky_commits}`)).toEqual(['test_c:1', 'test_a:1']);
  });

  it('an invalid mapping names each bad column (missing, wrong kind) and each missing table in one 400, and stores nothing', async () => {
    const other = uniqueNamespace();
    const body = trackerRegistration(db) as { connection: object; mapping: Record<string, Record<string, string>> };
    const answer = await loom.admin.call('tracker.source_register', {
      namespace: other,
      ...body,
      mapping: {
        ...body.mapping,
        issues: { ...body.mapping['issues'], title: 'subject', body: 'text_body', created_at: 'headline' },
        ci_runs: { ...body.mapping['ci_runs'], table: 'no_such_runs' },
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['mapping.ci_runs.table', 'mapping.issues.body', 'mapping.issues.created_at', 'mapping.issues.title']);
    expect(answer.body.error.fields.find((f: { field: string }) => f.field === 'mapping.issues.title').message).toMatch(/no column "subject".*ticket_no, headline/);
    expect(answer.body.error.fields.find((f: { field: string }) => f.field === 'mapping.issues.created_at').message).toMatch(/String.*Date or DateTime/);
    expect((await loom.admin.ok('tracker.status', { namespace: other })).source_registered).toBe(false);
  });

  it('identifiers that are not plain names (SQL in a mapping) are refused by the validator, each named', async () => {
    const body = trackerRegistration(db) as { connection: object; mapping: Record<string, Record<string, string>> };
    const answer = await loom.admin.call('tracker.source_register', {
      namespace: ns,
      connection: { url: 'embedded', database: 'x; DROP TABLE y' },
      mapping: { ...body.mapping, issues: { ...body.mapping['issues'], id: 'ticket_no) FROM system.users --', table: '`tickets`' } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['connection.database', 'mapping.issues.id', 'mapping.issues.table']);
  });

  it('a missing database, Loom\'s own database, a missing mapping and a bad URL are each a 400 naming the field', async () => {
    const body = trackerRegistration(db) as { connection: object; mapping: object };
    const missingDb = await loom.admin.call('tracker.source_register', { namespace: uniqueNamespace(), ...body, connection: { url: 'embedded', database: 'no_such_tracker_db' } });
    expect([missingDb.status, missingDb.body.error.fields]).toEqual([400, [{ field: 'connection.database', message: 'the source has no database "no_such_tracker_db"' }]]);
    const own = await loom.admin.call('tracker.source_register', { namespace: uniqueNamespace(), ...body, connection: { url: 'embedded', database: loom.gateway.runtime.storage.tables.database } });
    expect(own.status).toBe(400);
    expect(own.body.error.fields[0].field).toBe('connection.database');
    const bare = await loom.admin.call('tracker.source_register', { namespace: uniqueNamespace(), connection: { url: 'ftp://x', database: db } });
    expect(bare.status).toBe(400);
    expect(bare.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['connection.url', 'mapping']);
  });

  it('a source that cannot be reached is a clear 400 on connection.url, and the password is in no answer or log line', async () => {
    const body = trackerRegistration(db) as { mapping: object };
    const answer = await loom.admin.call('tracker.source_register', {
      namespace: uniqueNamespace(),
      connection: { url: 'http://127.0.0.1:40917', user: 'reader', password: 'hunter2-tracker-secret', database: 'tracker' },
      mapping: body.mapping,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/could not reach the tracker source at http:\/\/127\.0\.0\.1:40917/);
    expect(answer.body.error.fields[0].field).toBe('connection.url');
    expect(JSON.stringify(answer.body)).not.toContain('hunter2-tracker-secret');
    expect(logLines.join('').length).toBeGreaterThan(100);
    expect(logLines.join('')).not.toContain('hunter2-tracker-secret');
  });

  it('a registered table that disappears makes the read answer 503 (the source\'s failure, retryable), never a 500', async () => {
    const other = uniqueNamespace();
    const spare = `${db}_spare`;
    await createTrackerTables(loom.gateway.runtime.storage, spare);
    await loom.admin.ok('tracker.source_register', { namespace: other, ...trackerRegistration(spare) });
    await loom.gateway.runtime.storage.command(`DROP DATABASE ${spare}`);
    const answer = await loom.admin.call('tracker.duplicate_check', { namespace: other, title: 'Not-ready Set' });
    expect(answer.status).toBe(503);
    expect(answer.body.error.message).toMatch(/could not read the tracker source at embedded/);
  });

  it('bad input to the read ops is a 400 naming each field', async () => {
    const dup = await loom.admin.call('tracker.duplicate_check', { namespace: ns, title: '', limit: 500, created_before: 'yesterday', issue: "1' OR 1=1" });
    expect(dup.status).toBe(400);
    expect(dup.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['created_before', 'issue', 'limit', 'title']);
    const links = await loom.admin.call('tracker.issue_links', { namespace: ns, issue: "1' OR 1=1" });
    expect([links.status, links.body.error.fields.map((f: { field: string }) => f.field)]).toEqual([400, ['issue']]);
    const flaky = await loom.admin.call('tracker.flaky_tests', { namespace: ns, limit: 0, offset: -1 });
    expect(flaky.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['limit', 'offset']);
  });

  it('TRACKER-01, TRACKER-03: the SDK reaches the plane: off is a not_configured LoomApiError, on it checks, links and lists flaky tests', async () => {
    const offTracker = new Tracker(ns, { baseUrl: off.url, token: off.admin.token });
    const refused = await offTracker.duplicateCheck({ title: 'x' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LoomApiError);
    expect(refused).toMatchObject({ status: 501, code: 'not_configured' });
    const tracker = new Tracker(ns, { baseUrl: loom.url, token: loom.admin.token });
    expect((await tracker.status()).enabled).toBe(true);
    expect((await tracker.duplicateCheck({ title: 'Segfault in MergeTreeData::loadDataParts', created_before: '2026-01-31' })).candidates[0]!.id).toBe('102');
    expect((await tracker.issueLinks('102')).links.map((l) => l.pr)).toEqual(['2002']);
    expect((await tracker.flakyTests({ limit: 1 })).tests.map((t) => t.test)).toEqual(['test_a']);
  });
});
