import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { connect } from 'nats';

/** A free TCP port on loopback (bound and released; the caller binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  /** The last lines it printed (stdout and stderr). */
  output(): string;
  /** Every line it printed that matches `re` (kept unbounded, for error counting). */
  matches(): string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * Spawns a process whose output is kept (bounded) so a failure can show it. Used by the test
 * harness and by the benchmarks (which import this file directly, so the build compiles it).
 */
export function launch(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  options: { watch?: RegExp; onLine?: (line: string) => void } = {},
): ManagedProcess {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const matched: string[] = [];
  let partial = '';
  const keep = (chunk: Buffer): void => {
    const text = partial + chunk.toString();
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      if (!line) continue;
      lines.push(line);
      if (options.watch && options.watch.test(line) && matched.length < 10_000) matched.push(line);
      options.onLine?.(line);
    }
    if (lines.length > 300) lines.splice(0, lines.length - 300);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    name,
    child,
    exited,
    output: () => lines.join('\n'),
    matches: () => [...matched],
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `check` until it is true, or fails with what the processes printed. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs?: number; processes?: ManagedProcess[] } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    for (const p of options.processes ?? []) {
      if (p.child.exitCode !== null) throw new Error(`${p.name} exited (${p.child.exitCode}) while waiting for ${what}:\n${p.output()}`);
    }
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  const logs = (options.processes ?? []).map((p) => `--- ${p.name}\n${p.output()}`).join('\n');
  throw new Error(`timed out waiting for ${what}\n${logs}`);
}

export async function httpOk(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return response.ok;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * nats-server with JetStream on a free loopback port, storing under `storeDir`; resolves once a
 * client connects. Shared by the test harness and the benchmarks.
 */
export async function launchNatsServer(storeDir: string, options: { watch?: RegExp } = {}): Promise<{ server: ManagedProcess; url: string }> {
  const port = await freePort();
  const server = launch('nats-server', 'nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {}, options);
  const url = `nats://127.0.0.1:${port}`;
  await waitFor(
    'nats-server',
    async () => {
      const nc = await connect({ servers: url, reconnect: false, timeout: 500 });
      await nc.close();
      return true;
    },
    { processes: [server], timeoutMs: 20_000 },
  );
  return { server, url };
}
