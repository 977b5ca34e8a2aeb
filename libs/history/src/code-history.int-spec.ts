import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTrackerTables, FIXTURE_SECRET, startOpenAiCompatibleServer, trackerRegistration, startTestLoom, uniqueNamespace, writeGeneratedHistory, writeGitFixture, type GitFixture, type OpenAiCompatibleServer, type TestLoom } from '../../testing/src';

describe('Code history plane, off by default (PRHIST-01, PRHIST-04, SETTINGS-09)', () => {
  let loom: TestLoom;
  beforeAll(async () => {
    loom = await startTestLoom({ withEmbedder: false });
  });
  afterAll(async () => loom.close());

  it('PRHIST-01 / PRHIST-04: without LOOM_CODE_INGEST_ENABLED every code op answers 501 saying how to turn it on; code.list says it is off', async () => {
    const ns = uniqueNamespace();
    const fixture = writeGitFixture();
    for (const [op, body] of [
      ['code.add', { path: fixture.path }],
      ['code.github_sync', { repository: 'demo', github: 'acme/demo' }],
      ['history.path', { repository: 'demo', path: 'README.md' }],
      ['history.symbol', { repository: 'demo', symbol: 'query' }],
      ['history.line', { repository: 'demo', path: 'README.md', line: 1 }],
    ] as const) {
      const answer = await loom.admin.call(op, { namespace: ns, ...body });
      expect({ op, status: answer.status }).toEqual({ op, status: 501 });
      expect(answer.body.error.message).toContain('LOOM_CODE_INGEST_ENABLED=true');
    }
    expect(await loom.admin.ok('code.list', { namespace: ns })).toEqual({ enabled: false, repositories: [] });
    const status = await (await fetch(`${loom.url}/readyz`)).json();
    expect(status.planes.code_history).toMatchObject({ enabled: false, how_to_enable: expect.stringContaining('LOOM_CODE_INGEST_ENABLED=true') });
  });
});

describe('Code history: ingest and path, symbol and line history through the API (PRHIST-03, PRHIST-04)', () => {
  let loom: TestLoom;
  let fixture: GitFixture;
  let ns: string;
  beforeAll(async () => {
    loom = await startTestLoom({ withEmbedder: false, env: { LOOM_CODE_INGEST_ENABLED: 'true', LOOM_TRACKER_ORG: 'acme' } });
    fixture = writeGitFixture();
    ns = uniqueNamespace();
    // On, with no repository added yet: no history before then, and the answer says how to add one.
    const none = await loom.admin.call('history.path', { namespace: ns, repository: 'demo', path: 'README.md' });
    expect([none.status, none.body.error.message]).toEqual([404, expect.stringContaining('loom code add')]);
    const added = await loom.admin.ok('code.add', { namespace: ns, path: fixture.path, name: 'demo', wait: true });
    expect(added.repository).toMatchObject({ name: 'demo', state: 'ready', commits_indexed: 7, commits_total: 7, head: fixture.commits.cFile, error: null });
  });
  afterAll(async () => loom.close());
  const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: ns, repository: 'demo', ...body });

  it('PRHIST-05: the status page (/readyz) says the plane is on and marks the ranked history ops experimental', async () => {
    const status = await (await fetch(`${loom.url}/readyz`)).json();
    expect(status.planes.code_history).toEqual({ enabled: true, experimental_ops: ['history.review_brief', 'history.duplicate_check', 'history.bisect'] });
    expect(status.planes.tracker).toMatchObject({ enabled: true, experimental_ops: ['tracker.duplicate_check'] });
  });

  it('PRHIST-02: once on, the history holds the merged PRs (squash and merge commits) and the issues they fix; with a tracker source registered, its CI runs and PR links answer beside it', async () => {
    expect((await ok('history.path', { path: 'src' })).changes.map((c: { pr_number: number | null }) => c.pr_number)).toEqual([4, 3, 2, 1, null]);
    expect((await ok('history.review_brief', { pr_number: 4 })).title).toBe('Merge pull request #4 from acme/ping');
    expect((await ok('history.review_brief', { pr_number: 2 })).linked_issues).toEqual([12]);
    const db = `${loom.gateway.runtime.storage.tables.database}_prhist`;
    await createTrackerTables(loom.gateway.runtime.storage, db);
    try {
      expect((await loom.admin.call('tracker.flaky_tests', { namespace: ns })).status).toBe(501);
      await loom.admin.ok('tracker.source_register', { namespace: ns, ...trackerRegistration(db) });
      expect((await loom.admin.ok('tracker.flaky_tests', { namespace: ns })).tests.map((t: { test: string }) => t.test)).toEqual(['test_a', 'test_c']);
      expect((await loom.admin.ok('tracker.issue_links', { namespace: ns, issue: '101' })).links.map((l: { pr: string }) => l.pr)).toEqual(['2001', '2008', '2007']);
    } finally {
      await loom.gateway.runtime.storage.command(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    }
  });

  it('PRHIST-04: code.list shows the repository with its progress; a viewer may list but not add', async () => {
    expect(await loom.admin.ok('code.list', { namespace: ns })).toMatchObject({ enabled: true, repositories: [{ name: 'demo', state: 'ready', commits_indexed: 7, commits_total: 7 }] });
    const viewer = await loom.as(ns, 'viewer');
    expect((await viewer.call('code.add', { namespace: ns, path: fixture.path })).status).toBe(403);
    expect((await viewer.call('code.list', { namespace: ns })).status).toBe(200);
  });

  it('PRHIST-03: a path\'s history is newest first, follows the rename back, and names each PR (squash and merge commits)', async () => {
    const { changes } = await ok('history.path', { path: 'src/connection.ts' });
    expect(changes.map((c: { sha: string }) => c.sha)).toEqual([fixture.commits.mergePing, fixture.commits.rename, fixture.commits.fixQuery, fixture.commits.addClose, fixture.commits.initial]);
    expect(changes.map((c: { pr_number: number | null }) => c.pr_number)).toEqual([4, 3, 2, 1, null]);
    expect(changes[1]).toMatchObject({ change: 'renamed', path: 'src/connection.ts', old_path: 'src/client.ts', subject: 'Rename client to connection (#3)', author: 'Ada Lovelace' });
    expect(changes[4]).toMatchObject({ change: 'added', path: 'src/client.ts' });
    // A directory: its files' changes.
    expect((await ok('history.path', { path: 'tools' })).changes.map((c: { sha: string }) => c.sha)).toEqual([fixture.commits.cFile, fixture.commits.python]);
    expect((await ok('history.path', { path: 'docs/notes with space.md' })).changes).toHaveLength(1);
  });

  it('PRHIST-03: a symbol\'s history names the PRs whose hunks changed it, by last name part or qualified, in every language', async () => {
    const query = await ok('history.symbol', { symbol: 'query' });
    expect(query.changes.map((c: { sha: string; symbol: string }) => [c.sha, c.symbol])).toEqual([[fixture.commits.fixQuery, 'Client.query'], [fixture.commits.initial, 'Client.query']]);
    expect(query.changes[0]).toMatchObject({ pr_number: 2, source: 'parser', path: 'src/client.ts' });
    expect((await ok('history.symbol', { symbol: 'Client.close' })).changes.map((c: { pr_number: number }) => c.pr_number)).toEqual([1]);
    expect((await ok('history.symbol', { symbol: 'ping' })).changes.map((c: { pr_number: number }) => c.pr_number)).toEqual([4]);
    expect((await ok('history.symbol', { symbol: 'Helper.run' })).changes.map((c: { pr_number: number }) => c.pr_number)).toEqual([6, 5]);
    expect((await ok('history.symbol', { symbol: 'parse_line' })).changes.map((c: { pr_number: number }) => c.pr_number)).toEqual([6]);
    // Only changes under a path: query never changed under tools/.
    expect((await loom.admin.call('history.symbol', { namespace: ns, repository: 'demo', symbol: 'query', path: 'tools/' })).status).toBe(404);
    expect((await ok('history.symbol', { symbol: 'query', path: 'src/' })).changes).toHaveLength(2);
  });

  it('PRHIST-03: a line\'s history is the chain of commits that wrote it, through the rename, ending at its origin; it agrees with git log -L', async () => {
    // `return run(sql, { timeout: 30 });` is line 4 of src/connection.ts today.
    const line = await ok('history.line', { path: 'src/connection.ts', line: 4 });
    expect(line.changes.map((c: { sha: string; path: string; line: number; origin: boolean }) => [c.sha, c.path, c.line, c.origin])).toEqual([
      [fixture.commits.fixQuery, 'src/client.ts', 3, false],
      [fixture.commits.initial, 'src/client.ts', 3, true],
    ]);
    expect(line.ref).toBe(fixture.commits.cFile);
    const gitL = execFileSync('git', ['-C', fixture.path, 'log', '--first-parent', '--format=%H', '-s', '-L', '4,4:src/connection.ts'], { encoding: 'utf8' }).trim().split('\n').filter((l) => /^[0-9a-f]{40}$/.test(l));
    // git log -L also lists the rename (the file "changed" path) — Loom lists the commits that wrote the text.
    expect(gitL.filter((sha) => sha !== fixture.commits.rename)).toEqual(line.changes.map((c: { sha: string }) => c.sha));
    // At an older ref, the line numbers of that commit.
    const old = await ok('history.line', { path: 'src/client.ts', line: 3, ref: fixture.commits.addClose.slice(0, 10) });
    expect(old.changes.map((c: { sha: string }) => c.sha)).toEqual([fixture.commits.initial]);
    // A line born in the merged PR.
    expect((await ok('history.line', { path: 'src/connection.ts', line: 13 })).changes.map((c: { pr_number: number; origin: boolean }) => [c.pr_number, c.origin])).toEqual([[4, true]]);
  });

  it('[issue 13: bad input] a path that is not a repository, an unknown ref, an unknown repository, symbol or path each get a clear error', async () => {
    const notRepo = await loom.admin.call('code.add', { namespace: ns, path: mkdtempSync(join(tmpdir(), 'not-a-repo-')) });
    expect(notRepo.status).toBe(400);
    expect(notRepo.body.error.fields).toEqual([{ field: 'path', message: 'not a git repository' }]);
    const badRef = await loom.admin.call('code.add', { namespace: ns, path: fixture.path, ref: 'no-such-branch' });
    expect(badRef.status).toBe(400);
    expect(badRef.body.error.fields).toEqual([{ field: 'ref', message: 'unknown ref' }]);
    expect((await loom.admin.call('history.path', { namespace: ns, repository: 'nope', path: 'a' })).status).toBe(404);
    const symbol = await loom.admin.call('history.symbol', { namespace: ns, repository: 'demo', symbol: 'neverSeen' });
    expect(symbol.status).toBe(404);
    expect(symbol.body.error.fields).toEqual([{ field: 'symbol', message: 'never changed in the indexed history' }]);
    expect((await loom.admin.call('history.line', { namespace: ns, repository: 'demo', path: 'src/connection.ts', line: 4, ref: 'abcdef0' })).status).toBe(400);
    const invalid = await loom.admin.call('history.line', { namespace: ns, repository: 'bad name!', path: '', line: 0 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['line', 'path', 'repository']);
  });

  it('PRHIST-03 [issue 13: reached from everywhere] the history tools answer over MCP (official client, ?toolset=all)', async () => {
    const token = (await loom.admin.ok<{ token: string }>('token.create', { namespace: ns, role: 'viewer' })).token;
    const client = new Client({ name: 'history-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${loom.url}/mcp?toolset=all`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['loom_history_path', 'loom_history_symbol', 'loom_history_line', 'loom_history_review_brief', 'loom_history_duplicate_check', 'loom_history_bisect']));
      const path = (await client.callTool({ name: 'loom_history_path', arguments: { repository: 'demo', path: 'src/connection.ts' } })) as CallToolResult & { structuredContent?: { changes: { pr_number: number | null }[] } };
      expect(path.isError ?? false).toBe(false);
      expect(path.structuredContent?.changes.map((c) => c.pr_number)).toEqual([4, 3, 2, 1, null]);
      const missing = (await client.callTool({ name: 'loom_history_symbol', arguments: { repository: 'demo', symbol: 'neverSeen' } })) as CallToolResult;
      expect(missing.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('[issue 13: runs name the PRs they wrote] run.complete names its pull requests; path, symbol and line history and the review brief link each PR to those runs; run.list finds them by PR', async () => {
    const begin = async (goal: string) => (await loom.admin.ok('run.begin', { namespace: ns, goal })).run.run_id as string;
    const fixer = await begin('Stop queries hanging');
    const done = await loom.admin.ok('run.complete', { namespace: ns, run_id: fixer, status: 'succeeded', pull_requests: [{ number: 2, repository: 'demo', url: 'https://github.com/acme/demo/pull/2' }] });
    expect(done.run.pull_requests).toEqual([{ number: 2, repository: 'demo', url: 'https://github.com/acme/demo/pull/2' }]);
    const pinger = await begin('Add ping');
    await loom.admin.ok('run.complete', { namespace: ns, run_id: pinger, status: 'succeeded', pull_requests: [{ number: 4 }] });
    // Another repository's PR #2 is not this one.
    const elsewhere = await begin('Work on another repository');
    await loom.admin.ok('run.complete', { namespace: ns, run_id: elsewhere, status: 'succeeded', pull_requests: [{ number: 2, repository: 'other' }] });

    const path = await ok('history.path', { path: 'src/connection.ts' });
    expect(path.changes.map((c: { pr_number: number | null; runs: string[] }) => [c.pr_number, c.runs])).toEqual([[4, [pinger]], [3, []], [2, [fixer]], [1, []], [null, []]]);
    expect((await ok('history.symbol', { symbol: 'query' })).changes.map((c: { runs: string[] }) => c.runs)).toEqual([[fixer], []]);
    expect((await ok('history.line', { path: 'src/connection.ts', line: 4 })).changes[0].runs).toEqual([fixer]);
    expect((await ok('history.review_brief', { pr_number: 2 })).runs).toEqual([fixer]);
    expect((await ok('history.duplicate_check', { title: 'Add a timeout to slow queries' })).candidates[0].runs).toEqual([fixer]);
    const listed = await loom.admin.ok('run.list', { namespace: ns, agent: '*', pull_request: 2, repository: 'demo' });
    expect(listed.runs.map((r: { run_id: string }) => r.run_id)).toEqual([fixer]);
    expect((await loom.admin.ok('run.list', { namespace: ns, agent: '*', pull_request: 2 })).runs.map((r: { run_id: string }) => r.run_id).sort()).toEqual([elsewhere, fixer].sort());
    const bad = await loom.admin.call('run.complete', { namespace: ns, run_id: await begin('bad'), status: 'succeeded', pull_requests: [{ number: 0, repository: 'bad name!', url: 'ftp://x' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['pull_requests.0.number', 'pull_requests.0.repository', 'pull_requests.0.url']);
  });

  it('[issue 13: resumable] a rerun adds only new commits; the rows are not doubled', async () => {
    const more = writeGitFixture();
    const ns2 = uniqueNamespace();
    await loom.admin.ok('code.add', { namespace: ns2, path: more.path, name: 'again', wait: true });
    execFileSync('git', ['-C', more.path, '-c', 'user.name=B', '-c', 'user.email=b@example.com', 'commit', '-q', '--allow-empty', '-m', 'Empty follow-up (#7)']);
    const again = await loom.admin.ok('code.add', { namespace: ns2, path: more.path, name: 'again', wait: true });
    expect(again.repository).toMatchObject({ state: 'ready', commits_indexed: 8, commits_total: 8 });
    const history = await loom.admin.ok('history.path', { namespace: ns2, repository: 'again', path: 'src/connection.ts' });
    expect(history.changes).toHaveLength(5);
    // Same head: nothing to do, nothing doubled.
    await loom.admin.ok('code.add', { namespace: ns2, path: more.path, name: 'again', wait: true });
    expect((await loom.admin.ok('history.symbol', { namespace: ns2, repository: 'again', symbol: 'query' })).changes).toHaveLength(2);
  });
});

describe('Code history after a crash: the state is honest (PRHIST-04) [issue 13: stale ingesting]', () => {
  let loom: TestLoom;
  beforeAll(async () => {
    loom = await startTestLoom({ withEmbedder: false, env: { LOOM_CODE_INGEST_ENABLED: 'true' } });
  });
  afterAll(async () => loom.close());

  it('PRHIST-04 [issue 13: stale ingesting] an ingest and a GitHub sync stored as running that no gateway runs (a restarted gateway: nobody holds their leases) list as interrupted with the command that resumes them; that command finishes the ingest with nothing doubled', async () => {
    const fixture = writeGitFixture();
    const ns = uniqueNamespace();
    const { storage } = loom.gateway.runtime;
    await loom.admin.ok('code.add', { namespace: ns, path: fixture.path, name: 'cut-short', wait: true });
    const mainline = execFileSync('git', ['-C', fixture.path, 'rev-list', '--first-parent', '--reverse', 'HEAD'], { encoding: 'utf8' }).trim().split('\n');
    // What a gateway killed mid-ingest leaves: the state row says ingesting, its checkpoint at commit 3 of 7.
    // Stored after the ingest's own rows (the newest updated_at wins).
    await new Promise((r) => setTimeout(r, 5));
    const at = new Date().toISOString().replace('T', ' ').replace('Z', '');
    await storage.insert(storage.tables.codeRepositories, [
      { namespace: ns, name: 'cut-short', path: fixture.path, ref: 'HEAD', state: 'ingesting', error: '', last_sha: mainline[2], commits: 3, commits_total: 7, started_at: at, updated_at: at },
    ]);
    // And one killed mid GitHub sync: its source row says syncing (the token it was given is gone with it).
    await storage.insert(storage.tables.codeGithubSources, [
      { namespace: ns, repo: 'cut-short', github: 'acme/demo', api_url: 'https://api.github.com', token_source: 'request', state: 'syncing', reason: '', resume_at: null, pulls_since: '', review_comments_since: '', issues_since: '', pull_requests: 2, review_comments: 0, issues: 0, requests: 3, synced_at: null, updated_at: at },
    ]);
    const listed = (await loom.admin.ok('code.list', { namespace: ns })).repositories[0];
    expect(listed).toMatchObject({ name: 'cut-short', state: 'interrupted', commits_indexed: 3, commits_total: 7, resume: `loom code add ${fixture.path} --name cut-short` });
    expect(listed.error).toContain('stopped at 3/7 commits');
    expect(listed.error).toContain(listed.resume);
    expect(listed.github).toMatchObject({ state: 'interrupted', resume: 'GITHUB_TOKEN=<token> loom code github cut-short acme/demo', resume_at: null });
    expect(listed.github.reason).toContain('give it again');
    // What is stored is left as it was: the state is worked out when read.
    const [stored] = await storage.query<{ state: string }>(`SELECT state FROM ${storage.tables.codeRepositories} FINAL WHERE namespace = {ns:String}`, { ns });
    expect(stored!.state).toBe('ingesting');

    // The resume command's op: it finishes from the checkpoint, and every commit is there once.
    const resumed = await loom.admin.ok('code.add', { namespace: ns, path: fixture.path, name: 'cut-short', wait: true });
    expect(resumed.repository).toMatchObject({ state: 'ready', commits_indexed: 7, commits_total: 7, error: null, resume: null, head: fixture.commits.cFile });
    const [commits] = await storage.query<{ n: string; distinct: string }>(`SELECT count() AS n, uniqExact(sha) AS distinct FROM ${storage.tables.codeCommits} FINAL WHERE namespace = {ns:String}`, { ns });
    expect([Number(commits!.n), Number(commits!.distinct)]).toEqual([7, 7]);
    expect((await loom.admin.ok('history.path', { namespace: ns, repository: 'cut-short', path: 'src/connection.ts' })).changes).toHaveLength(5);
  });

  it('PRHIST-04 [issue 13: stale ingesting] an ingest that runs here lists as ingesting, not interrupted', async () => {
    const big = writeGeneratedHistory(400);
    const ns = uniqueNamespace();
    const started = await loom.admin.ok('code.add', { namespace: ns, path: big.path, name: 'big' });
    expect(started.repository.state).toBe('ingesting');
    const states = new Set<string>();
    for (const deadline = Date.now() + 300_000; Date.now() < deadline; ) {
      const r = (await loom.admin.ok('code.list', { namespace: ns })).repositories[0];
      states.add(r.state);
      if (r.state !== 'ingesting') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect([...states]).toEqual(['ingesting', 'ready']);
  });
});

describe('Code history: review briefs, the pre-PR duplicate check and bisect candidates (PRHIST-03)', () => {
  let loom: TestLoom;
  let llm: OpenAiCompatibleServer;
  let fixture: GitFixture;
  let ns: string;
  beforeAll(async () => {
    llm = await startOpenAiCompatibleServer({ chat: () => '{"what_changed": "Queries now stop after 30 seconds.", "why": "They hung forever on a slow server."}' });
    loom = await startTestLoom({ withEmbedder: false, env: { LOOM_CODE_INGEST_ENABLED: 'true', LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'review-model' } });
    fixture = writeGitFixture();
    ns = uniqueNamespace();
    await loom.admin.ok('code.add', { namespace: ns, path: fixture.path, name: 'demo', wait: true });
  });
  afterAll(async () => {
    await loom.close();
    await llm.close();
  });
  const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace: ns, repository: 'demo', ...body });

  it('PRHIST-03: a review brief says what changed and why, with files, symbols and linked issues; the model condenses it and never sees high text', async () => {
    const brief = await ok('history.review_brief', { pr_number: 2 });
    expect(brief).toMatchObject({
      pr_number: 2,
      sha: fixture.commits.fixQuery,
      title: 'Fix query timeout (#2)',
      what_changed: 'Queries now stop after 30 seconds.',
      why: 'They hung forever on a slow server.',
      files: [{ path: 'src/client.ts', change: 'modified', additions: 1, deletions: 1 }],
      symbols: ['Client.query'],
      linked_issues: [12],
      written_by: 'model',
      withheld: 1,
      review_comments: [],
    });
    const sent = JSON.stringify(llm.requests);
    expect(sent).toContain('Queries hung forever on a slow server');
    expect(sent).not.toContain(FIXTURE_SECRET);
    expect(JSON.stringify(brief)).not.toContain(FIXTURE_SECRET);
    expect((await loom.admin.call('history.review_brief', { namespace: ns, repository: 'demo', pr_number: 999 })).status).toBe(404);
  });

  it('PRHIST-03: the builder writes the brief when no model is configured', async () => {
    const plain = await startTestLoom({ withEmbedder: false, env: { LOOM_CODE_INGEST_ENABLED: 'true' } });
    try {
      const ns2 = uniqueNamespace();
      await plain.admin.ok('code.add', { namespace: ns2, path: fixture.path, name: 'demo', wait: true });
      const brief = await plain.admin.ok('history.review_brief', { namespace: ns2, repository: 'demo', pr_number: 2 });
      expect(brief.written_by).toBe('builder');
      expect(brief.what_changed).toBe('Fix query timeout (#2). It changed 1 file (+1 -1), mostly src/client.ts. Symbols changed: Client.query.');
      expect(brief.why).toBe('Queries hung forever on a slow server; a 30 s timeout stops them. Fixes #12');
      expect(JSON.stringify(brief)).not.toContain(FIXTURE_SECRET);
    } finally {
      await plain.close();
    }
  });

  it('PRHIST-03: the pre-PR duplicate check ranks the merged PR that did the same thing first, with its reasons', async () => {
    const byTitle = await ok('history.duplicate_check', { title: 'Add a timeout to slow queries' });
    expect(byTitle.candidates[0]).toMatchObject({ sha: fixture.commits.fixQuery, pr_number: 2 });
    expect(byTitle.candidates[0].reasons.join(' ')).toMatch(/its message shares .*"timeout"/);
    const diff = ['diff --git a/src/connection.ts b/src/connection.ts', '--- a/src/connection.ts', '+++ b/src/connection.ts', '@@ -4 +4 @@   query(sql: string) {', '-    return run(sql, { timeout: 30 });', '+    return run(sql, { timeout: 60 });'].join('\n');
    const byDiff = await ok('history.duplicate_check', { diff });
    expect(byDiff.candidates[0].files_in_common).toEqual(['src/connection.ts']);
    expect(byDiff.candidates.map((c: { sha: string }) => c.sha)).toContain(fixture.commits.rename);
    // Only changes older than a commit.
    const before = await ok('history.duplicate_check', { title: 'Add a timeout to slow queries', before: fixture.commits.fixQuery });
    expect(before.candidates.map((c: { sha: string }) => c.sha)).not.toContain(fixture.commits.fixQuery);
    const none = await loom.admin.call('history.duplicate_check', { namespace: ns, repository: 'demo' });
    expect(none.status).toBe(400);
    expect(none.body.error.fields.map((f: { field: string }) => f.field)).toEqual(['title', 'description', 'diff']);
  });

  it('PRHIST-03: bisect ranks the commits between good and bad by the regression\'s description and the paths and symbols named, each with evidence', async () => {
    const found = await ok('history.bisect', { description: 'queries hang forever, the timeout seems gone', good: fixture.commits.initial, bad: fixture.commits.cFile });
    expect(found.range).toEqual({ from: fixture.commits.initial, to: fixture.commits.cFile, commits: 6 });
    expect(found.candidates[0].sha).toBe(fixture.commits.fixQuery);
    expect(found.candidates[0].reasons.join(' ')).toContain('"timeout"');
    const hinted = await ok('history.bisect', { description: 'the helper returns the wrong number', paths: ['tools/'], symbols: ['Helper.run'] });
    // Both commits that changed Helper.run under tools/ lead, each saying so; the rest trail.
    expect(new Set(hinted.candidates.slice(0, 2).map((c: { sha: string }) => c.sha))).toEqual(new Set([fixture.commits.cFile, fixture.commits.python]));
    for (const c of hinted.candidates.slice(0, 2)) expect(c.reasons.slice(0, 2)).toEqual(['changed tools/util.py (under a path you named)', 'changed Helper.run (a symbol you named)']);
    expect(hinted.candidates[2].score).toBeLessThan(hinted.candidates[1].score / 2);
    const reversed = await loom.admin.call('history.bisect', { namespace: ns, repository: 'demo', description: 'x', good: fixture.commits.cFile, bad: fixture.commits.initial });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.fields).toEqual([{ field: 'good', message: 'not older than bad' }]);
  });
});
