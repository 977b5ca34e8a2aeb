import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

// Test and development tooling, never a production path: runs a TypeScript entry in a child
// `node` through ts-register.js (transpile-on-require, no build). Tests need this because chDB
// binds one data directory per process and a jest worker may already hold one; topology tests
// need it to run several services side by side. The child is expected to write JSON lines to
// stdout; the first line that satisfies `readyWhen` marks it as started.

export const TS_REGISTER_PATH = path.join(__dirname, 'ts-register.js');

export interface SpawnTsProcessOptions {
  /** Entry file (.ts, or .js); absolute or relative to cwd. */
  entry: string;
  args?: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Decides from a parsed stdout JSON line that the child is ready. Default: the first JSON line. */
  readyWhen?: (line: Record<string, unknown>) => boolean;
  /** Default 30 s. */
  readyTimeoutMs?: number;
  /** Sees every stdout JSON line (for example to forward logs). */
  onLine?: (line: Record<string, unknown>) => void;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface TsChildProcess {
  child: ChildProcess;
  pid: number;
  /** The line that satisfied readyWhen. */
  ready: Record<string, unknown>;
  /** Every stdout JSON line so far. */
  lines: Record<string, unknown>[];
  /** stderr so far, and stdout lines that were not JSON. */
  output(): string;
  exited: Promise<ExitStatus>;
  /** Sends `signal` (default SIGTERM); SIGKILL if the child is still running after `killAfterMs` (default 15 s). */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<ExitStatus>;
}

export function spawnTsProcess(options: SpawnTsProcessOptions): Promise<TsChildProcess> {
  // The loader is only needed for TypeScript entries (a built .js entry runs as is).
  const loader = /\.[cm]?ts$/.test(options.entry) ? ['-r', TS_REGISTER_PATH] : [];
  const child = spawn(process.execPath, [...loader, options.entry, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    // The IPC channel lets the child notice when this process dies (see runDevClickHouseMain).
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const lines: Record<string, unknown>[] = [];
  let other = '';
  const exited = new Promise<ExitStatus>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  return new Promise<TsChildProcess>((resolve, reject) => {
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      const json = lines.map((l) => JSON.stringify(l)).join('\n');
      reject(new Error(`${why}\n--- child stdout (JSON lines) ---\n${json}\n--- other child output ---\n${other}`));
    };
    const timer = setTimeout(() => fail(`child ${options.entry} not ready within ${options.readyTimeoutMs ?? 30_000} ms`), options.readyTimeoutMs ?? 30_000);
    const handle: Omit<TsChildProcess, 'ready'> = {
      child,
      pid: child.pid ?? -1,
      lines,
      output: () => other,
      exited,
      stop: async (signal = 'SIGTERM', killAfterMs = 15_000) => {
        if (child.exitCode !== null || child.signalCode !== null) return exited;
        child.kill(signal);
        const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        const status = await exited;
        clearTimeout(killer);
        return status;
      },
    };
    let pending = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) !== -1) {
        const text = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        let line: Record<string, unknown> | undefined;
        try {
          const parsed: unknown = JSON.parse(text);
          if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) line = parsed as Record<string, unknown>;
        } catch {
          /* not JSON */
        }
        if (line === undefined) {
          other += `${text}\n`;
          continue;
        }
        lines.push(line);
        options.onLine?.(line);
        if (!settled && (options.readyWhen ?? (() => true))(line)) {
          settled = true;
          clearTimeout(timer);
          resolve({ ...handle, ready: line });
        }
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      other += chunk;
    });
    child.once('error', (e) => fail(`could not start child: ${e.message}`));
    void exited.then((s) => fail(`child ${options.entry} exited before it was ready (code ${s.code}, signal ${s.signal})`));
  });
}
