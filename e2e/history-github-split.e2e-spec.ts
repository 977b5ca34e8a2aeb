import { createClient, type ClickHouseClient } from '@clickhouse/client';
import {
  githubDataFor,
  githubIssue,
  githubPull,
  githubReview,
  githubReviewComment,
  LoomApi,
  startFakeGithub,
  startSplitTopology,
  uniqueNamespace,
  writeGitFixture,
  type FakeGithub,
  type FakeGithubData,
  type GitFixture,
  type SplitTopology,
} from '../libs/testing/src';

jest.setTimeout(600_000);

/** Items per page the fake answers: small, so the sync takes many pages and a kill lands between them. */
const PAGE = 5;
const TABLES = ['code_pull_requests', 'code_review_comments', 'code_issues'] as const;

/** The fixture's own PRs, and 100 more pull requests (every other one merged, with two reviews), 60 review comments and 60 issues. */
function largeData(fixture: GitFixture): FakeGithubData {
  const data = githubDataFor(fixture);
  for (let n = 100; n < 200; n++) {
    const merged = n % 2 === 0;
    data.pulls.push(githubPull(n, { title: `Change ${n}: tune the ${n % 7 === 0 ? 'parser' : 'client'}`, body: `Part ${n} of the tuning.`, merged: merged ? '2023-11-15T10:00:00Z' : null, updated: 100 + n }));
    if (merged) data.reviews[n] = [githubReview(10_000 + 2 * n, { pr: n, author: 'grace', state: 'CHANGES_REQUESTED', body: `Please test ${n}.`, submitted: 90 + n }), githubReview(10_001 + 2 * n, { pr: n, author: 'grace', state: 'APPROVED', body: 'Thanks.', submitted: 95 + n })];
  }
  for (let c = 0; c < 60; c++) data.comments.push(githubReviewComment(20_000 + c, { pr: 100 + 2 * c, author: 'lin', body: `Comment ${c} on this line.`, path: 'src/client.ts', line: c % 3 === 0 ? null : 3, originalLine: 3, updated: 150 + c }));
  for (let i = 0; i < 60; i++) data.issues.push(githubIssue(300 + i, { title: `Issue ${i}: the client stalls`, state: i % 2 ? 'closed' : 'open', updated: 120 + i }));
  return data;
}

/**
 * The GitHub source in the split topology (gateway processes on NATS, the sync's lease in NATS
 * KV, a ClickHouse server), against the loopback GitHub allowed through LOOM_GITHUB_API_URLS:
 * a sync through the API, and a gateway SIGKILLed mid-sync whose sync is then rerun.
 */
describe('GitHub source in the split topology (PRHIST-02) [issue 13: split topology, github source]', () => {
  let topology: SplitTopology;
  let github: FakeGithub;
  let fixture: GitFixture;
  let ch: ClickHouseClient;
  const clean = uniqueNamespace();
  const crashed = uniqueNamespace();

  beforeAll(async () => {
    fixture = writeGitFixture();
    github = await startFakeGithub({ data: largeData(fixture), pageSize: PAGE });
    topology = await startSplitTopology({ embedders: 0, gateways: 2, env: { LOOM_CODE_INGEST_ENABLED: 'true', LOOM_GITHUB_API_URLS: github.baseUrl } });
    ch = createClient({ url: topology.clickhouseUrl });
  });
  afterAll(async () => {
    await ch?.close();
    await topology?.close();
    await github?.close();
  });
  const [a, b] = [() => new LoomApi(topology.urls[0]!, topology.admin.token), () => new LoomApi(topology.urls[1]!, topology.admin.token)];
  const select = async <T>(query: string, params: Record<string, unknown> = {}): Promise<T[]> => (await ch.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>();
  /** A table's rows of a namespace: folded count, a checksum of their content, and the rows as stored (before folding). */
  const table = async (name: string, namespace: string) => {
    const columns = (await select<{ name: string }>(`SELECT name FROM system.columns WHERE database = {db:String} AND table = {t:String} AND name != 'namespace' ORDER BY position`, { db: topology.database, t: name })).map((c) => c.name);
    const [folded] = await select<{ n: string; sum: string }>(`SELECT count() AS n, toString(sum(cityHash64(${columns.join(', ')}))) AS sum FROM ${topology.database}.${name} FINAL WHERE namespace = {ns:String}`, { ns: namespace });
    const [stored] = await select<{ n: string }>(`SELECT count() AS n FROM ${topology.database}.${name} WHERE namespace = {ns:String}`, { ns: namespace });
    return { rows: Number(folded!.n), sum: folded!.sum, stored: Number(stored!.n) };
  };
  const sync = (api: LoomApi, namespace: string, extra: Record<string, unknown> = {}) => api.call('code.github_sync', { namespace, repository: 'demo', github: 'acme/demo', api_url: github.baseUrl, ...extra });

  it('PRHIST-02 (split): code.github_sync through one gateway pages through the loopback GitHub; the other answers with the PR titles and lists the source ready', async () => {
    await a().ok('code.add', { namespace: clean, path: fixture.path, name: 'demo', wait: true });
    const done = await sync(b(), clean, { wait: true });
    expect(done.status).toBe(200);
    expect(done.body.source).toMatchObject({ state: 'ready', reason: null, resume: null, token: 'none', pull_requests: 108, issues: 65 });
    const listed = (await a().ok('code.list', { namespace: clean })).repositories[0];
    expect(listed.github).toMatchObject({ state: 'ready', api_url: github.baseUrl, pull_requests: 108, review_comments: done.body.source.review_comments });
    const path = await a().ok('history.path', { namespace: clean, repository: 'demo', path: 'src/connection.ts' });
    expect(path.changes.map((c: { pr_title: string | null }) => c.pr_title)).toEqual(['Add a ping health check', 'Rename client to connection', 'Fix query timeout', 'Add close to Client', null]);
    // Another api_url is refused by every replica, before any request.
    const before = github.requests.length;
    const refused = await sync(a(), clean, { api_url: 'http://169.254.169.254/latest' });
    expect([refused.status, refused.body.error.fields]).toEqual([400, [{ field: 'api_url', message: 'not an allowed GitHub API: an operator adds it to LOOM_GITHUB_API_URLS' }]]);
    expect(github.requests.length).toBe(before);
  });

  it('PRHIST-02 (split) [issue 13: resumable after a crash, stale ingesting] SIGKILL of the syncing gateway mid-sync: nothing half-written is visible, code.list says interrupted with the command once its lease lapses, and a rerun finishes with the same rows as a clean sync, none doubled', async () => {
    await a().ok('code.add', { namespace: crashed, path: fixture.path, name: 'demo', wait: true });
    const doomed = await topology.startGateway();
    github.slow(150);
    const started = await sync(doomed.admin, crashed);
    expect([started.status, started.body.source.state]).toEqual([200, 'syncing']);
    // A few pages of pull requests in, then the kill.
    for (const deadline = Date.now() + 300_000; (await table('code_pull_requests', crashed)).rows < 3 * PAGE && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
    await doomed.process.stop('SIGKILL');
    github.slow(0);

    // What the kill left: the source says syncing, the pull requests are whole pages, and every
    // merged one stored has all its reviews (reviews are written before their pull request).
    const [left] = await select<{ state: string; pulls_since: string }>(`SELECT state, pulls_since FROM ${topology.database}.code_github_sources FINAL WHERE namespace = {ns:String}`, { ns: crashed });
    expect(left).toEqual({ state: 'syncing', pulls_since: '' });
    const pulls = await table('code_pull_requests', crashed);
    expect(pulls.rows).toBeGreaterThanOrEqual(3 * PAGE);
    expect(pulls.rows).toBeLessThan(108);
    expect(pulls.rows % PAGE).toBe(0);
    const orphans = await select<{ number: number }>(
      `SELECT number FROM ${topology.database}.code_pull_requests FINAL WHERE namespace = {ns:String} AND state = 'merged' AND number >= 100
       AND number NOT IN (SELECT pr_number FROM ${topology.database}.code_review_comments FINAL WHERE namespace = {ns:String} AND kind = 'review' GROUP BY pr_number HAVING count() = 2)`,
      { ns: crashed },
    );
    expect(orphans).toEqual([]);

    // Once the dead gateway's lease lapses (the NATS KV TTL, 30 s), the other gateways say so.
    let source = (await a().ok('code.list', { namespace: crashed })).repositories[0].github;
    for (const deadline = Date.now() + 90_000; source.state === 'syncing' && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 500));
      source = (await b().ok('code.list', { namespace: crashed })).repositories[0].github;
    }
    expect(source).toMatchObject({ state: 'interrupted', resume: `loom code github demo acme/demo --github-api ${github.baseUrl}`, resume_at: null });
    expect(source.reason).toContain(source.resume);

    // The rerun: it finishes, and the tables hold exactly what a clean sync holds.
    const rerun = await sync(a(), crashed, { wait: true });
    expect(rerun.body.source).toMatchObject({ state: 'ready', pull_requests: 108, issues: 65, resume: null });
    for (const name of TABLES) {
      const after = await table(name, crashed);
      const reference = await table(name, clean);
      expect({ name, rows: after.rows, sum: after.sum }).toEqual({ name, rows: reference.rows, sum: reference.sum });
    }
    // Rows read twice (the pages before the kill) fold away: the stored surplus is at most what the kill cut short.
    expect((await table('code_pull_requests', crashed)).stored - (await table('code_pull_requests', clean)).stored).toBeLessThanOrEqual(pulls.rows + PAGE);
  });
});
