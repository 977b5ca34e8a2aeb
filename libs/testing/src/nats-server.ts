import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort, launch, waitFor } from './processes';

export interface TestNats {
  url: string;
  close(): Promise<void>;
}

/**
 * A NATS server with JetStream for one suite (LOOM_TEST_NATS_URL instead, when set). A private
 * server keeps suites from answering each other's requests on the shared subjects.
 */
export async function startTestNats(): Promise<TestNats> {
  const external = process.env['LOOM_TEST_NATS_URL'];
  if (external) return { url: external, close: async () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'loom-nats-'));
  const port = await freePort();
  const server = launch('nats-server', 'nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], {});
  const url = `nats://127.0.0.1:${port}`;
  await waitFor(
    'nats-server',
    async () => {
      const nc = await connect({ servers: url, reconnect: false, timeout: 500 });
      await nc.close();
      return true;
    },
    { processes: [server], timeoutMs: 15_000 },
  );
  return {
    url,
    close: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
