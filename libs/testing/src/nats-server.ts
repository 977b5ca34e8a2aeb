import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchNatsServer } from './processes';

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
  const { server, url } = await launchNatsServer(dir);
  return {
    url,
    close: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
