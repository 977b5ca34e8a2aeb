import { startEmbedder, startGateway, type RunningEmbedder, type RunningGateway } from '@loom/hosts';
import type { Role } from '@loom/contracts';
import { loadConfig, type Logger } from '@loom/platform';
import type { EmbeddingProvider, LlmProvider } from '@loom/providers';
import { randomBytes } from 'node:crypto';
import { LoomApi } from './api.client';
import { uniqueDatabase, workerDataDir } from './storage.harness';

export interface TestLoom {
  url: string;
  /** Called with the bootstrap admin token (every namespace). */
  admin: LoomApi;
  gateway: RunningGateway;
  embedder: RunningEmbedder | undefined;
  /** Mints a token through `token.create` and returns a client that uses it. */
  as(namespace: string, role: Role, extra?: Record<string, unknown>): Promise<LoomApi>;
  /** Turns recording on for a namespace. */
  record(namespace: string): Promise<void>;
  stopEmbedder(): Promise<void>;
  startEmbedder(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The embedded topology in this test process: its own database on the worker's chDB directory,
 * the in-process transport, a real embedder (the given provider, or the configured one) and
 * the HTTP gateway on a free port.
 */
export async function startTestLoom(
  options: { provider?: EmbeddingProvider; llm?: LlmProvider; env?: Record<string, string>; withEmbedder?: boolean; logger?: Logger } = {},
): Promise<TestLoom> {
  const adminToken = 'test-admin-' + randomBytes(16).toString('hex');
  const config = loadConfig({
    LOOM_PORT: '0',
    LOOM_DATA_DIR: workerDataDir(),
    LOOM_CLICKHOUSE_DATABASE: uniqueDatabase(),
    LOOM_BOOTSTRAP_ADMIN_TOKEN: adminToken,
    LOOM_LOG_LEVEL: 'silent',
    LOOM_EMBED_REQUEST_TIMEOUT_MS: '5000',
    // Tests run titler passes themselves (runtime.titler.runOnce).
    LOOM_CONVERSATION_TITLER_INTERVAL_SECONDS: '86400',
    ...options.env,
  });
  const embedderOptions = { ...(options.provider ? { provider: options.provider } : {}), ...(options.logger ? { logger: options.logger } : {}) };
  let embedder: RunningEmbedder | undefined = options.withEmbedder === false ? undefined : await startEmbedder(config, embedderOptions);
  const gateway = await startGateway(config, { ...(options.logger ? { logger: options.logger } : {}), ...(options.llm ? { llm: options.llm } : {}) });
  const admin = new LoomApi(gateway.url, adminToken);
  return {
    url: gateway.url,
    admin,
    gateway,
    get embedder() {
      return embedder;
    },
    as: async (namespace, role, extra = {}) => {
      const created = await admin.ok<{ token: string }>('token.create', { namespace, role, ...extra });
      return admin.withToken(created.token);
    },
    record: async (namespace) => {
      await admin.ok('conversation.set_logging', { namespace, enabled: true });
    },
    stopEmbedder: async () => {
      await embedder?.close();
      embedder = undefined;
    },
    startEmbedder: async () => {
      embedder ??= await startEmbedder(config, embedderOptions);
    },
    close: async () => {
      // Drop before closing: closing releases this process's embedded engine.
      await gateway.runtime.storage.command(`DROP DATABASE IF EXISTS ${gateway.runtime.storage.tables.database}`).catch(() => undefined);
      await gateway.close();
      await embedder?.close();
    },
  };
}
