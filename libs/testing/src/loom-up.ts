import { resolve } from 'node:path';
import { LoomApi } from './api.client';
import { freePort, httpOk, launch, waitFor, type ManagedProcess } from './processes';

/** The built CLI (`npm run build`): crash and replay tests run `loom up` as its own process. */
export const BUILT_CLI = resolve(__dirname, '..', '..', '..', 'dist', 'apps', 'cli', 'src', 'main.js');

/**
 * `loom up` on one data directory that a test kills and starts again (crash and replay tests):
 * each start takes a free port and waits for /readyz; `process` is the one running now.
 */
export class RestartableLoomUp {
  process: ManagedProcess | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly admin: string,
    private readonly env: Record<string, string> = {},
  ) {}

  async start(): Promise<LoomApi> {
    const port = await freePort();
    const env = { LOOM_DATA_DIR: this.dataDir, LOOM_LOG_LEVEL: 'info', LOOM_BOOTSTRAP_ADMIN_TOKEN: this.admin, ...this.env, LOOM_PORT: String(port) };
    const proc = launch('loom up', process.execPath, [BUILT_CLI, 'up'], env);
    this.process = proc;
    await waitFor('loom up', () => httpOk(`http://127.0.0.1:${port}/readyz`), { processes: [proc] });
    return new LoomApi(`http://127.0.0.1:${port}`, this.admin);
  }

  /** The running process; a test that killed or stopped it starts it again first. */
  running(): ManagedProcess {
    if (!this.process) throw new Error('loom up was not started');
    return this.process;
  }

  async stop(): Promise<void> {
    await this.process?.stop();
  }
}
