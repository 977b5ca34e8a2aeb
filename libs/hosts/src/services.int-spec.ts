import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryExtractionRequestedEvent, QueueGroups, Subjects, type MemoryExtractionRequestedEvent as ExtractionEvent } from '@loom/contracts';
import { EmbeddingClient } from '@loom/conversations';
import { NatsKvLeaseManager } from '@loom/leases';
import { MemoryService } from '@loom/memory';
import { createLogger, LoomMetrics } from '@loom/platform';
import type { LlmProvider, LlmRequest, LlmResponse } from '@loom/providers';
import { InProcessRequestClient, NatsLink, NatsRequestClient } from '@loom/transport';
import { launch, openTestStorage, sleep, uniqueNamespace, waitFor, type ManagedProcess } from '../../testing/src';
import { BriefCondenserController } from './brief-condenser/brief-condenser.controller';
import { startEmbedder, type RunningEmbedder } from './embedder/embedder.host';
import { durablePublisher } from './shared/durable-publisher';
import { serviceModule, serviceReadiness, startService, type RunningService } from './shared/service-host';
import { BRIEFS, HOST_LOGGER, MEMORY } from './shared/tokens';

/** Ports of this suite's own servers (a range of their own, so a restart gets the same port back). */
const PORTS = { nats: 47_101, embedderHealth: 47_102, condenserA: 47_103, condenserB: 47_104, nats2: 47_111 };

/** A nats-server with JetStream on a fixed port and store, which can be stopped and started again. */
function ownNats(port: number) {
  const dir = mkdtempSync(join(tmpdir(), 'loom-services-nats-'));
  let server: ManagedProcess | undefined;
  const url = `nats://127.0.0.1:${port}`;
  return {
    url,
    start: async () => {
      server = launch(`nats-${port}`, 'nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], {});
      const started = server;
      await waitFor('nats-server', async () => started.output().includes('Server is ready'), { processes: [started], timeoutMs: 20_000 });
    },
    stop: async () => server?.stop(),
    close: async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const quietConfig = { host: '127.0.0.1', logLevel: 'silent', traces: { mode: 'none' as const } };
const embedderConfig = { maxBatch: 64, lingerMs: 0, concurrency: 4, metricsPort: 0 };
const hashed = { provider: 'hashed' as const, baseUrl: undefined, model: undefined, apiKey: undefined, dims: undefined, timeoutMs: 10_000 };

describe('[issue 11: one shape] services on NATS: one connection policy', () => {
  const nats = ownNats(PORTS.nats);
  let embedder: RunningEmbedder;
  let caller: NatsRequestClient;
  beforeAll(async () => {
    await nats.start();
    embedder = await startEmbedder({ ...quietConfig, natsUrl: nats.url, embeddings: hashed, embedder: embedderConfig }, { serveMetricsOnPort: PORTS.embedderHealth });
    caller = await NatsRequestClient.connect(nats.url, 'test-caller');
  }, 60_000);
  afterAll(async () => {
    await caller?.close();
    await embedder?.close();
    await nats.close();
  });

  const readyz = async () => {
    const response = await fetch(`${embedder.url}/readyz`);
    return { status: response.status, body: (await response.json()) as { checks: Record<string, boolean>; reasons?: Record<string, string> } };
  };
  const metric = async (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\d+)`, 'm').exec(await (await fetch(`${embedder.url}/metrics`)).text())?.[1] ?? NaN);

  it('[issue 11: reconnect forever] an embedder outlives a 15 s NATS outage: not ready (and loom_nats_connected 0) while NATS is down, then ready and serving again with no restart', async () => {
    expect((await caller.request<{ vectors: number[][] }>(Subjects.embedBatch, { texts: ['before the outage'] }, { timeoutMs: 5_000 })).vectors).toHaveLength(1);
    expect(await readyz()).toMatchObject({ status: 200, body: { checks: { nats: true } } });
    expect(await metric('loom_nats_connected')).toBe(1);

    const downAt = Date.now();
    await nats.stop();
    await waitFor('the embedder to say it is not ready', async () => (await readyz()).status === 503, { timeoutMs: 10_000 });
    const down = await readyz();
    expect(down.body.checks.nats).toBe(false);
    expect(down.body.reasons?.['nats']).toContain('reconnecting');
    expect(await metric('loom_nats_connected')).toBe(0);
    expect((await fetch(`${embedder.url}/healthz`)).status).toBe(200);
    // Longer than the client's default of ~10 tries 2 s apart, after which it would give up.
    await sleep(Math.max(0, 15_000 - (Date.now() - downAt)));
    await nats.start();

    await waitFor('the embedder to be ready again', async () => (await readyz()).status === 200, { timeoutMs: 20_000 });
    expect(await metric('loom_nats_connected')).toBe(1);
    expect(await metric('loom_nats_reconnects_total')).toBeGreaterThanOrEqual(1);
    // The same process serves again: its queue subscription came back with the connection.
    await waitFor('an embed to be answered', async () => (await caller.request<{ vectors: number[][] }>(Subjects.embedBatch, { texts: ['after the outage'] }, { timeoutMs: 2_000 })).vectors.length === 1, {
      timeoutMs: 20_000,
    });
  }, 90_000);
});

/** An LLM whose calls hang until `release` (a replica that dies mid-call), or answer facts at once. */
class ScriptedLlm implements LlmProvider {
  readonly name = 'scripted';
  readonly model = 'scripted-1';
  calls: string[] = [];
  constructor(private readonly hang: boolean) {}
  complete(req: LlmRequest): Promise<LlmResponse> {
    this.calls.push(req.messages.map((m) => m.content).join('\n'));
    if (this.hang) return new Promise<LlmResponse>(() => undefined);
    return Promise.resolve({ text: '- the ledger moved to v2\n- invoices export nightly' });
  }
}

describe('[issue 11: durable events] deferred extractions on JetStream (loom.memory.extraction-requested.v1)', () => {
  const nats = ownNats(PORTS.nats2);
  let storage: Awaited<ReturnType<typeof openTestStorage>>;
  let embedder: RunningEmbedder;
  const running: Array<{ service: RunningService; link: NatsLink }> = [];
  const logger = createLogger('test', process.env['LOOM_TEST_DEBUG'] ? 'debug' : 'silent');
  beforeAll(async () => {
    await nats.start();
    storage = await openTestStorage();
    // The embedder on the process hub: the extraction's facts get their vectors from it.
    embedder = await startEmbedder({ ...quietConfig, natsUrl: undefined, embeddings: hashed, embedder: embedderConfig });
  }, 60_000);
  afterAll(async () => {
    for (const r of running) await r.service.close().catch(() => undefined);
    for (const r of running) await r.link.close().catch(() => undefined);
    await embedder?.close();
    await storage?.drop();
    await nats.close();
  });

  /** One brief-condenser replica: its own connection, leases on NATS KV (3 s TTL), the real controller and strategy. */
  const replica = async (llm: LlmProvider, port: number) => {
    const link = await NatsLink.connect(nats.url, `condenser-${port}`);
    const metrics = new LoomMetrics('brief-condenser', { defaultMetrics: false });
    const memory = new MemoryService(storage, new EmbeddingClient(new InProcessRequestClient(), 10_000, metrics), llm, { logger }, {
      leases: new NatsKvLeaseManager(link.connection, undefined, 3_000),
      // No poll in the window of this test: JetStream alone delivers the work.
      options: { pollMs: 3_600_000, retryBaseMs: 500, maxAttempts: 5 },
    });
    const service = await startService({
      module: serviceModule('BriefCondenser', {
        controllers: [BriefCondenserController],
        providers: [
          { provide: BRIEFS, useValue: {} },
          { provide: MEMORY, useValue: memory },
          { provide: HOST_LOGGER, useValue: logger },
        ],
        readiness: serviceReadiness(link, storage),
        metrics,
      }),
      logger,
      metrics,
      port,
      host: '127.0.0.1',
      transport: { link, options: { queue: QueueGroups.briefCondenser, durable: { [Subjects.memoryExtractionRequested]: MemoryExtractionRequestedEvent }, ackWaitMs: 3_000, gracePeriodMs: 500 } },
    });
    running.push({ service, link });
    return { service, link, memory };
  };

  it('a replica killed mid-extraction leaves its delivery unacked: another replica finishes it, once in effect (one set of facts, one model call that finished, status done after 1 attempt)', async () => {
    const ns = uniqueNamespace();
    // The gateway's side: store the extraction, hand it over durably.
    const gatewayLink = await NatsLink.connect(nats.url, 'gateway');
    const gateway = new MemoryService(storage, new EmbeddingClient(new InProcessRequestClient(), 10_000), new ScriptedLlm(false), { logger }, {
      runs: 'elsewhere',
      notify: (event: ExtractionEvent) => durablePublisher(gatewayLink, logger)(Subjects.memoryExtractionRequested, event, event.extraction_id),
    });
    const dying = new ScriptedLlm(true);
    const a = await replica(dying, PORTS.condenserA);
    const accepted = await gateway.setFromMessages(ns, { messages: [{ role: 'user', content: `we moved the ledger ${ns}` }], defer: true });
    expect(accepted.deferred).toBe(true);
    await waitFor('replica A to take the work and call the model', async () => dying.calls.length === 1, { timeoutMs: 20_000 });

    // Replica A dies mid-call: its connection goes without a word (no ack, no nak, no release).
    a.link.connection.close().catch(() => undefined);
    const survivor = new ScriptedLlm(false);
    await replica(survivor, PORTS.condenserB);

    const status = () => gateway.extractionStatus(ns, accepted.extraction_id);
    await waitFor('replica B to finish the extraction', async () => (await status()).status === 'done', { timeoutMs: 30_000 });
    expect(await status()).toMatchObject({ status: 'done', facts: 2, attempts: 1 });
    expect(survivor.calls).toHaveLength(1);
    // Redelivered again or not, nothing runs twice: the record says done, and the facts are stored once.
    await sleep(4_000);
    expect(survivor.calls).toHaveLength(1);
    const [facts] = await storage.query<{ n: string }>(`SELECT count() AS n FROM ${storage.tables.memories} WHERE namespace = {ns:String}`, { ns });
    expect(Number(facts!.n)).toBe(2);
    // The stream holds nothing more for this work: it was acked once done.
    const info = await (await gatewayLink.connection.jetstreamManager()).consumers.info('LOOM_WORK', QueueGroups.briefCondenser);
    expect(info.num_pending + info.num_ack_pending).toBe(0);
    await gatewayLink.close();
  }, 90_000);

  it('a payload that fails its contract is terminated, never retried; the same work published twice (same Nats-Msg-Id) is delivered once', async () => {
    // Replica B of the test above still serves.
    const link = await NatsLink.connect(nats.url, 'publisher');
    const js = link.connection.jetstream();
    const bad = await js.publish(Subjects.memoryExtractionRequested, JSON.stringify({ namespace: 'Bad Namespace!', extraction_id: '' }), { msgID: 'bad-1' });
    expect(bad.duplicate).toBe(false);
    const first = await js.publish(Subjects.memoryExtractionRequested, JSON.stringify({ namespace: 'dedup', extraction_id: 'ext_missing' }), { msgID: 'ext_missing' });
    const again = await js.publish(Subjects.memoryExtractionRequested, JSON.stringify({ namespace: 'dedup', extraction_id: 'ext_missing' }), { msgID: 'ext_missing' });
    expect([first.duplicate, again.duplicate]).toEqual([false, true]);
    const jsm = await link.connection.jetstreamManager();
    await waitFor('both deliveries to settle', async () => {
      const info = await jsm.consumers.info('LOOM_WORK', QueueGroups.briefCondenser);
      return info.num_pending + info.num_ack_pending === 0;
    }, { timeoutMs: 20_000 });
    await link.close();
  }, 60_000);
});
