import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { claudeCodeDebugSession, freePort, httpOk, launch, LoomApi, waitFor, type ManagedProcess } from '../libs/testing/src';

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

  it('[issue 12: token list] loom token list shows each token\'s label, role, namespaces, read scope, creation and last use, never a secret; loom token revoke stops one', async () => {
    const cliEnv = { ...env, LOOM_PORT: new URL(upUrl()).port };
    const created = await run(process.execPath, [CLI, 'token', 'create', '--namespace', 'acme', '--role', 'writer', '--label', 'ci bot'], { env: cliEnv });
    const secret = created.stdout.trim();
    const tokenId = /token (tok_\S+) for/.exec(created.stderr)![1]!;
    const unused = await run(process.execPath, [CLI, 'token', 'create', '--namespace', 'acme', '--role', 'viewer', '--read-scope', 'own_user', '--read-user-id', 'ada', '--label', 'never used'], { env: cliEnv });
    const unusedId = /token (tok_\S+) for/.exec(unused.stderr)![1]!;
    await new LoomApi(upUrl(), secret).ok('conversation.append', { thread_id: 'used', role: 'user', content: 'a use of the ci bot token' });
    type Listed = { token_id: string; label: string; role: string; namespaces: string[]; read_scope: string; read_user_id: string | null; created_at: string; last_used_at: string | null; revoked: boolean };
    const adminApi = new LoomApi(upUrl(), readFileSync(join(dataDir, 'admin-token'), 'utf8').trim());
    const viaApi = async (body: object = {}) => (await adminApi.ok('token.list', body)).tokens as Listed[];
    // The use is noted right after the call is authenticated (at most once a minute per token).
    await waitFor('the use to be noted', async () => (await viaApi()).find((t) => t.token_id === tokenId)?.last_used_at != null);
    const tokens = (JSON.parse((await run(process.execPath, [CLI, 'token', 'list', '--json'], { env: cliEnv })).stdout) as { tokens: Listed[] }).tokens;
    expect(tokens.find((t) => t.token_id === tokenId)).toEqual({
      token_id: tokenId, label: 'ci bot', role: 'writer', namespaces: ['acme'], read_scope: 'all', read_user_id: null, read_session_id: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), last_used_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), revoked: false, revoked_at: null,
    });
    expect(tokens.find((t) => t.token_id === unusedId)).toMatchObject({ role: 'viewer', read_scope: 'own_user', read_user_id: 'ada', last_used_at: null });
    // The admin token `loom up` minted is there too, for every namespace.
    expect(tokens.some((t) => t.namespaces.includes('*') && t.role === 'admin' && t.label === 'loom up admin')).toBe(true);
    const table = (await run(process.execPath, [CLI, 'token', 'list', '--namespace', 'acme'], { env: cliEnv })).stdout;
    expect(table.split('\n')[0]).toMatch(/^token_id\s+role\s+namespaces\s+scope\s+created\s+last used\s+label$/);
    expect(table).toMatch(new RegExp(`${unusedId}\\s+viewer\\s+acme\\s+own_user:ada\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}\\s+never\\s+never used`));
    expect(table).not.toContain('loom up admin');
    // Never the secret, nor its hash.
    const everything = JSON.stringify(tokens) + table;
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(createHash('sha256').update(secret).digest('hex'));
    // An op for admins only.
    expect((await new LoomApi(upUrl(), secret).call('token.list', {})).status).toBe(403);

    expect((await run(process.execPath, [CLI, 'token', 'revoke', tokenId], { env: cliEnv })).stdout).toBe(`revoked ${tokenId}\n`);
    expect((await new LoomApi(upUrl(), secret).call('conversation.list', { thread_id: 'used' })).status).toBe(401);
    expect((await viaApi()).some((t) => t.token_id === tokenId)).toBe(false);
    expect((await viaApi({ include_revoked: true })).find((t) => t.token_id === tokenId)).toMatchObject({ revoked: true, revoked_at: expect.stringMatching(/^\d{4}-/) });
    const unknown = await run(process.execPath, [CLI, 'token', 'revoke', 'tok_nope'], { env: cliEnv }).catch((e: { stderr: string; code: number }) => e);
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('no token "tok_nope"') });
    // Each CLI call starts a process: on a loaded machine that is seconds each.
  }, 300_000);

  it('[issue 12: token list without a gateway] with no loom up running, loom token list and revoke work on the data directory', async () => {
    await up?.stop();
    up = undefined;
    const cliEnv = { ...env, LOOM_PORT: String(await freePort()) };
    const created = await run(process.execPath, [CLI, 'token', 'create', '--namespace', 'beta', '--role', 'viewer', '--label', 'offline'], { env: cliEnv });
    const tokenId = /token (tok_\S+) for/.exec(created.stderr)![1]!;
    const listed = JSON.parse((await run(process.execPath, [CLI, 'token', 'list', '--namespace', 'beta', '--json'], { env: cliEnv })).stdout) as { tokens: Array<{ token_id: string; label: string }> };
    expect(listed.tokens).toEqual([expect.objectContaining({ token_id: tokenId, label: 'offline', last_used_at: null })]);
    await run(process.execPath, [CLI, 'token', 'revoke', tokenId], { env: cliEnv });
    expect((await run(process.execPath, [CLI, 'token', 'list', '--namespace', 'beta'], { env: cliEnv })).stdout).toBe('no tokens\n');
  }, 180_000);

  it('[issue 12: loom up flags] loom up --port --data-dir override LOOM_PORT and LOOM_DATA_DIR; a bad --port is refused', async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'loom-cli-flags-'));
    try {
      const port = await freePort();
      // The environment names the suite's directory and another port: the flags win.
      const p = launch('loom up --port --data-dir', process.execPath, [CLI, 'up', '--port', String(port), '--data-dir', otherDir], { ...env, LOOM_PORT: String(await freePort()) });
      try {
        await waitFor('loom up on the --port', () => httpOk(`http://127.0.0.1:${port}/readyz`), { processes: [p] });
        await waitFor('the start-up banner', async () => p.output().includes('stop: Ctrl-C'), { processes: [p] });
        expect(p.output()).toContain(`Loom is up at http://127.0.0.1:${port}`);
        expect(p.output()).toContain(`embedded chDB in ${otherDir}`);
        const admin = readFileSync(join(otherDir, 'admin-token'), 'utf8').trim();
        expect((await new LoomApi(`http://127.0.0.1:${port}`, admin).call('conversation.threads', { namespace: 'acme' })).status).toBe(200);
      } finally {
        await p.stop();
      }
      const bad = await run(process.execPath, [CLI, 'up', '--port', 'eighty'], { env }).catch((e: { stderr: string; code: number }) => e);
      expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining('--port must be a whole number from 0 to 65535, not "eighty"') });
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('loom CLI without a gateway', () => {
  const work = mkdtempSync(join(tmpdir(), 'loom-cli-files-'));
  // No gateway answers here: a refused file must fail before anything is sent.
  const env = { ...process.env, LOOM_URL: 'http://127.0.0.1:9', LOOM_TOKEN: 'loom_unused', LOOM_LOG_LEVEL: 'warn' };
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const ingest = (...args: string[]) => run(process.execPath, [CLI, 'ingest-transcript', '--namespace', 'acme', ...args], { env }).then(
    (ok) => ({ code: 0, ...ok }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

  it('[issue 12: loom --version] loom --version and -V print the version in package.json', async () => {
    const { version } = JSON.parse(readFileSync(resolve(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    expect((await run(process.execPath, [CLI, '--version'])).stdout).toBe(`${version}\n`);
    expect((await run(process.execPath, [CLI, '-V'])).stdout).toBe(`${version}\n`);
  }, 180_000);

  it('CLI-INGEST-01 [issue 12: not a transcript] /etc/passwd (read as Markdown) exits non-zero naming the format tried, and sends nothing', async () => {
    const refused = await ingest('--file', '/etc/passwd');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('/etc/passwd is not a markdown transcript (detected from its name and first line)');
    expect(refused.stderr).toContain('no turn was read and nothing was sent');
    expect(refused.stdout).toBe('');
  }, 180_000);

  it('CLI-INGEST-02 [issue 12: malformed file] JSON lines that are no client\'s transcript, an empty JSON array, a broken first line: each refused, naming the format', async () => {
    const lines = join(work, 'notes.jsonl');
    writeFileSync(lines, '{"hello":"world"}\n{"n":2}\n');
    expect(await ingest('--file', lines)).toMatchObject({ code: 1, stderr: expect.stringContaining('notes.jsonl is not a claude-code transcript (detected from its name and first line)') });
    const empty = join(work, 'empty.json');
    writeFileSync(empty, '[]');
    expect(await ingest('--file', empty)).toMatchObject({ code: 1, stderr: expect.stringContaining('empty.json is not a json transcript') });
    const broken = join(work, 'broken.jsonl');
    writeFileSync(broken, '{"type": "user", "mess\n');
    expect(await ingest('--file', broken)).toMatchObject({ code: 1, stderr: expect.stringContaining('the first line is neither a JSON array nor a JSON object; give --format') });
    // A dry run refuses it too: it would append nothing.
    expect(await ingest('--file', lines, '--dry-run')).toMatchObject({ code: 1, stderr: expect.stringContaining('is not a claude-code transcript') });
  }, 180_000);

  it('CLI-INGEST-03 [issue 12: wrong --format] a Claude Code session given as --format codex is refused, naming codex; the right format reads it', async () => {
    const file = join(work, 'session.jsonl');
    writeFileSync(file, claudeCodeDebugSession().text);
    const wrong = await ingest('--file', file, '--format', 'codex');
    expect(wrong).toMatchObject({ code: 1, stderr: expect.stringContaining('session.jsonl is not a codex transcript (as --format said)') });
    expect(wrong.stderr).toContain('give the right --format (markdown, json, claude-code, codex, cursor)');
    // Every target refuses a file that yields nothing, not only the transcript.
    expect(await ingest('--file', '/etc/passwd', '--target', 'run')).toMatchObject({ code: 1, stderr: expect.stringContaining('is not a markdown transcript') });
    const right = await ingest('--file', file, '--format', 'claude-code', '--dry-run');
    expect(right).toMatchObject({ code: 0, stdout: expect.stringMatching(/^would append 7 turn\(s\) \(claude-code\)/) });
  }, 180_000);
});
