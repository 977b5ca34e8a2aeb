import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { RestartableLoomUp, type LoomApi } from '../libs/testing/src';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..');
const SDK = join(ROOT, 'libs', 'sdk');
const TSC = join(dirname(require.resolve('typescript')), '..', 'bin', 'tsc');
const rootVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Packed {
  name: string;
  version: string;
  filename: string;
  files: Array<{ path: string }>;
}

/**
 * The TypeScript SDK used the way another team would: packed into a tarball, installed with no
 * network into a project outside the monorepo, compiled against its declarations with strict
 * settings, and run against a live `loom up`.
 */
describe('the TypeScript SDK as a package [issue 12: SDK tarball]', () => {
  const work = mkdtempSync(join(tmpdir(), 'loom-sdk-e2e-'));
  const admin = `loom_${randomBytes(24).toString('base64url')}`;
  const loomUp = new RestartableLoomUp(join(work, 'data'), admin, { LOOM_CONVERSATION_TITLER_ENABLED: 'false' });
  let api: LoomApi;
  let packed: Packed;

  beforeAll(async () => {
    // `npm pack` in libs/sdk builds the package first (its prepack script).
    const [{ stdout }, started] = await Promise.all([run('npm', ['pack', '--json', '--pack-destination', work], { cwd: SDK }), loomUp.start()]);
    packed = (JSON.parse(stdout) as Packed[])[0]!;
    api = started;
  }, 180_000);

  afterAll(async () => {
    await loomUp.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('[issue 12: SDK tarball] npm pack makes @loom/sdk with its package.json, README, JavaScript and declarations, no sources, tests or dependencies', () => {
    expect(packed).toMatchObject({ name: '@loom/sdk', version: rootVersion });
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/client.d.ts', 'dist/agent.d.ts', 'dist/wire.generated.d.ts']));
    expect(files.filter((f) => !/^(package\.json|README\.md|dist\/[\w.-]+\.(js|d\.ts))$/.test(f))).toEqual([]);
    expect(files.filter((f) => /spec|check/.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest['dependencies']).toBeUndefined();
    expect(manifest['types']).toBe('dist/index.d.ts');
  });

  it('[issue 12: SDK tarball] a project outside the monorepo installs the tarball offline, compiles against its types, and appends, searches and reads a brief on a live loom up', async () => {
    const project = join(work, 'consumer');
    const namespace = `sdk-${randomBytes(3).toString('hex')}`;
    const { token } = await api.ok<{ token: string }>('token.create', { namespace, role: 'admin', label: 'sdk e2e' });
    await run('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', version: '1.0.0', private: true }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, packed.filename)], { cwd: project });
    const installed = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(installed.dependencies)).toEqual(['@loom/sdk']);

    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          // No @types/node: the package's declarations must stand on their own.
          lib: ['ES2022', 'ESNext.Disposable', 'DOM'],
          types: [],
          skipLibCheck: false,
          noEmitOnError: true,
          outDir: 'out',
        },
        files: ['main.ts'],
      }),
    );
    writeFileSync(join(project, 'main.ts'), consumerProgram(api.url, token, namespace));
    await run(process.execPath, [TSC, '-p', project], { cwd: project }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc failed:\n${error.stdout ?? String(error)}`);
    });
    const { stdout } = await run(process.execPath, [join(project, 'out', 'main.js')], { cwd: project, timeout: 60_000 });
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(result).toEqual({
      ops: expect.any(Number),
      stored: [true, true],
      transcript_stored: true,
      search_threads: expect.arrayContaining(['thread-sdk']),
      brief: { brief_key: 'auto/billing/ledger-move', author: 'model', goal: 'Move invoices to the new ledger' },
      listed: ['We moved invoices to the new ledger.', "Noted; I'll update the export job."],
      missing_thread: { status: 404, code: 'not_found' },
    });
    expect(result['ops']).toBeGreaterThan(40);
    // What the program did is in Loom, read back without the SDK.
    const { messages } = await api.ok<{ messages: Array<{ agent: string; user_id: string }> }>('conversation.list', { namespace, thread_id: 'thread-sdk', agent: 'sdk-consumer' });
    expect(messages.map((m) => m.user_id)).toEqual(['u1', 'u1']);
  }, 180_000);
});

/** A small program written as a user of the package would, strict TypeScript against its types. */
function consumerProgram(baseUrl: string, token: string, namespace: string): string {
  return `
import { Agent, createLoomClient, LoomApiError, OP_NAMES, type OpResponses } from '@loom/sdk';

const options = { baseUrl: ${JSON.stringify(baseUrl)}, token: ${JSON.stringify(token)} };
const namespace = ${JSON.stringify(namespace)};
const loom = createLoomClient(options);

// Never called: it only has to compile. If the methods were untyped, these errors would not be
// errors and tsc would fail on the unused @ts-expect-error lines.
export async function typed(): Promise<void> {
  // @ts-expect-error role is one of user, assistant, system, tool
  await loom.conversation.append({ thread_id: 't', role: 'narrator', content: 'x' });
  // @ts-expect-error conversation.search needs a query
  await loom.conversation.search({ namespace });
  const answer = await loom.conversation.append({ thread_id: 't', role: 'user', content: 'x' });
  // @ts-expect-error stored is a boolean
  const wrong: string = answer.stored;
  void wrong;
}

async function main(): Promise<void> {
  await loom.conversation.set_logging({ namespace, enabled: true });
  const bot = new Agent(namespace, 'e2e', 'sdk-consumer', options);
  const session = bot.session('thread-sdk', { user_id: 'u1' });
  const stored = await session.append(
    { role: 'user', content: 'We moved invoices to the new ledger.' },
    { role: 'assistant', content: "Noted; I'll update the export job." },
  );
  let found: OpResponses['conversation.search'] = { hits: [], mode: 'hybrid' };
  for (let i = 0; i < 50 && found.hits.length === 0; i++) {
    found = await bot.search('which ledger do invoices use');
    if (found.hits.length === 0) await new Promise((r) => setTimeout(r, 200));
  }
  await bot.briefs.save({ project: 'billing', branch: 'ledger-move', sections: { goal: 'Move invoices to the new ledger' } });
  const { brief } = await loom.session.brief_get({ namespace, brief_key: 'auto/billing/ledger-move' });
  const listed = await loom.call('conversation.list', { namespace, agent: 'sdk-consumer', thread_id: 'thread-sdk' });
  const missing = await loom.conversation.get({ namespace, thread_id: 'no-such-thread' }).then(
    () => ({ status: 200, code: 'ok' }),
    (error: unknown) => (error instanceof LoomApiError ? { status: error.status, code: error.code } : { status: 0, code: String(error) }),
  );
  await bot.close();
  console.log(JSON.stringify({
    ops: OP_NAMES.length,
    stored: stored.map((a) => a.stored),
    transcript_stored: session.transcript_stored,
    search_threads: found.hits.map((h) => h.thread_id),
    brief: { brief_key: brief.brief_key, author: brief.author, goal: brief.sections.goal },
    listed: listed.messages.map((m) => m.content),
    missing_thread: missing,
  }));
}

main().catch((error: unknown) => {
  console.error(error);
  throw error;
});
`;
}
