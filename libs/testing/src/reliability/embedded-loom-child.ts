import { freePort, httpOk, launch, waitFor, type ManagedProcess } from '../processes';

export interface EmbeddedLoomChildOptions {
  /** dist/apps/cli/src/main.js */
  cli: string;
  dataDir: string;
  /** Becomes an admin token for every namespace at each start (LOOM_BOOTSTRAP_ADMIN_TOKEN). */
  token: string;
  env?: Record<string, string>;
  /** Node flags before the script, e.g. `--require <fault preload>`. */
  nodeArgs?: string[];
  /** Lines worth keeping beyond the last 300 (errors, replay). */
  watch?: RegExp;
}

/**
 * `loom up` as a child process that can be killed (-9) and started again on the same data
 * directory, as an operator's supervisor would: each start gets a fresh port.
 */
export class EmbeddedLoomChild {
  proc: ManagedProcess | undefined;
  url = '';
  starts = 0;

  constructor(private readonly options: EmbeddedLoomChildOptions) {}

  get token(): string {
    return this.options.token;
  }

  get pid(): number | undefined {
    return this.proc?.child.pid;
  }

  async start(timeoutMs = 120_000): Promise<string> {
    const port = await freePort();
    this.starts += 1;
    this.proc = launch(
      `loom up #${this.starts}`,
      process.execPath,
      [...(this.options.nodeArgs ?? []), this.options.cli, 'up'],
      { LOOM_LOG_LEVEL: 'info', OTEL_TRACES_EXPORTER: 'none', LOOM_TRACES: 'none', ...this.options.env, LOOM_PORT: String(port), LOOM_DATA_DIR: this.options.dataDir, LOOM_BOOTSTRAP_ADMIN_TOKEN: this.options.token },
      this.options.watch ? { watch: this.options.watch } : {},
    );
    this.url = `http://127.0.0.1:${port}`;
    await waitFor('loom up to be ready', () => httpOk(`${this.url}/readyz`), { processes: [this.proc], timeoutMs });
    return this.url;
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed. */
  async kill9(): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
    proc.child.kill('SIGKILL');
    await proc.exited;
  }

  async stop(): Promise<void> {
    await this.proc?.stop();
  }

  output(): string {
    return this.proc?.output() ?? '';
  }

  /** The start-up line of the last start that reports the write-ahead log replay, parsed. */
  replayLine(): { segments?: number; rows?: number; alreadyStored?: number } | undefined {
    const line = this.output()
      .split('\n')
      .find((l) => l.includes('replayed the write-ahead log'));
    if (!line) return undefined;
    try {
      return JSON.parse(line) as { segments?: number; rows?: number; alreadyStored?: number };
    } catch {
      return {};
    }
  }

  async readyz(): Promise<{ status: number; body: string }> {
    try {
      const response = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
      return { status: response.status, body: await response.text() };
    } catch (error) {
      return { status: 0, body: error instanceof Error ? error.message : String(error) };
    }
  }

  async metricsText(): Promise<string> {
    const response = await fetch(`${this.url}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return response.text();
  }
}

/** The value of one unlabelled (or first-labelled) sample in Prometheus text, or undefined. */
export function metricValue(metricsText: string, name: string): number | undefined {
  let total: number | undefined;
  for (const line of metricsText.split('\n')) {
    // A labelled counter is declared before its first sample: declared and never counted is 0.
    if (line.startsWith(`# TYPE ${name} `)) total = total ?? 0;
    if (line.startsWith('#')) continue;
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) total = (total ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}
