import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { launch, startSplitTopology, uniqueNamespace, writeGeneratedHistory, type ManagedProcess, type SplitTopology } from '../libs/testing/src';

jest.setTimeout(600_000);

const CLI = join(resolve(__dirname, '..'), 'dist', 'apps', 'cli', 'src', 'main.js');
const COMMITS = 1_500;
/** The ingest's batch (CodeIngest's default): a crash rewrites at most this many commits. */
const BATCH = 100;

/**
 * A gateway killed (SIGKILL) in the middle of `loom code add` on a generated history of 1,500
 * commits, then the command run again against a new gateway: the ingest resumes from its
 * checkpoint and every row is there exactly once, the same rows as an ingest that was never
 * interrupted. The gateway writes to a ClickHouse server, so what it wrote before dying stays.
 */
describe('Code ingest killed mid-way [issue 13: resumable after a crash] (PRHIST-04)', () => {
  let topology: SplitTopology;
  let ch: ClickHouseClient;
  let repo: { path: string; head: string };
  const ns = uniqueNamespace();
  const reference = uniqueNamespace();

  beforeAll(async () => {
    repo = writeGeneratedHistory(COMMITS);
    topology = await startSplitTopology({ embedders: 0, env: { LOOM_CODE_INGEST_ENABLED: 'true' } });
    ch = createClient({ url: topology.clickhouseUrl });
  });
  afterAll(async () => {
    await ch?.close();
    await topology?.close();
  });

  const select = async <T>(query: string, params: Record<string, unknown> = {}): Promise<T[]> => (await ch.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>();
  const db = () => topology.database;
  /** A table's rows in a namespace: how many (folded, and as stored) and a checksum of their content. */
  const table = async (name: string, namespace: string, upto = 1e9) => {
    const columns = (await select<{ name: string }>(`SELECT name FROM system.columns WHERE database = {db:String} AND table = {t:String} AND name != 'namespace' ORDER BY position`, { db: db(), t: name })).map((c) => c.name);
    const [folded] = await select<{ n: string; sum: string }>(`SELECT count() AS n, toString(sum(cityHash64(${columns.join(', ')}))) AS sum FROM ${db()}.${name} FINAL WHERE namespace = {ns:String} AND seq <= {upto:UInt32}`, { ns: namespace, upto });
    const [stored] = await select<{ n: string }>(`SELECT count() AS n FROM ${db()}.${name} WHERE namespace = {ns:String}`, { ns: namespace });
    return { rows: Number(folded!.n), sum: folded!.sum, stored: Number(stored!.n) };
  };
  const cliAdd = (url: string, onLine?: (line: string) => void): ManagedProcess =>
    launch('loom-code-add', process.execPath, [CLI, 'code', 'add', repo.path, '--name', 'big', '--namespace', ns], { LOOM_URL: url, LOOM_TOKEN: topology.admin.token, LOOM_LOG_LEVEL: 'warn' }, onLine ? { onLine } : {});

  it('PRHIST-04 [issue 13: resumable after a crash, stale ingesting] SIGKILL of the gateway mid-ingest: code.list says interrupted with the command to resume once its lease lapses; `loom code add` again: resumed from the checkpoint, progress shown, each commit, file change, hunk and symbol change stored once', async () => {
    const progress: string[] = [];
    const first = cliAdd(topology.url, (line) => progress.push(line));
    // Wait until a few batches are in, then kill the process doing the work.
    const gateway = topology.processes().find((p) => p.name === 'gateway')!;
    let indexed = 0;
    for (const deadline = Date.now() + 300_000; indexed < 3 * BATCH && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 100));
      indexed = (await topology.admin.ok('code.list', { namespace: ns })).repositories[0]?.commits_indexed ?? 0;
    }
    await gateway.stop('SIGKILL');
    expect(await first.exited).not.toBe(0);
    // The CLI showed progress (done of total) before the crash; how many lines depends on how fast
    // the batches go, which on a quiet machine can be one poll.
    const shown = progress.map((l) => /big: ingesting (\d+)\/(\d+) commits/.exec(l)).filter((m): m is RegExpExecArray => m !== null);
    expect(shown.length).toBeGreaterThanOrEqual(1);
    expect(shown.every((m) => Number(m[2]) === COMMITS)).toBe(true);

    // What the crash left: the checkpoint is a whole batch, and everything up to it is written.
    const [left] = await select<{ state: string; commits: string; last_sha: string }>(`SELECT state, commits, last_sha FROM ${db()}.code_repositories FINAL WHERE namespace = {ns:String}`, { ns });
    const checkpoint = Number(left!.commits);
    expect(left!.state).toBe('ingesting');
    expect(checkpoint % BATCH).toBe(0);
    expect(checkpoint).toBeGreaterThanOrEqual(3 * BATCH);
    expect(checkpoint).toBeLessThan(COMMITS);
    const mainline = execFileSync('git', ['-C', repo.path, 'rev-list', '--first-parent', '--reverse', 'HEAD'], { encoding: 'utf8' }).trim().split('\n');
    expect(left!.last_sha).toBe(mainline[checkpoint - 1]);
    expect((await table('code_commits', ns, checkpoint)).rows).toBe(checkpoint);

    // A new gateway: while the dead one's lease lasts the ingest may still run somewhere, so it
    // says ingesting; once the lease lapses nobody runs it, and code.list says so, with the command.
    const again = await topology.startGateway();
    let listed = (await again.admin.ok('code.list', { namespace: ns })).repositories[0];
    for (const deadline = Date.now() + 90_000; listed.state === 'ingesting' && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 500));
      listed = (await again.admin.ok('code.list', { namespace: ns })).repositories[0];
    }
    expect(listed).toMatchObject({ name: 'big', state: 'interrupted', commits_indexed: checkpoint, commits_total: COMMITS, resume: `loom code add ${repo.path} --name big` });
    expect(listed.error).toContain(`stopped at ${checkpoint}/${COMMITS} commits`);
    // The command again: it resumes from the checkpoint.
    const second: string[] = [];
    const rerun = cliAdd(again.url, (line) => second.push(line));
    expect(await rerun.exited).toBe(0);
    expect(second.join('\n')).toContain(`indexed big: ${COMMITS} commits up to ${repo.head.slice(0, 12)}`);
    expect(await again.admin.ok('code.list', { namespace: ns })).toMatchObject({ repositories: [{ name: 'big', state: 'ready', commits_indexed: COMMITS, commits_total: COMMITS, head: repo.head }] });

    // The same history ingested without a crash, in another namespace: the reference.
    await again.admin.ok('code.add', { namespace: reference, path: repo.path, name: 'big', wait: true });
    for (const name of ['code_commits', 'code_file_changes', 'code_hunks', 'code_symbol_changes']) {
      const crashed = await table(name, ns);
      const clean = await table(name, reference);
      expect({ name, rows: crashed.rows, sum: crashed.sum }).toEqual({ name, rows: clean.rows, sum: clean.sum });
      // Resumed, not restarted: only the batch the crash cut short was written twice.
      const cutShort = (await table(name, reference, checkpoint + BATCH)).rows - (await table(name, reference, checkpoint)).rows;
      expect(crashed.stored - clean.stored).toBeLessThanOrEqual(cutShort);
    }
    const commits = await table('code_commits', ns);
    expect(commits.rows).toBe(COMMITS);
    expect(commits.stored - COMMITS).toBeLessThanOrEqual(BATCH);
    // Git agrees on the file changes.
    const changed = execFileSync('git', ['-C', repo.path, 'log', '--first-parent', '-M', '--format=', '--name-only'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\n').filter(Boolean);
    expect((await table('code_file_changes', ns)).rows).toBe(changed.length);
    // And the answers: a path's whole history, once each.
    const file = execFileSync('git', ['-C', repo.path, 'ls-files'], { encoding: 'utf8' }).split('\n')[0]!;
    const path = await again.admin.ok('history.path', { namespace: ns, repository: 'big', path: file, limit: 500 });
    const shas = path.changes.map((c: { sha: string }) => c.sha);
    expect(new Set(shas).size).toBe(shas.length);
    // Git without --follow stops at a rename; Loom follows it further back.
    const gitPath = execFileSync('git', ['-C', repo.path, 'log', '--first-parent', '--format=%H', '--', file], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    expect(gitPath.length).toBeGreaterThan(10);
    expect(shas.slice(0, gitPath.length)).toEqual(gitPath);
  });
});
