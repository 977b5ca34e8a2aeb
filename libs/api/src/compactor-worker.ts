import { Storage } from '@loom/clickhouse';
import { CompactRunRequest, CompactThreadRequest, Headers as WireHeaders, LoomError, QueueGroups, Subjects, validateInput, type CompactRunReply } from '@loom/contracts';
import { CompactionService, EmbeddingClient, StorageCheckedFence, ThreadLeases } from '@loom/conversations';
import { NatsKvLeaseManager } from '@loom/leases';
import { createLogger, flushTracing, inSpan, installTracing, LoomMetrics, withExtractedContext, type Logger, type LoomConfig } from '@loom/platform';
import { MeteredLlm, ModelPrices, type LlmProvider } from '@loom/providers';
import { NatsRequestClient } from '@loom/transport';
import { JSONCodec, type Msg } from 'nats';
import { serveWorkerMetrics } from './http/metrics-server';
import { reportQuarantined } from './quarantine-report';
import { configuredLlm } from './titler';

const codec = JSONCodec<Record<string, unknown>>();

export interface RunningCompactor {
  close(): Promise<void>;
}

/**
 * The compactor as its own process (split topology, LOOM_COMPACTION_RUNS_IN=service): it serves
 * `loom.compact.run.v1` in queue group `compactor`, so replicas share the requests, and answers
 * what conversation.compact would have, errors included. Thread leases on NATS KV keep it from
 * racing appends and deletes on other processes. /metrics on its own port.
 */
export async function startCompactorService(config: LoomConfig, options: { logger?: Logger; llm?: LlmProvider; serveMetricsOnPort?: number } = {}): Promise<RunningCompactor> {
  installTracing(config.traces, 'loom-compactor');
  const logger = options.logger ?? createLogger('compactor', config.logLevel);
  const metrics = new LoomMetrics('compactor');
  if (!config.natsUrl) throw new Error('the compactor needs LOOM_NATS_URL: it serves loom.compact.run.v1 (for one process with everything in it, run `loom up`)');
  const requests = await NatsRequestClient.connect(config.natsUrl, 'loom-compactor');
  // The summary's rows go through the append path's quarantine: count and log them here too.
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir, onQuarantine: reportQuarantined(metrics, logger) });
  const llm = new MeteredLlm(options.llm ?? configuredLlm(config), 'summarizer', { metrics, prices: new ModelPrices(config.modelPrices) });
  const compaction = new CompactionService(
    storage,
    new EmbeddingClient(requests, config.embedRequestTimeoutMs, metrics),
    llm,
    new ThreadLeases(new NatsKvLeaseManager(requests.connection)),
    // Other processes append to these threads: only storage knows whether a thread changed.
    new StorageCheckedFence(),
    { metrics, logger },
  );
  const serve = async (message: Msg): Promise<CompactRunReply> => {
    const packet = codec.decode(message.data) as { data?: unknown };
    let run: CompactRunRequest;
    let input: CompactThreadRequest;
    try {
      run = validateInput(CompactRunRequest, packet.data);
      input = validateInput(CompactThreadRequest, run.request);
    } catch (error) {
      const e = error instanceof LoomError ? error : new LoomError('invalid_input', 'invalid payload');
      logger.warn({ err: e.message }, `refused an invalid ${Subjects.compactRun} payload`);
      return { ok: false, error: { code: e.code, message: e.message, ...(e.fields ? { fields: e.fields } : {}) } };
    }
    try {
      const response = await compaction.compact(run.namespace, run.agent, input);
      logger.info({ namespace: run.namespace, thread_id: input.thread_id, compacted: response.compacted, messages_summarized: response.messages_summarized, reason: response.reason ?? null }, 'compaction done');
      return { ok: true, response };
    } catch (error) {
      if (error instanceof LoomError) return { ok: false, error: { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}) } };
      logger.error({ err: error, namespace: run.namespace, thread_id: input.thread_id }, 'compaction failed');
      return { ok: false, error: { code: 'internal', message: 'the compaction failed in the compactor; nothing was changed where it failed, and a retry is safe' } };
    }
  };
  const subscription = requests.connection.subscribe(Subjects.compactRun, {
    queue: QueueGroups.compactor,
    callback: (_error, message) => {
      const headers: Record<string, string> = {};
      for (const name of [WireHeaders.traceparent, WireHeaders.tracestate, WireHeaders.correlationId]) {
        const value = message.headers?.get(name);
        if (value) headers[name] = value;
      }
      const packet = codec.decode(message.data) as { id?: string };
      void withExtractedContext(headers, () => inSpan('compact.run', { 'messaging.destination': Subjects.compactRun }, () => serve(message))).then((reply) =>
        message.respond(codec.encode({ id: packet.id, response: reply })),
      );
    },
  });
  const metricsServer = await serveWorkerMetrics(metrics, options.serveMetricsOnPort, config.host, logger, 'LOOM_COMPACTOR_METRICS_PORT', {
    nats: () => requests.ping(),
    storage: () => storage.ping(),
  });
  if (llm.name === 'fake') logger.warn('the compactor has only the fake LLM: every conversation.compact answers not_configured (set LOOM_LLM_BASE_URL and LOOM_LLM_MODEL)');
  logger.info({ metrics_port: options.serveMetricsOnPort ?? null, llm: llm.name, model: llm.model }, 'compactor serving');
  return {
    close: async () => {
      // Answer what is in hand before going.
      await subscription.drain();
      await metricsServer?.close();
      await storage.close();
      await requests.close();
      await flushTracing();
    },
  };
}
