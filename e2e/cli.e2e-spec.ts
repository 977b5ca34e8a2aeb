import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort, httpOk, launch, LoomApi, waitFor, type ManagedProcess } from '../libs/testing/src';

const run = promisify(execFile);
const CLI = resolve(__dirname, '..', 'dist', 'apps', 'cli', 'src', 'main.js');

/** The `loom` command as a newcomer uses it, on a data directory of its own. */
describe('loom CLI (embedded)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'loom-cli-'));
  const env = { ...process.env, LOOM_DATA_DIR: dataDir, LOOM_LOG_LEVEL: 'warn', LOOM_BOOTSTRAP_ADMIN_TOKEN: '' };
  let up: ManagedProcess | undefined;
  /** The writer token the storage path minted, used against `loom up` next. */
  let cliToken = '';
  afterAll(async () => {
    await up?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let lastPort = 0;
  const upUrl = (): string => `http://127.0.0.1:${lastPort}`;
  const startUp = async (port: number, withEnv: Record<string, string | undefined> = env): Promise<ManagedProcess> => {
    lastPort = port;
    const p = launch('loom up', process.execPath, [CLI, 'up'], { ...withEnv, LOOM_PORT: String(port) });
    await waitFor('loom up', () => httpOk(`http://127.0.0.1:${port}/readyz`), { processes: [p] });
    await waitFor('the start-up banner', async () => p.output().includes('stop: Ctrl-C'), { processes: [p] });
    return p;
  };

  it('loom migrate applies the schema with progress, and says so when there is nothing to do', async () => {
    const first = await run(process.execPath, [CLI, 'migrate'], { env });
    expect(first.stdout).toMatch(/\[1\/\d+\] applying 0001_create_namespaces/);
    expect(first.stdout).toMatch(/applied \d+ migration\(s\)/);
    const again = await run(process.execPath, [CLI, 'migrate'], { env });
    expect(again.stdout).toMatch(/schema is up to date/);
  });

  it('loom token create (no gateway running) mints a token into storage and prints it once', async () => {
    const { stdout, stderr } = await run(process.execPath, [CLI, 'token', 'create', '--namespace', 'acme', '--role', 'writer'], { env });
    expect(stdout.trim()).toMatch(/^loom_[A-Za-z0-9_-]{43}$/);
    expect(stderr).toContain('for namespace "acme" with role writer');
    const bad = await run(process.execPath, [CLI, 'token', 'create', '--namespace', 'acme', '--role', 'owner'], { env }).catch((e: { stderr: string; code: number }) => e);
    expect((bad as { code: number }).code).toBe(1);
    expect((bad as { stderr: string }).stderr).toContain('--role must be one of viewer, writer, admin');
    cliToken = stdout.trim();
  });

  it('loom up prints an admin token once, writes it to <data dir>/admin-token with mode 600, and the CLI token works against it', async () => {
    const port = await freePort();
    up = await startUp(port);
    const admin = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    expect(statSync(join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);
    expect(up.output()).toContain(admin);
    const url = `http://127.0.0.1:${port}`;
    const adminApi = new LoomApi(url, admin);
    await adminApi.ok('conversation.set_logging', { namespace: 'acme', enabled: true });
    const writer = new LoomApi(url, cliToken);
    expect(await writer.ok('conversation.append', { thread_id: 't', role: 'user', content: 'from the CLI token' })).toMatchObject({ stored: true });
    // With a gateway running, `loom token create` goes through it (the engine allows one process per data directory).
    const viaGateway = await run(process.execPath, [CLI, 'token', 'create', '--namespace', 'acme', '--role', 'viewer'], { env: { ...env, LOOM_PORT: String(port) } });
    const viewer = new LoomApi(url, viaGateway.stdout.trim());
    expect((await viewer.ok('conversation.list', { thread_id: 't' })).messages).toHaveLength(1);
  });

  it('a second loom up reuses the saved admin token and does not print it again', async () => {
    await up?.stop();
    const admin = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const port = await freePort();
    up = await startUp(port);
    expect(up.output()).not.toContain(admin);
    expect(up.output()).toContain(`admin token: in ${join(dataDir, 'admin-token')}`);
    expect((await new LoomApi(`http://127.0.0.1:${port}`, admin).call('conversation.threads', { namespace: 'acme' })).status).toBe(200);
  });

  it('loom reembed refuses while loom up holds the data directory, and after a provider switch gives old turns vectors of the new model, with progress (CONV-EMBED-03)', async () => {
    const refused = await run(process.execPath, [CLI, 'reembed'], { env: { ...env, LOOM_PORT: new URL(upUrl()).port } }).catch((e: { stderr: string; code: number }) => e);
    expect((refused as { code: number }).code).toBe(1);
    expect((refused as { stderr: string }).stderr).toContain('Stop `loom up`, run `loom reembed`, then start it again');
    await up?.stop();
    up = undefined;
    // A different vector size is a different model: hashed-v1-256.
    const switched = { ...env, LOOM_EMBEDDINGS_DIMS: '256', LOOM_PORT: String(await freePort()) };
    const { stdout } = await run(process.execPath, [CLI, 'reembed', '--namespace', 'acme'], { env: switched });
    expect(stdout).toMatch(/^\[0\/1\] re-embedded 0, skipped 0 \(model hashed-v1-256\)$/m);
    expect(stdout).toMatch(/^\[1\/1\] re-embedded 1, skipped 0/m);
    expect(stdout).toContain('re-embedded 1 turn(s) with hashed-v1-256');
    const again = await run(process.execPath, [CLI, 'reembed'], { env: switched });
    expect(again.stdout).toContain('nothing to re-embed');
    const port = await freePort();
    up = await startUp(port, switched);
    const admin = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const found = await new LoomApi(`http://127.0.0.1:${port}`, admin).ok('conversation.search', { namespace: 'acme', query: 'from the CLI token', search_mode: 'vector' });
    expect(found).toMatchObject({ mode: 'vector', hits: [{ msg_id: expect.any(String), excerpt: 'from the CLI token' }] });
  });

  it('[issue 10: loom search] loom search prints readable hits (hybrid by default), the answer as JSON with --json, and refuses an unknown mode', async () => {
    const admin = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const search = (args: string[]) => run(process.execPath, [CLI, 'search', ...args, '--namespace', 'acme', '--url', upUrl(), '--token', admin], { env });
    const text = await search(['CLI token']);
    expect(text.stdout).toMatch(/^1\. \d{4}-\d{2}-\d{2} \d{2}:\d{2}  user \(default\)  acme\/\S+  \S+  score \d+\.\d{4}\n   from the CLI token\n/);
    expect(text.stdout).toContain('1 hit(s), mode hybrid');
    const json = JSON.parse((await search(['CLI token', '--mode', 'lexical', '--json'])).stdout) as { mode: string; hits: Array<{ excerpt: string }> };
    expect(json).toMatchObject({ mode: 'lexical', hits: [{ excerpt: 'from the CLI token' }] });
    expect((await search(['nothing matches zzqx'])).stdout).toBe('no hits (hybrid)\n');
    const bad = await search(['x', '--mode', 'fuzzy']).catch((e: { stderr: string; code: number }) => e);
    expect((bad as { code: number }).code).toBe(1);
    expect((bad as { stderr: string }).stderr).toContain('--mode must be one of hybrid, vector, lexical');
  });

  it('CONV-RET-02, CONV-RET-08: loom erasure export writes a person\'s turns as JSON lines with progress, loom erasure request erases them (or answers pending with --no-wait), and loom erasure status reads the record', async () => {
    const admin = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const api = new LoomApi(upUrl(), admin);
    for (let i = 0; i < 30; i++) await api.ok('conversation.append', { namespace: 'acme', thread_id: `gdpr-${i % 3}`, msg_id: `g${i}`, role: 'user', content: `turn ${i} of the person`, user_id: 'leaver' });
    const cliEnv = { ...env, LOOM_URL: upUrl(), LOOM_TOKEN: admin };
    const out = join(dataDir, 'leaver.jsonl');
    const exported = await run(process.execPath, [CLI, 'erasure', 'export', '--namespace', 'acme', '--user-id', 'leaver', '--out', out], { env: cliEnv });
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { msg_id: string; user_id: string; deleted: boolean });
    expect(lines).toHaveLength(30);
    expect(lines.every((l) => l.user_id === 'leaver' && !l.deleted)).toBe(true);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(exported.stderr).toContain('exported 30 turn(s) of user leaver in every namespace the token covers (0 tombstoned)');
    const erased = await run(process.execPath, [CLI, 'erasure', 'request', '--namespace', 'acme', '--user-id', 'leaver', '--json'], { env: cliEnv });
    const answer = JSON.parse(erased.stdout) as { erasure_id: string; status: string; erased: { turns: number } };
    expect(answer).toMatchObject({ status: 'done', erased: { turns: 30 } });
    const status = await run(process.execPath, [CLI, 'erasure', 'status', answer.erasure_id, '--namespace', 'acme'], { env: cliEnv });
    expect(status.stdout).toContain(`erasure ${answer.erasure_id} (a person's data): done`);
    expect(status.stdout).toContain('tombstoned: 30 turns, 30 embeddings');
    // Tombstoned turns are still exported, unless --live-only.
    const again = await run(process.execPath, [CLI, 'erasure', 'export', '--namespace', 'acme', '--user-id', 'leaver'], { env: cliEnv });
    expect(again.stdout.trim().split('\n').map((l) => JSON.parse(l) as { deleted: boolean }).every((l) => l.deleted)).toBe(true);
    const live = await run(process.execPath, [CLI, 'erasure', 'export', '--namespace', 'acme', '--user-id', 'leaver', '--live-only'], { env: cliEnv });
    expect(live.stdout).toBe('');
    const later = await run(process.execPath, [CLI, 'erasure', 'request', '--namespace', 'acme', '--user-id', 'someone-else', '--no-wait'], { env: cliEnv });
    expect(later.stdout).toMatch(/: pending\n/);
    expect(later.stdout).toContain('loom erasure status era_');
    const bad = await run(process.execPath, [CLI, 'erasure', 'request', '--namespace', 'acme'], { env: cliEnv }).catch((e: { stderr: string; code: number }) => e);
    expect((bad as { code: number }).code).toBe(1);
    expect((bad as { stderr: string }).stderr).toContain('give exactly one of --user-id (a person) or --namespaces');
  });
});
