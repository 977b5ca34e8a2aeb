import { LoomApiError, Tracker } from '@loom/sdk';
import {
  createOutagesTable,
  createTrackerTables,
  OUTAGES_MAPPING,
  startFakeGithub,
  startTestLoom,
  trackerRegistration,
  trackerRegistrationWithIncidents,
  uniqueNamespace,
  writeGitFixture,
  type FakeGithub,
  type GitFixture,
  type OutageRow,
  type TestLoom,
} from '../../testing/src';

type PrRef = { repository: string | null; number: number };
type Refs = { prs: number[]; pr_refs: PrRef[]; commits: string[] };
type Incident = { id: string; title: string; severity: string | null; status: string | null; started_at: string | null; resolved_at: string | null; summary: string | null; repository: string | null; caused_by: Refs; fixed_by: Refs };
type Link = { id: string; role: 'caused' | 'fixed'; via: 'commit' | 'pr' };

/**
 * Incidents from the tracker source (PRHIST-02: "plus incidents and CI runs when a tracker source
 * is registered"), through the HTTP API on the embedded default: the team's `outages` table lives
 * in a database of its own in the embedded engine, with column names and kinds of its own (PR
 * numbers in an Array, commits as text, a fix as a URL), and Loom reads it live through the mapping.
 */
describe('Tracker incidents [issue 13: incidents]', () => {
  let loom: TestLoom;
  let db: string;
  /** The GitHub API the gateway calls (loopback): a repository synced from it has a GitHub owner/repo, acme/app. */
  let github: FakeGithub;
  const ns = uniqueNamespace();

  beforeAll(async () => {
    github = await startFakeGithub({ repo: 'acme/app' });
    loom = await startTestLoom({ withEmbedder: false, env: { LOOM_TRACKER_ORG: 'acme', LOOM_CODE_INGEST_ENABLED: 'true', LOOM_GITHUB_API_URL: github.baseUrl } });
    db = `${loom.gateway.runtime.storage.tables.database}_inc`;
    await createTrackerTables(loom.gateway.runtime.storage, db);
    await createOutagesTable(loom.gateway.runtime.storage, db);
  });
  afterAll(async () => {
    await loom.gateway.runtime.storage.command(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    await loom.close();
    await github.close();
  });

  it('PRHIST-02, TRACKER-02: a source registered without mapping.incidents keeps working; tracker.incidents then answers not_configured (501) saying to add the mapping', async () => {
    const other = uniqueNamespace();
    expect(await loom.admin.ok('tracker.source_register', { namespace: other, ...trackerRegistration(db) })).toMatchObject({ registered: true, issues: 6 });
    expect((await loom.admin.ok('tracker.flaky_tests', { namespace: other })).tests.map((t: { test: string }) => t.test)).toEqual(['test_a', 'test_c']);
    const answer = await loom.admin.call('tracker.incidents', { namespace: other });
    expect([answer.status, answer.body.error.code]).toEqual([501, 'not_configured']);
    expect(answer.body.error.message).toMatch(/maps no incidents table.*mapping\.incidents/);
    // Off altogether (no source in this namespace): the plane's own reason.
    const off = await loom.admin.call('tracker.incidents', { namespace: uniqueNamespace() });
    expect([off.status, off.body.error.message]).toEqual([501, expect.stringMatching(/no tracker source is registered.*tracker\.source_register/)]);
  });

  it('PRHIST-02, TRACKER-02: with mapping.incidents, tracker.incidents lists them newest first with severity, status, times, summary and the PRs and commits that caused and fixed each, normalised', async () => {
    const registered = await loom.admin.ok('tracker.source_register', { namespace: ns, ...trackerRegistrationWithIncidents(db) });
    expect(registered.source.mapping.incidents).toEqual(OUTAGES_MAPPING);
    const answer = await loom.admin.ok('tracker.incidents', { namespace: ns });
    expect(answer.next_offset).toBeNull();
    expect(answer.incidents.map((i: Incident) => i.id)).toEqual(['INC-2', 'INC-1', 'INC-3']);
    expect(answer.incidents[1]).toEqual({
      id: 'INC-1',
      title: 'Checkout latency spike after the sets refactor',
      severity: 'SEV1',
      status: 'resolved',
      started_at: '2026-03-02T10:00:00Z',
      resolved_at: '2026-03-02T11:30:00Z',
      summary: 'p99 went from 80 ms to 4 s.',
      // No repo column mapped.
      repository: null,
      // Bare numbers: they name no repository.
      caused_by: { prs: [2003], pr_refs: [{ repository: null, number: 2003 }], commits: ['a1b2c3d'] },
      fixed_by: { prs: [2008], pr_refs: [{ repository: null, number: 2008 }], commits: ['d4e5f6a'] },
    });
    expect(answer.incidents[0]).toMatchObject({ id: 'INC-2', resolved_at: null, caused_by: { prs: [], pr_refs: [], commits: [] }, fixed_by: { prs: [], pr_refs: [], commits: [] } });
    // A commit URL (upper case) and a pull request URL are read as the sha and the number; the URL names its repository.
    expect(answer.incidents[2]).toMatchObject({ caused_by: { prs: [2004], commits: ['abcdef1234567'] }, fixed_by: { prs: [2005], pr_refs: [{ repository: 'acme/app', number: 2005 }], commits: [] } });
  });

  it('PRHIST-02: tracker.incidents filters by PR, commit (either side a prefix), start window, severity and status, and pages with next_offset', async () => {
    const ids = async (body: Record<string, unknown>) => (await loom.admin.ok('tracker.incidents', { namespace: ns, ...body })).incidents.map((i: Incident) => i.id);
    expect(await ids({ pr: 2008 })).toEqual(['INC-1']);
    expect(await ids({ pr: 2004 })).toEqual(['INC-3']);
    expect(await ids({ pr: 9999 })).toEqual([]);
    expect(await ids({ commit: 'a1b2c3d0000000000000000000000000000000ff' })).toEqual(['INC-1']);
    expect(await ids({ commit: 'ABCDEF12' })).toEqual(['INC-3']);
    expect(await ids({ commit: 'd4e5f6a' })).toEqual(['INC-1']);
    expect(await ids({ since: '2026-03-01', until: '2026-03-03T00:00:00Z' })).toEqual(['INC-1']);
    expect(await ids({ severity: 'sev1' })).toEqual(['INC-1', 'INC-3']);
    expect(await ids({ status: 'OPEN' })).toEqual(['INC-2']);
    const first = await loom.admin.ok('tracker.incidents', { namespace: ns, limit: 2 });
    expect([first.incidents.length, first.next_offset]).toEqual([2, 2]);
    const second = await loom.admin.ok('tracker.incidents', { namespace: ns, limit: 2, offset: 2 });
    expect([second.incidents.map((i: Incident) => i.id), second.next_offset]).toEqual([['INC-3'], null]);
    // Live: an incident the team records now is in the next answer.
    await loom.gateway.runtime.storage.client.insert({
      table: `${db}.outages`,
      format: 'JSONEachRow',
      values: [{ ref: 'INC-4', headline: 'Disk full on replica 3', sev: 'SEV3', state: 'open', began: '2026-03-06 09:00:00', ended: null, postmortem: '', culprit_prs: [], culprit_shas: '', remedy_prs: null, remedy_shas: [], labels: {} }],
    });
    expect((await ids({ limit: 1 }))[0]).toBe('INC-4');
  });

  it('PRHIST-02 [issue 13: bad input]: an invalid incidents mapping names each bad column (missing, wrong kind, a link column that is a Map) in one 400, and stores nothing', async () => {
    const other = uniqueNamespace();
    const body = trackerRegistration(db) as { connection: object; mapping: Record<string, unknown> };
    const answer = await loom.admin.call('tracker.source_register', {
      namespace: other,
      ...body,
      mapping: { ...body.mapping, incidents: { ...OUTAGES_MAPPING, title: 'no_such_title', started_at: 'headline', summary: 'culprit_prs', caused_by_pr: 'labels' } },
    });
    expect(answer.status).toBe(400);
    const fields = answer.body.error.fields as { field: string; message: string }[];
    expect(fields.map((f) => f.field).sort()).toEqual(['mapping.incidents.caused_by_pr', 'mapping.incidents.started_at', 'mapping.incidents.summary', 'mapping.incidents.title']);
    expect(fields.find((f) => f.field === 'mapping.incidents.title')!.message).toMatch(/no column "no_such_title".*ref, headline/);
    expect(fields.find((f) => f.field === 'mapping.incidents.started_at')!.message).toMatch(/String.*Date or DateTime/);
    expect(fields.find((f) => f.field === 'mapping.incidents.caused_by_pr')!.message).toMatch(/Map\(String, String\).*one value .* or an Array/);
    expect(fields.find((f) => f.field === 'mapping.incidents.summary')!.message).toMatch(/Array\(UInt32\).*a String column/);
    const noTable = await loom.admin.call('tracker.source_register', { namespace: other, ...body, mapping: { ...body.mapping, incidents: { ...OUTAGES_MAPPING, table: 'no_such_outages' } } });
    expect([noTable.status, noTable.body.error.fields]).toEqual([400, [{ field: 'mapping.incidents.table', message: `no table "no_such_outages" in database "${db}"` }]]);
    // The validator: required columns missing and names that are not plain identifiers, each named.
    const shape = await loom.admin.call('tracker.source_register', { namespace: other, ...body, mapping: { ...body.mapping, incidents: { table: 'outages', id: 'ref; DROP TABLE x', caused_by_pr: 'a b' } } });
    expect(shape.status).toBe(400);
    expect(shape.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['mapping.incidents.caused_by_pr', 'mapping.incidents.id', 'mapping.incidents.started_at', 'mapping.incidents.title']);
    expect((await loom.admin.ok('tracker.status', { namespace: other })).source_registered).toBe(false);
  });

  it('PRHIST-02 [issue 13: bad input]: bad filters are a 400 naming each field; a viewer may list incidents', async () => {
    const bad = await loom.admin.call('tracker.incidents', { namespace: ns, pr: 0, commit: 'abc', since: 'yesterday', limit: 500, offset: -1, severity: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['commit', 'limit', 'offset', 'pr', 'severity', 'since']);
    const viewer = await loom.as(ns, 'viewer');
    expect((await viewer.call('tracker.incidents', { namespace: ns })).status).toBe(200);
  });

  it('PRHIST-02: a source whose incidents table disappears answers 503 (the source\'s failure, retryable), never a 500', async () => {
    const other = uniqueNamespace();
    const spare = `${db}_spare`;
    await createTrackerTables(loom.gateway.runtime.storage, spare);
    await createOutagesTable(loom.gateway.runtime.storage, spare);
    await loom.admin.ok('tracker.source_register', { namespace: other, ...trackerRegistrationWithIncidents(spare) });
    await loom.gateway.runtime.storage.command(`DROP TABLE ${spare}.outages`);
    try {
      const answer = await loom.admin.call('tracker.incidents', { namespace: other });
      expect([answer.status, answer.body.error.code]).toEqual([503, 'unavailable']);
      expect(answer.body.error.message).toMatch(/could not read the tracker source at embedded/);
    } finally {
      await loom.gateway.runtime.storage.command(`DROP DATABASE IF EXISTS ${spare}`);
    }
  });

  it('PRHIST-02: the SDK lists incidents; with the plane off it is a not_configured LoomApiError', async () => {
    const tracker = new Tracker(ns, { baseUrl: loom.url, token: loom.admin.token });
    expect((await tracker.incidents({ severity: 'SEV1' })).incidents.map((i) => i.id)).toEqual(['INC-1', 'INC-3']);
    const refused = await new Tracker(uniqueNamespace(), { baseUrl: loom.url, token: loom.admin.token }).incidents().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LoomApiError);
    expect(refused).toMatchObject({ status: 501, code: 'not_configured' });
  });

  describe('in history answers (PRHIST-02 with PRHIST-03)', () => {
    let fixture: GitFixture;
    const hns = uniqueNamespace();
    const hdb = () => `${db}_hist`;
    const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: hns, repository: 'demo', ...body });
    /** When a commit landed, as history answers say. */
    let landed: (sha: string) => Promise<string>;

    beforeAll(async () => {
      fixture = writeGitFixture();
      await loom.admin.ok('code.add', { namespace: hns, path: fixture.path, name: 'demo', wait: true });
      landed = async (sha) => {
        for (const path of ['src', 'tools']) {
          const change = (await ok('history.path', { path })).changes.find((c: { sha: string }) => c.sha === sha);
          if (change) return change.committed_at as string;
        }
        throw new Error(`no indexed change ${sha}`);
      };
      await createTrackerTables(loom.gateway.runtime.storage, hdb());
    });
    afterAll(async () => {
      await loom.gateway.runtime.storage.command(`DROP DATABASE IF EXISTS ${hdb()}`).catch(() => undefined);
    });

    const outage = (o: Partial<OutageRow> & { ref: string; headline: string; began: string }): OutageRow => ({ sev: 'SEV2', state: 'resolved', ended: null, postmortem: '', culprit_prs: [], culprit_shas: '', remedy_prs: null, remedy_shas: [], ...o });
    const engineTime = (iso: string, plusMs = 0) => new Date(Date.parse(iso) + plusMs).toISOString().slice(0, 19).replace('T', ' ');

    it('PRHIST-02: before a source is registered, and with one that maps no incidents, history answers as before with incidents_reason saying why none are attached', async () => {
      const before = await ok('history.path', { path: 'src/connection.ts' });
      expect(before.changes.every((c: { incidents: Link[] }) => c.incidents.length === 0)).toBe(true);
      expect(before.incidents_reason).toMatch(/no tracker source is registered/);
      await loom.admin.ok('tracker.source_register', { namespace: hns, ...trackerRegistration(hdb()) });
      const unmapped = await ok('history.review_brief', { pr_number: 3 });
      expect([unmapped.incidents, unmapped.incidents_reason]).toEqual([[], expect.stringMatching(/maps no incidents table.*mapping\.incidents/)]);
    });

    it('PRHIST-02: path history and a review brief carry the incidents that name a commit or its PR as their cause or fix', async () => {
      const rename = fixture.commits.rename;
      await createOutagesTable(loom.gateway.runtime.storage, hdb(), [
        // The rename's PR caused it (an Array of PR numbers); the merge commit fixed it (a 12-digit prefix).
        outage({ ref: 'INC-10', headline: 'Connection pool exhausted under load', sev: 'SEV1', began: engineTime(await landed(rename), 30 * 60_000), culprit_prs: [3], remedy_shas: [fixture.commits.mergePing.slice(0, 12)] }),
        // Names the fix commit by URL; a 6-digit prefix is too short to name anything.
        outage({ ref: 'INC-11', headline: 'Slow dashboards', began: '2026-01-01 00:00:00', culprit_shas: `https://github.com/acme/demo/commit/${fixture.commits.fixQuery}, ${fixture.commits.addClose.slice(0, 6)}` }),
      ]);
      await loom.admin.ok('tracker.source_register', { namespace: hns, ...trackerRegistrationWithIncidents(hdb()) });
      const path = await ok('history.path', { path: 'src/connection.ts' });
      expect(path.incidents_reason).toBeNull();
      const bySha = new Map(path.changes.map((c: { sha: string; incidents: Link[] }) => [c.sha, c.incidents.map((i) => `${i.id}:${i.role}:${i.via}`)]));
      expect(Object.fromEntries(bySha)).toEqual({
        [fixture.commits.mergePing]: ['INC-10:fixed:commit'],
        [rename]: ['INC-10:caused:pr'],
        [fixture.commits.fixQuery]: ['INC-11:caused:commit'],
        [fixture.commits.addClose]: [],
        [fixture.commits.initial]: [],
      });
      expect(path.changes[1].incidents[0]).toMatchObject({ id: 'INC-10', title: 'Connection pool exhausted under load', severity: 'SEV1', status: 'resolved', resolved_at: null });
      const brief = await ok('history.review_brief', { pr_number: 3 });
      expect([brief.incidents.map((i: Link) => `${i.id}:${i.role}`), brief.incidents_reason]).toEqual([['INC-10:caused'], null]);
      const symbol = await ok('history.symbol', { symbol: 'query' });
      expect(symbol.changes.map((c: { incidents: Link[] }) => c.incidents.map((i) => i.id))).toEqual([['INC-11'], []]);
      const line = await ok('history.line', { path: 'src/connection.ts', line: 4 });
      expect(line.changes[0].incidents.map((i: Link) => i.id)).toEqual(['INC-11']);
    });

    it('PRHIST-02, PRHIST-03: bisect candidates gain evidence from an incident that names the commit\'s PR as its cause, and from one that started right after a commit landed', async () => {
      const body = { description: 'connections exhausted under load, the pool runs dry', good: fixture.commits.initial, bad: fixture.commits.cFile };
      const bisect = await ok('history.bisect', body);
      expect(bisect.incidents_reason).toBeNull();
      expect(bisect.candidates[0].sha).toBe(fixture.commits.rename);
      expect(bisect.candidates[0].reasons[0]).toMatch(/^incident INC-10 \("Connection pool exhausted under load", SEV1\) names PR #3 \(by number alone, which names #3 in every repository of the namespace\) as its cause; it mentions "/);
      expect(bisect.candidates[0].incidents.map((i: Link) => `${i.id}:${i.role}`)).toEqual(['INC-10:caused']);
      // INC-10 began 30 minutes after the rename landed, so every commit of the half hour before it is weaker evidence too.
      const temporal = bisect.candidates.find((c: { sha: string }) => c.sha === fixture.commits.mergePing);
      expect(temporal?.reasons.join(' ')).toMatch(/incident INC-10 .* started \d+ min after it landed/);

      // Unlinked: an incident that began 5 minutes after the last commit landed.
      await loom.gateway.runtime.storage.client.insert({
        table: `${hdb()}.outages`,
        format: 'JSONEachRow',
        values: [{ ...outage({ ref: 'INC-12', headline: 'Parser returns garbage for lines', began: engineTime(await landed(fixture.commits.cFile), 5 * 60_000) }), labels: {} }],
      });
      const parse = await ok('history.bisect', { description: 'the line parser returns garbage', good: fixture.commits.initial, bad: fixture.commits.cFile });
      expect(parse.candidates[0].sha).toBe(fixture.commits.cFile);
      expect(parse.candidates[0].reasons.join('\n')).toMatch(/^incident INC-12 \("Parser returns garbage for lines", SEV2\) started 5 min after it landed; it mentions "/m);
      expect(parse.candidates[0].incidents).toEqual([]);
    });

    it('PRHIST-02: an unreadable source leaves the history answering (200) with incidents_reason naming the failure, never a 500', async () => {
      await loom.gateway.runtime.storage.command(`DROP TABLE ${hdb()}.outages`);
      const path = await ok('history.path', { path: 'src/connection.ts' });
      expect(path.changes).toHaveLength(5);
      expect(path.incidents_reason).toMatch(/incidents were not read: could not read the tracker source at embedded/);
      const bisect = await ok('history.bisect', { description: 'connections exhausted under load, the pool runs dry', good: fixture.commits.initial, bad: fixture.commits.cFile });
      expect(bisect.incidents_reason).toMatch(/could not read the tracker source/);
      // The same question as above, without the incidents: the rename is no longer first (what moved it up was INC-10).
      expect(bisect.candidates[0].sha).not.toBe(fixture.commits.rename);
      expect(bisect.candidates.every((c: { reasons: string[] }) => !c.reasons.some((r) => r.startsWith('incident')))).toBe(true);
    });
  });

  describe('PR refs that name their repository (PRHIST-02)', () => {
    // Two repositories of one namespace with the same history, so the same PR numbers: `app`
    // (synced from GitHub as acme/app) and `demo` (no GitHub source). PR #3 is the rename in both.
    let fixture: GitFixture;
    const rns = uniqueNamespace();
    const rdb = () => `${db}_repos`;
    const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: rns, ...body });
    /** The incidents (id:role) a repository's history and review brief attach to PR #3 (the rename). */
    const onPr3 = async (repository: string): Promise<{ path: string[]; brief: string[] }> => {
      const path = await ok('history.path', { repository, path: 'src/connection.ts' });
      expect(path.incidents_reason).toBeNull();
      const rename = path.changes.find((c: { sha: string }) => c.sha === fixture.commits.rename);
      const brief = await ok('history.review_brief', { repository, pr_number: 3 });
      const ids = (links: Link[]) => links.map((i) => `${i.id}:${i.role}`);
      return { path: ids(rename.incidents), brief: ids(brief.incidents) };
    };

    beforeAll(async () => {
      fixture = writeGitFixture();
      await ok('code.add', { path: fixture.path, name: 'app', wait: true });
      await ok('code.add', { path: fixture.path, name: 'demo', wait: true });
      const synced = await ok('code.github_sync', { repository: 'app', github: 'acme/app', wait: true });
      expect(synced.source).toMatchObject({ github: 'acme/app', state: 'ready' });
      await createTrackerTables(loom.gateway.runtime.storage, rdb());
    });
    afterAll(async () => {
      await loom.gateway.runtime.storage.command(`DROP DATABASE IF EXISTS ${rdb()}`).catch(() => undefined);
    });

    const outage = (ref: string, remedy: string): OutageRow => ({ ref, headline: `Outage ${ref}`, sev: 'SEV2', state: 'resolved', began: `2026-01-01 00:00:${ref.slice(-2)}`, ended: null, postmortem: '', culprit_prs: [], culprit_shas: '', remedy_prs: remedy, remedy_shas: [] });

    it('PRHIST-02: a PR ref that names a repository (owner/repo#N, a pull request URL, a Loom name#N) matches only that repository\'s PR; a bare #N matches it in every repository', async () => {
      await createOutagesTable(loom.gateway.runtime.storage, rdb(), [
        outage('INC-20', 'acme/app#3'),
        outage('INC-21', 'https://github.com/ACME/App/pull/3'),
        outage('INC-22', 'demo#3'),
        outage('INC-23', '#3'),
        outage('INC-24', 'acme/other#3, https://github.com/acme/demo/pull/3'),
      ]);
      await ok('tracker.source_register', trackerRegistrationWithIncidents(rdb()));
      // The list keeps each ref's repository as the incident wrote it; `prs` keeps the numbers.
      const listed = (await ok('tracker.incidents', {})).incidents as Incident[];
      expect(Object.fromEntries(listed.map((i) => [i.id, i.fixed_by.pr_refs]))).toEqual({
        'INC-20': [{ repository: 'acme/app', number: 3 }],
        'INC-21': [{ repository: 'ACME/App', number: 3 }],
        'INC-22': [{ repository: 'demo', number: 3 }],
        'INC-23': [{ repository: null, number: 3 }],
        'INC-24': [{ repository: 'acme/other', number: 3 }, { repository: 'acme/demo', number: 3 }],
      });
      expect(listed.every((i) => i.fixed_by.prs.length === 1 && i.fixed_by.prs[0] === 3)).toBe(true);
      // tracker.incidents' pr filter is the number, in any repository; with `repository`, a ref naming that one (in any case) or none.
      expect((await ok('tracker.incidents', { pr: 3 })).incidents).toHaveLength(5);
      const ids = async (body: Record<string, unknown>) => ((await ok('tracker.incidents', body)).incidents as Incident[]).map((i) => i.id).sort();
      expect(await ids({ pr: 3, repository: 'acme/app' })).toEqual(['INC-20', 'INC-21', 'INC-23']);
      expect(await ids({ pr: 3, repository: 'demo' })).toEqual(['INC-22', 'INC-23']);
      expect(await ids({ pr: 4, repository: 'acme/app' })).toEqual([]);
      const refused = await loom.admin.call('tracker.incidents', { namespace: rns, repository: 'acme/app#3' });
      expect([refused.status, refused.body.error.fields]).toEqual([400, [{ field: 'repository', message: 'repository must be a repository name (app) or owner/name (acme/app)' }]]);

      // app: its GitHub owner/repo (in any case); demo: its Loom name (acme/demo is no GitHub source of it). Both: the bare number.
      expect(await onPr3('app')).toEqual({ path: ['INC-20:fixed', 'INC-21:fixed', 'INC-23:fixed'], brief: ['INC-20:fixed', 'INC-21:fixed', 'INC-23:fixed'] });
      expect(await onPr3('demo')).toEqual({ path: ['INC-22:fixed', 'INC-23:fixed'], brief: ['INC-22:fixed', 'INC-23:fixed'] });
    });

    it('PRHIST-02: with a `repo` column mapped, a row\'s bare PR numbers are that repository\'s (a ref naming its own repository keeps it); bisect says which repository\'s PR an incident named, and that a bare number names it everywhere', async () => {
      const storage = loom.gateway.runtime.storage;
      await storage.command(`DROP TABLE IF EXISTS ${rdb()}.service_incidents`);
      await storage.command(`CREATE TABLE ${rdb()}.service_incidents (id String, title String, opened DateTime('UTC'), cause String, service Nullable(String), tags Array(String)) ENGINE = MergeTree ORDER BY opened`);
      await storage.client.insert({
        table: `${rdb()}.service_incidents`,
        format: 'JSONEachRow',
        values: [
          { id: 'INC-30', title: 'Connection pool exhausted on app', opened: '2026-01-01 00:00:30', cause: '#3', service: 'https://github.com/acme/app.git', tags: [] },
          { id: 'INC-31', title: 'Connection pool exhausted on demo', opened: '2026-01-01 00:00:31', cause: '3', service: 'demo', tags: [] },
          { id: 'INC-32', title: 'Connection pool exhausted somewhere', opened: '2026-01-01 00:00:32', cause: '3', service: null, tags: [] },
          { id: 'INC-33', title: 'Connection pool exhausted, filed under demo', opened: '2026-01-01 00:00:33', cause: 'acme/app#3', service: 'demo', tags: [] },
        ],
      });
      const body = trackerRegistration(rdb()) as { connection: object; mapping: Record<string, unknown> };
      const incidents = { table: 'service_incidents', id: 'id', title: 'title', started_at: 'opened', caused_by_pr: 'cause', repo: 'service' };
      // Checked at registration like the other columns: missing, or not text, it is named.
      for (const [repo, message] of [['no_such_column', /no column "no_such_column"/], ['tags', /Array\(String\).*repo needs a String column of one value/]] as const) {
        const refused = await loom.admin.call('tracker.source_register', { namespace: rns, ...body, mapping: { ...body.mapping, incidents: { ...incidents, repo } } });
        expect([refused.status, refused.body.error.fields]).toEqual([400, [{ field: 'mapping.incidents.repo', message: expect.stringMatching(message) }]]);
      }
      const registered = await ok('tracker.source_register', { ...body, mapping: { ...body.mapping, incidents } });
      expect(registered.source.mapping.incidents.repo).toBe('service');

      const listed = (await ok('tracker.incidents', {})).incidents as Incident[];
      expect(Object.fromEntries(listed.map((i) => [i.id, i.caused_by.pr_refs]))).toEqual({
        'INC-30': [{ repository: 'acme/app', number: 3 }],
        'INC-31': [{ repository: 'demo', number: 3 }],
        'INC-32': [{ repository: null, number: 3 }],
        'INC-33': [{ repository: 'acme/app', number: 3 }],
      });
      // The row's repo column, as the team wrote it less a URL's scheme, host and .git; null when the cell is empty.
      expect(Object.fromEntries(listed.map((i) => [i.id, i.repository]))).toEqual({ 'INC-30': 'acme/app', 'INC-31': 'demo', 'INC-32': null, 'INC-33': 'demo' });
      const ids = async (repository: string) => ((await ok('tracker.incidents', { repository })).incidents as Incident[]).map((i) => i.id);
      // Of a repository: its repo column or a PR ref names it, or it names none (INC-32). Newest start first.
      expect(await ids('acme/app')).toEqual(['INC-33', 'INC-32', 'INC-30']);
      expect(await ids('DEMO')).toEqual(['INC-33', 'INC-32', 'INC-31']);
      expect(await ids('acme/third')).toEqual(['INC-32']);
      expect(await onPr3('app')).toEqual({ path: ['INC-30:caused', 'INC-32:caused', 'INC-33:caused'], brief: ['INC-30:caused', 'INC-32:caused', 'INC-33:caused'] });
      expect(await onPr3('demo')).toEqual({ path: ['INC-31:caused', 'INC-32:caused'], brief: ['INC-31:caused', 'INC-32:caused'] });

      const question = { description: 'connections exhausted under load, the pool runs dry', good: fixture.commits.initial, bad: fixture.commits.cFile };
      const reasonsOf = async (repository: string) => {
        const bisect = await ok('history.bisect', { repository, ...question });
        expect(bisect.candidates[0].sha).toBe(fixture.commits.rename);
        return bisect.candidates[0].reasons.filter((r: string) => r.startsWith('incident')).map((r: string) => r.replace(/ \(".*?"\)|; it mentions .*$/g, ''));
      };
      expect(await reasonsOf('app')).toEqual([
        'incident INC-30 names PR acme/app#3 as its cause',
        'incident INC-32 names PR #3 (by number alone, which names #3 in every repository of the namespace) as its cause',
        'incident INC-33 names PR acme/app#3 as its cause',
      ]);
      expect(await reasonsOf('demo')).toEqual([
        'incident INC-31 names PR demo#3 as its cause',
        'incident INC-32 names PR #3 (by number alone, which names #3 in every repository of the namespace) as its cause',
      ]);
    });

    it('PRHIST-02, PRHIST-03: an incident that started soon after a commit landed is bisect evidence only in the repositories it is of (its repo column or PR refs), or in every one when it names none', async () => {
      const storage = loom.gateway.runtime.storage;
      await storage.command(`DROP TABLE IF EXISTS ${rdb()}.service_incidents`);
      await storage.command(`CREATE TABLE ${rdb()}.service_incidents (id String, title String, opened DateTime('UTC'), cause String, service Nullable(String)) ENGINE = MergeTree ORDER BY opened`);
      // An hour after the fixture's commits (they land a minute apart from 1,700,000,060 s).
      const opened = new Date((1_700_000_000 + 3_600) * 1000).toISOString().slice(0, 19).replace('T', ' ');
      await storage.client.insert({
        table: `${rdb()}.service_incidents`,
        format: 'JSONEachRow',
        values: [
          { id: 'INC-40', title: 'Latency spike on demo', opened, cause: '', service: 'demo' },
          { id: 'INC-41', title: 'Latency spike somewhere', opened, cause: '', service: null },
          { id: 'INC-42', title: 'Latency spike, fixed in app', opened, cause: 'acme/app#99', service: null },
        ],
      });
      const body = trackerRegistration(rdb()) as { connection: object; mapping: Record<string, unknown> };
      const incidents = { table: 'service_incidents', id: 'id', title: 'title', started_at: 'opened', caused_by_pr: 'cause', repo: 'service' };
      await ok('tracker.source_register', { ...body, mapping: { ...body.mapping, incidents } });
      const startedAfter = async (repository: string) => {
        const bisect = await ok('history.bisect', { repository, description: 'requests got slow', good: fixture.commits.initial, bad: fixture.commits.cFile });
        const reasons = (bisect.candidates as { reasons: string[] }[]).flatMap((c) => c.reasons).filter((r) => / started .* after it landed/.test(r));
        return [...new Set(reasons.map((r) => r.split(' ')[1]))].sort();
      };
      expect(await startedAfter('app')).toEqual(['INC-41', 'INC-42']);
      expect(await startedAfter('demo')).toEqual(['INC-40', 'INC-41']);
    });
  });
});
