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

  it('TRACKER-03: a candidate the tracker records as a duplicate (issues column or link table) answers with its original, at its score, saying via whom; links made after the new issue are not used; a source without them ranks as before', async () => {
    const storage = loom.gateway.runtime.storage;
    const dupDb = `${db}_dups`;
    await storage.command(`DROP DATABASE IF EXISTS ${dupDb}`);
    await storage.command(`CREATE DATABASE ${dupDb}`);
    await storage.command(`CREATE TABLE ${dupDb}.bugs (bug_id UInt64, summary String, text String, filed DateTime('UTC'), dupe_of Nullable(UInt64)) ENGINE = MergeTree ORDER BY bug_id`);
    await storage.command(`CREATE TABLE ${dupDb}.bug_links (from_bug UInt64, to_bug UInt64, marked DateTime('UTC')) ENGINE = MergeTree ORDER BY from_bug`);
    const bug = (bug_id: number, summary: string, text: string, filed: string, dupe_of: number | null = null) => ({ bug_id, summary, text, filed, dupe_of });
    await storage.client.insert({
      table: `${dupDb}.bugs`,
      format: 'JSONEachRow',
      values: [
        bug(201, 'Parquet reader crash', 'Segfault somewhere in the Parquet reader.', '2026-01-01 10:00:00'),
        bug(202, 'Crash reading Parquet file with an empty row group', 'Code: 1001. std::out_of_range in DB::ParquetBlockInputFormat::prepareReader when the file has an empty row group', '2026-02-01 10:00:00', 201),
        bug(203, 'Typo in the documentation of JSONExtract', 'The example is wrong.', '2026-02-02 10:00:00'),
        bug(204, 'Keeper session expired during ALTER', 'Code: 999. Coordination::Exception: Session expired (KEEPER_EXCEPTION) in ReplicatedMergeTree ALTER', '2026-02-15 10:00:00'),
        bug(205, 'Keeper connection loss', 'Coordination::Exception: Connection loss', '2026-01-20 10:00:00'),
      ],
    });
    // 204 was marked a duplicate of 205 on March 5th, in the link table only.
    await storage.client.insert({ table: `${dupDb}.bug_links`, format: 'JSONEachRow', values: [{ from_bug: 204, to_bug: 205, marked: '2026-03-05 10:00:00' }] });
    const issues = { table: 'bugs', id: 'bug_id', title: 'summary', body: 'text', created_at: 'filed' };
    const linked = uniqueNamespace();
    const plain = uniqueNamespace();
    try {
      await loom.admin.ok('tracker.source_register', {
        namespace: linked,
        connection: { url: 'embedded', database: dupDb },
        mapping: { issues: { ...issues, duplicate_of: 'dupe_of' }, duplicate_links: { table: 'bug_links', issue: 'from_bug', duplicate_of: 'to_bug', linked_at: 'marked' } },
      });
      await loom.admin.ok('tracker.source_register', { namespace: plain, connection: { url: 'embedded', database: dupDb }, mapping: { issues } });
      const parquet = { title: 'Crash reading Parquet with an empty row group', body: 'std::out_of_range in DB::ParquetBlockInputFormat::prepareReader, empty row group', created_before: '2026-03-01T00:00:00Z' };

      // Without duplicate links the later report ranks first, as it always did.
      const before = await loom.admin.ok('tracker.duplicate_check', { namespace: plain, ...parquet });
      expect(before.candidates[0]).toMatchObject({ id: '202', via: null, reason: null });
      const own201 = before.candidates.find((c: { id: string }) => c.id === '201');
      // With them, its original answers in its place, at its score and with its evidence.
      const after = await loom.admin.ok('tracker.duplicate_check', { namespace: linked, ...parquet });
      expect(after.candidates[0]).toMatchObject({ id: '201', title: 'Parquet reader crash', created_at: '2026-01-01T10:00:00Z', score: before.candidates[0].score, duplicate: before.candidates[0].duplicate, shared: before.candidates[0].shared, via: '202' });
      expect(after.candidates[0].score).toBeGreaterThan(own201.score);
      expect(after.candidates[0].reason).toBe('the new issue matched #202, which the tracker records as a duplicate of #201');
      expect(after.candidates.map((c: { id: string }) => c.id)).not.toContain('202');
      expect(after.candidates.map((c: { id: string }) => c.id).sort()).toEqual(['201', '203', '204', '205']);

      // The link table's link of 204 to 205 was made on March 5th: a check as of March 1st does not see it, one as of April does.
      const keeper = { title: 'Session expired (KEEPER_EXCEPTION) during ALTER', body: 'Coordination::Exception: Session expired' };
      const march = await loom.admin.ok('tracker.duplicate_check', { namespace: linked, ...keeper, created_before: '2026-03-01T00:00:00Z' });
      expect(march.candidates[0]).toMatchObject({ id: '204', via: null });
      const april = await loom.admin.ok('tracker.duplicate_check', { namespace: linked, ...keeper, created_before: '2026-04-01T00:00:00Z' });
      // (Its score is 204's as of April: further from 204's opening, so a little lower.)
      expect(april.candidates[0]).toMatchObject({ id: '205', via: '204', reason: 'the new issue matched #204, which the tracker records as a duplicate of #205' });
      expect(april.candidates.map((c: { id: string }) => c.id)).not.toContain('204');

      // An original ranked above its known duplicate keeps its own place and score; the duplicate leaves.
      const reader = await loom.admin.ok('tracker.duplicate_check', { namespace: linked, title: 'Parquet reader crash: segfault', body: 'Segfault somewhere in the Parquet reader', created_before: '2026-03-01T00:00:00Z' });
      expect(reader.candidates[0]).toMatchObject({ id: '201', via: null, reason: null });
      expect(reader.candidates.map((c: { id: string }) => c.id)).not.toContain('202');

      // For an issue already in the tracker (by id), its own link is never its answer, and nothing newer is.
      const self = await loom.admin.ok('tracker.duplicate_check', { namespace: linked, issue: '202' });
      expect(self.candidates.map((c: { id: string; via: string | null }) => `${c.id}:${c.via}`)).toEqual(['201:null', '205:null']);

      // An original older than the newest LOOM_TRACKER_SCAN_LIMIT issues is read by id for the answer.
      const narrow = await startTestLoom({ withEmbedder: false, env: { LOOM_TRACKER_ORG: 'acme', LOOM_TRACKER_SCAN_LIMIT: '2' } });
      try {
        await narrow.admin.ok('tracker.source_register', { namespace: linked, connection: { url: 'embedded', database: dupDb }, mapping: { issues: { ...issues, duplicate_of: 'dupe_of' } } });
        const window = await narrow.admin.ok('tracker.duplicate_check', { namespace: linked, ...parquet, created_before: '2026-02-03T00:00:00Z' });
        expect(window.considered).toBe(2);
        expect(window.candidates.map((c: { id: string; via: string | null }) => `${c.id}:${c.via}`)).toEqual(['201:202', '203:null']);
        expect(window.candidates[0]).toMatchObject({ title: 'Parquet reader crash', created_at: '2026-01-01T10:00:00Z' });
      } finally {
        await narrow.close();
      }

      // A duplicate-link mapping that does not fit the tables names each bad column.
      const bad = await loom.admin.call('tracker.source_register', {
        namespace: uniqueNamespace(),
        connection: { url: 'embedded', database: dupDb },
        mapping: { issues: { ...issues, duplicate_of: 'original' }, duplicate_links: { table: 'bug_links', issue: 'from_bug', duplicate_of: 'to', linked_at: 'from_bug' } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['mapping.duplicate_links.duplicate_of', 'mapping.duplicate_links.linked_at', 'mapping.issues.duplicate_of']);
      const missing = await loom.admin.call('tracker.source_register', {
        namespace: uniqueNamespace(),
        connection: { url: 'embedded', database: dupDb },
        mapping: { issues, duplicate_links: { table: 'no_links', issue: 'a', duplicate_of: 'b' } },
      });
      expect([missing.status, missing.body.error.fields.map((f: { field: string }) => f.field)]).toEqual([400, ['mapping.duplicate_links.table']]);
      const shape = await loom.admin.call('tracker.source_register', { namespace: uniqueNamespace(), connection: { url: 'embedded', database: dupDb }, mapping: { issues, duplicate_links: { table: 'bug_links', issue: 'from_bug' } } });
      expect([shape.status, shape.body.error.fields.map((f: { field: string }) => f.field)]).toEqual([400, ['mapping.duplicate_links.duplicate_of']]);
    } finally {
      await storage.command(`DROP DATABASE IF EXISTS ${dupDb}`);
    }
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
