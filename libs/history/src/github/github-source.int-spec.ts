import { execFile } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Writable } from 'node:stream';
import { createLogger } from '@loom/platform';
import {
  FIXTURE_SECRET,
  githubDataFor,
  githubIssue,
  githubReviewComment,
  startFakeGithub,
  startOpenAiCompatibleServer,
  startTestLoom,
  uniqueNamespace,
  writeGitFixture,
  type FakeGithub,
  type GitFixture,
  type OpenAiCompatibleServer,
  type TestLoom,
} from '../../../testing/src';
import { buildBrief } from '../insights/review-brief';

const REQUEST_TOKEN = 'ghp_' + 'requestTokenAbcdefghijklmnopqrstuvwx01';
const CONFIG_TOKEN = 'ghp_' + 'configTokenAbcdefghijklmnopqrstuvwxy02';
const TOKENS = [REQUEST_TOKEN, CONFIG_TOKEN];
const CLI = resolve(__dirname, '..', '..', '..', '..', 'dist', 'apps', 'cli', 'src', 'main.js');
const run = promisify(execFile);

/** Free loopback ports, found by listening on port 0 and closing again. */
async function freePorts(count: number): Promise<number[]> {
  const found = new Set<number>();
  while (found.size < count) {
    found.add(
      await new Promise<number>((resolve) => {
        const s = createServer();
        s.listen(0, '127.0.0.1', () => {
          const p = (s.address() as { port: number }).port;
          s.close(() => resolve(p));
        });
      }),
    );
  }
  return [...found];
}

interface SourceView {
  state: string;
  reason: string | null;
  resume_at: string | null;
  token: string;
  pull_requests: number;
  review_comments: number;
  issues: number;
}

describe('Code history: the GitHub source (PRHIST-02) [issue 13: github source]', () => {
  let loom: TestLoom;
  let llm: OpenAiCompatibleServer;
  let fixture: GitFixture;
  let configGithub: FakeGithub;
  const logLines: string[] = [];
  const logs = () => logLines.join('');

  /** Loopback ports the tests' fake GitHubs listen on, allowed ahead in LOOM_GITHUB_API_URLS (the deployment's own is LOOM_GITHUB_API_URL). */
  let ports: number[] = [];
  const port = (): number => {
    const next = ports.shift();
    if (next === undefined) throw new Error('no port left: reserve more in beforeAll');
    return next;
  };

  beforeAll(async () => {
    fixture = writeGitFixture();
    ports = await freePorts(12);
    configGithub = await startFakeGithub({ data: githubDataFor(fixture), pageSize: 2, tokens: TOKENS });
    llm = await startOpenAiCompatibleServer({ chat: () => '{"what_changed": "Queries stop after 30 seconds.", "why": "They hung on a slow server; a reviewer asked for a configurable limit."}' });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    loom = await startTestLoom({
      withEmbedder: false,
      env: {
        LOOM_CODE_INGEST_ENABLED: 'true',
        LOOM_GITHUB_API_URL: configGithub.baseUrl,
        LOOM_GITHUB_API_URLS: ports.map((p) => `http://127.0.0.1:${p}`).join(','),
        LOOM_GITHUB_TOKEN: CONFIG_TOKEN,
        LOOM_GITHUB_MAX_WAIT_SECONDS: '5',
        LOOM_LLM_BASE_URL: llm.baseUrl,
        LOOM_LLM_MODEL: 'review-model',
        LOOM_LOG_LEVEL: 'debug',
      },
      logger: createLogger('gateway', 'debug', sink),
    });
  });
  afterAll(async () => {
    await loom.close();
    await llm.close();
    await configGithub.close();
  });

  /** A namespace with the fixture added as `demo`. */
  async function added(): Promise<string> {
    const ns = uniqueNamespace();
    await loom.admin.ok('code.add', { namespace: ns, path: fixture.path, name: 'demo', wait: true });
    return ns;
  }
  const sync = (ns: string, gh: FakeGithub, extra: Record<string, unknown> = {}) =>
    loom.admin.call<{ source: SourceView } & { error: { message: string; fields: { field: string; message: string }[] } }>('code.github_sync', { namespace: ns, repository: 'demo', github: 'acme/demo', api_url: gh.baseUrl, token: REQUEST_TOKEN, wait: true, ...extra });
  const listed = async (ns: string): Promise<SourceView> => (await loom.admin.ok('code.list', { namespace: ns })).repositories[0].github;
  const pagesOf = (gh: FakeGithub, suffix: string) => gh.requests.filter((r) => r.path.endsWith(suffix)).map((r) => r.query['page'] ?? '1');

  describe('one synced repository', () => {
    let gh: FakeGithub;
    let ns: string;
    beforeAll(async () => {
      gh = await startFakeGithub({ data: githubDataFor(fixture), pageSize: 2, tokens: TOKENS, port: port() });
      ns = await added();
      const synced = await sync(ns, gh);
      expect(synced.status).toBe(200);
      expect(synced.body.source).toMatchObject({ state: 'ready', reason: null, resume_at: null, token: 'request' });
    });
    afterAll(async () => gh.close());
    const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: ns, repository: 'demo', ...body });

    it('PRHIST-02: merged and open PRs, the merged ones\' reviews, the review comments and the issues (PRs left out) come in through every Link page, with the token in the Authorization header only', async () => {
      // 8 PRs; reviews of the merged ones (3 on #2, 1 on #4) and 5 line comments; 5 issues (the list's 8 PRs left out).
      expect(await listed(ns)).toMatchObject({ github: 'acme/demo', api_url: gh.baseUrl, state: 'ready', token: 'request', pull_requests: 8, review_comments: 9, issues: 5 });
      // Two items a page: every page followed by its Link header, and no page past the last.
      expect(pagesOf(gh, '/pulls')).toEqual(['1', '2', '3', '4']);
      expect(pagesOf(gh, '/issues')).toEqual(['1', '2', '3', '4', '5', '6', '7']);
      expect(pagesOf(gh, '/pulls/comments')).toEqual(['1', '2', '3']);
      // Reviews asked for the merged PRs only (not the open #8 nor the closed #9); #2's three take two pages.
      expect(gh.requests.filter((r) => r.path.endsWith('/reviews')).map((r) => `${/pulls\/(\d+)/.exec(r.path)?.[1]}:${r.query['page'] ?? '1'}`).sort()).toEqual(['1:1', '2:1', '2:2', '3:1', '4:1', '5:1', '6:1']);
      expect(new Set(gh.requests.map((r) => r.authorization))).toEqual(new Set([`Bearer ${REQUEST_TOKEN}`]));
      expect(gh.requests.find((r) => r.path.endsWith('/pulls'))?.query).toMatchObject({ state: 'all', sort: 'updated', direction: 'desc', per_page: '100' });
    });

    it('PRHIST-02: the token is held nowhere a reader can see: not in any answer, any stored row, nor any log line', async () => {
      const storage = loom.gateway.runtime.storage;
      const t = storage.tables;
      for (const table of [t.codeGithubSources, t.codePullRequests, t.codeReviewComments, t.codeIssues, t.codeRepositories]) {
        const rows = await storage.query<Record<string, unknown>>(`SELECT * FROM ${table}`, {});
        expect(JSON.stringify(rows)).not.toContain(REQUEST_TOKEN);
      }
      expect(JSON.stringify(await loom.admin.ok('code.list', { namespace: ns }))).not.toContain(REQUEST_TOKEN);
      expect(logs()).toContain('github sync demo: done');
      expect(logs()).not.toContain(REQUEST_TOKEN);
      expect(logs()).not.toContain(CONFIG_TOKEN);
    });

    it('PRHIST-02 / PRHIST-03: path and symbol history carry each PR\'s title, the merge commit included', async () => {
      const path = await ok('history.path', { path: 'src/connection.ts' });
      expect(path.changes.map((c: { pr_number: number | null; pr_title: string | null }) => [c.pr_number, c.pr_title])).toEqual([
        [4, 'Add a ping health check'],
        [3, 'Rename client to connection'],
        [2, 'Fix query timeout'],
        [1, 'Add close to Client'],
        [null, null],
      ]);
      const symbol = await ok('history.symbol', { symbol: 'query' });
      expect(symbol.changes[0]).toMatchObject({ pr_number: 2, pr_title: 'Fix query timeout' });
    });

    it('PRHIST-02 / PRHIST-03: a review brief holds the reviews and line comments with how each ended, and the linked issue as GitHub knows it; high text reaches neither the model nor the answer', async () => {
      const brief = await ok('history.review_brief', { pr_number: 2 });
      expect(brief).toMatchObject({ title: 'Fix query timeout', sha: fixture.commits.fixQuery, written_by: 'model', linked_issues: [12], withheld: 2 });
      expect(brief.issues).toEqual([{ number: 12, title: 'Queries hang forever on a slow server', state: 'closed', state_reason: 'completed', closed_at: '2023-11-14T22:04:00.000Z' }]);
      const byId = new Map<number, Record<string, unknown>>(brief.review_comments.map((c: { id: number }) => [c.id, c]));
      // The empty COMMENTED review (302) only wraps line comments; 204 holds a secret: withheld.
      expect([...byId.keys()].sort((a, b) => a - b)).toEqual([201, 202, 203, 301, 303]);
      expect(byId.get(201)).toMatchObject({ kind: 'comment', author: 'grace', path: 'src/client.ts', line: null, in_reply_to: null, resolved: true, resolution: 'a later commit of the pull request changed the commented lines' });
      expect(byId.get(202)).toMatchObject({ in_reply_to: 201, resolved: true });
      expect(String(byId.get(202)?.['resolution'])).toMatch(/^a reply in the thread of comment 201/);
      expect(byId.get(203)).toMatchObject({ line: 3, resolved: false, resolution: 'the commented lines were merged unchanged' });
      expect(byId.get(301)).toMatchObject({ kind: 'review', state: 'CHANGES_REQUESTED', resolved: true, resolution: 'changes requested, then approved by grace' });
      expect(byId.get(303)).toMatchObject({ kind: 'review', state: 'APPROVED' });
      const sent = JSON.stringify(llm.requests);
      expect(sent).toContain('This blocks the event loop when the server stalls.');
      expect(sent).toContain('Queries hang forever on a slow server');
      expect(sent).not.toContain(FIXTURE_SECRET);
      expect(JSON.stringify(brief)).not.toContain(FIXTURE_SECRET);
    });

    it('PRHIST-02: without a model the builder sums the reviews up', () => {
      const built = buildBrief('Fix query timeout', ['Queries hung.'], [{ path: 'src/client.ts', change: 'modified', additions: 1, deletions: 1 }], [], [
        { kind: 'review', id: 1, author: 'g', path: null, line: null, body: 'x', state: 'CHANGES_REQUESTED', in_reply_to: null, created_at: '', resolved: true, resolution: '' },
        { kind: 'review', id: 2, author: 'g', path: null, line: null, body: 'y', state: 'APPROVED', in_reply_to: null, created_at: '', resolved: null, resolution: '' },
        { kind: 'comment', id: 3, author: 'g', path: 'a', line: null, body: 'z', state: null, in_reply_to: null, created_at: '', resolved: true, resolution: '' },
        { kind: 'comment', id: 4, author: 'g', path: 'a', line: 2, body: 'w', state: null, in_reply_to: null, created_at: '', resolved: false, resolution: '' },
      ]);
      expect(built.what_changed).toBe('Fix query timeout. It changed 1 file (+1 -1), mostly src/client.ts. Review: 1 approval; 1 request for changes; 2 line comments, 1 addressed by a later commit.');
    });

    it('PRHIST-02 / PRHIST-03: the duplicate check ranks open PRs and merged PRs by their title and description; closed unmerged PRs are not candidates', async () => {
      const open = await ok('history.duplicate_check', { title: 'Configurable query timeout per call', description: 'analytics queries need longer than 30 seconds' });
      expect(open.candidates[0]).toMatchObject({ pr_number: 8, state: 'open', pr_title: 'Make the query timeout configurable per call', author: 'grace' });
      expect(open.candidates[0].reasons.join(' ')).toContain('"configur');
      // The merge commit of #4 says only "Merge pull request #4 from acme/ping"; its PR says what it did.
      const merged = await ok('history.duplicate_check', { title: 'A liveness probe for load balancers' });
      expect(merged.candidates[0]).toMatchObject({ sha: fixture.commits.mergePing, pr_number: 4, state: 'merged', pr_title: 'Add a ping health check' });
      const rust = await ok('history.duplicate_check', { title: 'Rewrite the client in Rust' });
      expect(rust.candidates.map((c: { pr_number: number | null }) => c.pr_number)).not.toContain(9);
      // "Was it done before then?": open PRs are not older than any commit.
      const before = await ok('history.duplicate_check', { title: 'Configurable query timeout per call', before: fixture.commits.cFile });
      expect(before.candidates.map((c: { state: string }) => c.state)).not.toContain('open');
    });

    it('PRHIST-02 [issue 13: resumable] a rerun asks GitHub only for what changed since each checkpoint, takes the changes and doubles nothing', async () => {
      const pr8 = gh.data.pulls.find((p) => p['number'] === 8) as Record<string, unknown>;
      Object.assign(pr8, { title: 'Let every query take its own timeout', updated_at: '2023-11-14T22:20:00Z' });
      gh.data.issues.push(githubIssue(16, { title: 'Timeout option is ignored by ping', updated: 21 }));
      gh.data.comments.push(githubReviewComment(206, { pr: 8, author: 'ada', body: 'Could the default stay 30 s?', path: 'src/connection.ts', line: 4, originalLine: 4, updated: 22 }));
      gh.requests.length = 0;
      const again = await sync(ns, gh);
      expect(again.body.source).toMatchObject({ state: 'ready', pull_requests: 8, review_comments: 10, issues: 6 });
      // Pulls (no `since` in GitHub's list): newest updated first, stopped at the checkpoint (page 2 holds older ones).
      expect(pagesOf(gh, '/pulls')).toEqual(['1', '2']);
      // The issues list also holds PRs (left out, but they move its checkpoint: #9 at 22:10).
      expect(gh.requests.find((r) => r.path.endsWith('/issues'))?.query['since']).toBe('2023-11-14T22:10:00Z');
      expect(gh.requests.find((r) => r.path.endsWith('/pulls/comments'))?.query['since']).toBe('2023-11-14T22:05:00Z');
      expect(gh.requests.filter((r) => r.path.endsWith('/reviews'))).toEqual([]);
      const dup = await ok('history.duplicate_check', { title: 'Let every query take its own timeout' });
      expect(dup.candidates[0]).toMatchObject({ pr_number: 8, pr_title: 'Let every query take its own timeout' });
      const prs = dup.candidates.map((c: { pr_number: number | null }) => c.pr_number).filter((n: number | null) => n !== null);
      expect(new Set(prs).size).toBe(prs.length);
      const brief = await ok('history.review_brief', { pr_number: 2 });
      expect(brief.review_comments.map((c: { id: number }) => c.id).sort()).toEqual([201, 202, 203, 301, 303]);
      // Same data again: nothing new is asked past the checkpoints, nothing changes.
      gh.requests.length = 0;
      expect((await sync(ns, gh)).body.source).toMatchObject({ state: 'ready', pull_requests: 8, review_comments: 10, issues: 6 });
      expect(pagesOf(gh, '/pulls')).toEqual(['1']);
    });
  });

  it('PRHIST-02 [issue 13: rate limits] a 403 secondary limit with retry-after pauses the sync; code.list and the log say so and when it resumes; then it finishes by itself', async () => {
    const gh = await startFakeGithub({ data: githubDataFor(fixture), tokens: TOKENS, port: port() });
    try {
      const ns = await added();
      gh.inject({ kind: 'secondary', match: /\/issues$/, retryAfterSeconds: 2 });
      const started = await sync(ns, gh, { wait: false });
      expect(started.status).toBe(200);
      let paused: SourceView | undefined;
      for (let i = 0; i < 100 && !paused; i++) {
        const now = await listed(ns);
        if (now.state === 'paused') paused = now;
        else await new Promise((r) => setTimeout(r, 50));
      }
      expect(paused?.reason).toMatch(/secondary rate limit \(403, retry-after: 2 s\); it resumes by itself at /);
      const resumeIn = Date.parse(paused?.resume_at ?? '') - Date.now();
      expect(resumeIn).toBeGreaterThan(0);
      expect(resumeIn).toBeLessThanOrEqual(2_100);
      expect(logs()).toContain(`github sync demo: paused, GitHub's secondary rate limit (403, retry-after: 2 s); resumes at ${paused?.resume_at}`);
      let done: SourceView | undefined;
      for (let i = 0; i < 100 && done?.state !== 'ready'; i++) {
        done = await listed(ns);
        if (done.state !== 'ready') await new Promise((r) => setTimeout(r, 100));
      }
      expect(done).toMatchObject({ state: 'ready', reason: null, resume_at: null, pull_requests: 8, review_comments: 9, issues: 5 });
      // The refused request was sent again after the wait, not skipped.
      expect(gh.requests.filter((r) => r.path.endsWith('/issues'))).toHaveLength(2);
    } finally {
      await gh.close();
    }
  });

  it('PRHIST-02 [issue 13: rate limits] a spent primary limit (429, x-ratelimit-remaining 0) waits until x-ratelimit-reset; one beyond LOOM_GITHUB_MAX_WAIT_SECONDS stops paused with when to rerun, and the rerun finishes with nothing doubled', async () => {
    const gh = await startFakeGithub({ data: githubDataFor(fixture), tokens: TOKENS, port: port() });
    try {
      const ns = await added();
      gh.inject({ kind: 'primary', match: /\/pulls\/comments$/, resetInSeconds: 1, status: 429 });
      expect((await sync(ns, gh)).body.source).toMatchObject({ state: 'ready', review_comments: 9 });
      expect(logs()).toContain("GitHub's rate limit is spent (429, x-ratelimit-remaining: 0)");

      const ns2 = await added();
      gh.inject({ kind: 'primary', match: /\/issues$/, resetInSeconds: 3_600 });
      const paused = (await sync(ns2, gh)).body.source;
      expect(paused).toMatchObject({ state: 'paused', pull_requests: 8, review_comments: 9, issues: 0 });
      expect(paused.reason).toContain('Run `loom code github demo acme/demo` again after then; it resumes from its checkpoints');
      expect(Date.parse(paused.resume_at ?? '')).toBeGreaterThan(Date.now() + 3_000_000);
      gh.requests.length = 0;
      expect((await sync(ns2, gh)).body.source).toMatchObject({ state: 'ready', reason: null, resume_at: null, pull_requests: 8, review_comments: 9, issues: 5 });
      // Pulls and comments finished before the pause: their checkpoints hold, so only their newest page is read again.
      expect(gh.requests.filter((r) => r.path.endsWith('/reviews'))).toHaveLength(0);
      expect(gh.requests.find((r) => r.path.endsWith('/pulls/comments'))?.query['since']).toBe('2023-11-14T22:05:00Z');
    } finally {
      await gh.close();
    }
  });

  it('PRHIST-02 [issue 13: revoked token] a token revoked during the sync (401) pauses it with a reason naming what to do; a rerun with a valid token resumes from the checkpoints', async () => {
    const gh = await startFakeGithub({ data: githubDataFor(fixture), tokens: TOKENS, port: port() });
    try {
      const ns = await added();
      gh.inject({ kind: 'unauthorized', match: /\/pulls\/comments$/ });
      const paused = (await sync(ns, gh)).body.source;
      expect(paused).toMatchObject({ state: 'paused', resume_at: null, pull_requests: 8 });
      expect(paused.reason).toContain('GitHub refused the token (401 Bad credentials)');
      expect(paused.reason).toContain('`GITHUB_TOKEN=<new token> loom code github demo acme/demo`');
      expect(paused.reason).toContain('LOOM_GITHUB_TOKEN');
      expect(await listed(ns)).toMatchObject({ state: 'paused', reason: paused.reason });
      expect(logs()).toContain('github sync demo: paused: GitHub refused the token (401 Bad credentials)');
      gh.requests.length = 0;
      expect((await sync(ns, gh)).body.source).toMatchObject({ state: 'ready', reason: null, pull_requests: 8, review_comments: 9, issues: 5 });
      expect(pagesOf(gh, '/pulls')).toEqual(['1']);
    } finally {
      await gh.close();
    }
  });

  it('PRHIST-02: a renamed repository (301 to its new name on the same API) is followed, with the token', async () => {
    const gh = await startFakeGithub({ data: githubDataFor(fixture), tokens: TOKENS, renamedFrom: 'acme/old-demo', port: port() });
    try {
      const ns = await added();
      expect((await sync(ns, gh, { github: 'acme/old-demo' })).body.source).toMatchObject({ state: 'ready', github: 'acme/old-demo', pull_requests: 8, review_comments: 9, issues: 5 });
      const moved = gh.requests.filter((r) => r.path.startsWith('/repos/acme/demo'));
      expect(moved.length).toBeGreaterThan(5);
      expect(moved.every((r) => r.authorization === `Bearer ${REQUEST_TOKEN}`)).toBe(true);
    } finally {
      await gh.close();
    }
  });

  it('PRHIST-02: without a token in the op the deployment\'s LOOM_GITHUB_TOKEN is used, and only towards LOOM_GITHUB_API_URL: another api_url gets no token', async () => {
    const ns = await added();
    configGithub.requests.length = 0;
    const viaConfig = await loom.admin.ok('code.github_sync', { namespace: ns, repository: 'demo', github: 'acme/demo', wait: true });
    expect(viaConfig.source).toMatchObject({ state: 'ready', token: 'config', api_url: configGithub.baseUrl, pull_requests: 8 });
    expect(new Set(configGithub.requests.map((r) => r.authorization))).toEqual(new Set([`Bearer ${CONFIG_TOKEN}`]));
    const other = await startFakeGithub({ data: githubDataFor(fixture), port: port() });
    try {
      const ns2 = await added();
      const none = await sync(ns2, other, { token: undefined });
      expect(none.body.source).toMatchObject({ state: 'ready', token: 'none' });
      expect(other.requests.map((r) => r.authorization).filter((a) => a !== undefined)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('PRHIST-02 [issue 13: reached from everywhere] `loom code add <path> --github owner/name` indexes, then syncs with the token from GITHUB_TOKEN (never an argument); `loom code list` shows the source', async () => {
    const gh = await startFakeGithub({ data: githubDataFor(fixture), tokens: TOKENS, port: port() });
    try {
      const ns = uniqueNamespace();
      const target = ['--namespace', ns, '--url', loom.url, '--token', loom.admin.token];
      const env = { ...process.env, GITHUB_TOKEN: REQUEST_TOKEN };
      const added = await run('node', [CLI, 'code', 'add', fixture.path, '--name', 'demo', '--github', 'acme/demo', '--github-api', gh.baseUrl, ...target], { env });
      expect(added.stdout).toContain('synced demo from GitHub acme/demo: 8 PRs, 9 reviews and review comments, 5 issues');
      expect(new Set(gh.requests.map((r) => r.authorization))).toEqual(new Set([`Bearer ${REQUEST_TOKEN}`]));
      const list = await run('node', [CLI, 'code', 'list', ...target], { env });
      expect(list.stdout).toContain('demo: GitHub acme/demo ready (8 PRs, 9 reviews and comments, 5 issues)');
      expect(list.stdout + list.stderr + added.stdout + added.stderr).not.toContain(REQUEST_TOKEN);
      // A refused token: the command fails with the reason, which names what to do.
      const refused = await run('node', [CLI, 'code', 'github', 'demo', 'acme/demo', '--github-api', gh.baseUrl, ...target], { env: { ...process.env, GITHUB_TOKEN: 'ghp_refusedrefusedrefusedrefusedrefused0' } }).catch((e: { stderr: string; code: number }) => e);
      expect('code' in refused && refused.code).toBe(1);
      expect(refused.stderr).toContain('GitHub refused the token (401 Bad credentials): it is revoked, expired or mistyped; give a valid token');
      expect(refused.stderr).not.toContain('ghp_refused');
    } finally {
      await gh.close();
    }
  });

  it('PRHIST-02 [issue 13: api_url SSRF] an api_url the deployment does not allow (a metadata address, a loopback server not in LOOM_GITHUB_API_URLS, another path on an allowed host, credentials in it) answers 400 naming api_url and how to allow it, before any request; an allowed server\'s long error text is not quoted back', async () => {
    const ns = await added();
    const unlisted = await startFakeGithub({ data: githubDataFor(fixture) });
    try {
      for (const api_url of ['http://169.254.169.254/latest/meta-data', 'http://[fd00:ec2::254]', unlisted.baseUrl, `${configGithub.baseUrl}/other/api/v3`]) {
        const refused = await loom.admin.call('code.github_sync', { namespace: ns, repository: 'demo', github: 'acme/demo', api_url, token: REQUEST_TOKEN });
        expect({ api_url, status: refused.status, fields: refused.body.error.fields }).toEqual({ api_url, status: 400, fields: [{ field: 'api_url', message: 'not an allowed GitHub API: an operator adds it to LOOM_GITHUB_API_URLS' }] });
        expect(refused.body.error.message).toContain('LOOM_GITHUB_API_URLS');
      }
      // Credentials in the URL are refused by the contract itself, before the allow-list, and never quoted back.
      const withCredentials = `http://user:pw@${configGithub.baseUrl.slice('http://'.length)}`;
      const refused = await loom.admin.call('code.github_sync', { namespace: ns, repository: 'demo', github: 'acme/demo', api_url: withCredentials, token: REQUEST_TOKEN });
      expect({ status: refused.status, fields: refused.body.error.fields }).toEqual({
        status: 400,
        fields: [{ field: 'api_url', message: 'api_url must be an http(s) URL without query or credentials (user:password@), e.g. https://api.github.com' }],
      });
      expect(JSON.stringify(refused.body)).not.toContain('user:pw');
      expect(unlisted.requests).toEqual([]);
      expect((await loom.admin.ok('code.list', { namespace: ns })).repositories[0].github).toBeNull();
    } finally {
      await unlisted.close();
    }
    // The deployment's own API, spelt differently (a trailing slash, the default path), is the same API.
    const spelt = await loom.admin.call('code.github_sync', { namespace: ns, repository: 'demo', github: 'acme/demo', api_url: `${configGithub.baseUrl}//`, wait: true });
    expect([spelt.status, spelt.body.source?.state, spelt.body.source?.token]).toEqual([200, 'ready', 'config']);
    // An allowed server answering with a long message (as a metadata service would): the 400 quotes none of it.
    const leak = 'AccessKeyId ASIA' + 'X'.repeat(40) + ' SecretAccessKey ' + 'y'.repeat(120);
    const chatty = createHttpServer((_req, res) => {
      res.statusCode = 418;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ message: leak }));
    });
    const chattyPort = port();
    await new Promise<void>((r) => chatty.listen(chattyPort, '127.0.0.1', r));
    try {
      const answer = await loom.admin.call('code.github_sync', { namespace: ns, repository: 'demo', github: 'acme/demo', api_url: `http://127.0.0.1:${chattyPort}` });
      expect(answer.status).toBe(400);
      expect(answer.body.error.fields).toEqual([{ field: 'api_url', message: "not GitHub's REST API" }]);
      expect(JSON.stringify(answer.body)).not.toContain('AccessKeyId');
      expect(JSON.stringify(answer.body)).not.toContain('yyyy');
    } finally {
      await new Promise((r) => chatty.close(r));
    }
  });

  it('[issue 13: bad input] an unreachable API, a repository GitHub does not have, a refused token, a repository not added, malformed fields: each a clear error naming what to fix, never a 500', async () => {
    const ns = await added();
    // Allowed, but nothing listens there.
    const closedPort = port();
    const unreachable = await loom.admin.call('code.github_sync', { namespace: ns, repository: 'demo', github: 'acme/demo', api_url: `http://127.0.0.1:${closedPort}`, token: REQUEST_TOKEN });
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.error.fields).toEqual([{ field: 'api_url', message: "GitHub's API could not be reached there" }]);
    expect(unreachable.body.error.message).toContain('check api_url');
    const missing = await sync(ns, configGithub, { github: 'acme/nope' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.fields).toEqual([{ field: 'github', message: 'no such repository on GitHub, or not visible to the token' }]);
    const revoked = await sync(ns, configGithub, { token: 'ghp_revokedrevokedrevokedrevokedrevoked00' });
    expect(revoked.status).toBe(400);
    expect(revoked.body.error.fields).toEqual([{ field: 'token', message: 'GitHub refused it (401)' }]);
    expect(JSON.stringify(revoked.body)).not.toContain('ghp_revoked');
    // A server that is not GitHub's API: HTML, not JSON.
    const web = createHttpServer((_req, res) => res.end('<html>hello</html>'));
    const webPort = port();
    await new Promise<void>((r) => web.listen(webPort, '127.0.0.1', r));
    try {
      const notGithub = await loom.admin.call('code.github_sync', { namespace: ns, repository: 'demo', github: 'acme/demo', api_url: `http://127.0.0.1:${webPort}` });
      expect(notGithub.status).toBe(400);
      expect(notGithub.body.error.fields).toEqual([{ field: 'api_url', message: "not GitHub's REST API" }]);
    } finally {
      await new Promise((r) => web.close(r));
    }
    const notAdded = await loom.admin.call('code.github_sync', { namespace: ns, repository: 'never-added', github: 'acme/demo' });
    expect(notAdded.status).toBe(404);
    expect(notAdded.body.error.message).toContain('loom code add');
    const malformed = await loom.admin.call('code.github_sync', { namespace: ns, repository: 'demo', github: 'not a repo', api_url: 'ftp://example.com', token: 'has space' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['api_url', 'github', 'token']);
    const viewer = await loom.as(ns, 'viewer');
    expect((await viewer.call('code.github_sync', { namespace: ns, repository: 'demo', github: 'acme/demo' })).status).toBe(403);
    expect(logs()).not.toContain('ghp_revoked');
  });
});
