import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What storage reports about itself at scrape time. */
export interface StorageHealth {
  activeParts: Record<string, number>;
  mergesRunning: number;
}

/** What an embedder reports about its work at scrape time: the signals operators scale it on. */
export interface EmbedderLoad {
  /** Texts waiting for a provider call slot. */
  queued: number;
  /** Provider calls running now. */
  inFlight: number;
  /** The most provider calls it runs at once (LOOM_EMBEDDER_CONCURRENCY). */
  concurrency: number;
}

/** The Prometheus metrics of one process. One registry per process, served at /metrics. */
export class LoomMetrics {
  readonly registry = new Registry();
  readonly opDuration: Histogram<'op' | 'status'>;
  readonly embedBatchSize: Histogram<string>;
  readonly embedFailures: Counter<'reason'>;
  readonly embedRequestDuration: Histogram<'outcome'>;
  readonly embedProviderDuration: Histogram<'outcome'>;
  readonly embedderQueueDepth: Gauge<string>;
  readonly embedderInFlight: Gauge<string>;
  readonly embedderConcurrency: Gauge<string>;
  readonly appendBatchSize: Histogram<string>;
  readonly appendOutcomes: Counter<'outcome'>;
  readonly writeBehindFlushRows: Histogram<string>;
  readonly writeBehindFlushDuration: Histogram<string>;
  readonly writeQuarantined: Counter<'table'>;
  readonly storageActiveParts: Gauge<'table'>;
  readonly storageMergesRunning: Gauge<string>;
  readonly searchKeptVectors: Gauge<string>;
  readonly searchKeptLoading: Gauge<string>;
  readonly savedSearchLoading: Gauge<string>;
  readonly searchKeptPostings: Gauge<string>;
  readonly titlerOutcomes: Counter<'outcome'>;
  readonly jobOutcomes: Counter<'kind' | 'outcome'>;
  readonly savedOutcomes: Counter<'op' | 'outcome'>;
  readonly llmCalls: Counter<'purpose' | 'outcome'>;
  readonly llmTokens: Counter<'purpose' | 'direction'>;
  readonly llmCost: Counter<'purpose' | 'model'>;
  private storageProbe: (() => Promise<StorageHealth>) | undefined;
  private keptProbe: (() => { rows: number; loading: number }) | undefined;
  private postingsProbe: (() => { postings: number }) | undefined;
  private savedProbe: (() => { loading: number }) | undefined;
  private embedderProbe: (() => EmbedderLoad) | undefined;
  private lastHealth: Promise<StorageHealth | undefined> | undefined;

  constructor(service: string, options: { defaultMetrics?: boolean } = {}) {
    this.registry.setDefaultLabels({ service });
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.opDuration = new Histogram({
      name: 'loom_op_duration_seconds',
      help: 'Latency of one API op, by op and HTTP status',
      labelNames: ['op', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.embedBatchSize = new Histogram({
      name: 'loom_embed_batch_size',
      help: 'Texts sent to the embedding provider in one call (after micro-batching)',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers: [this.registry],
    });
    this.embedFailures = new Counter({
      name: 'loom_embed_failures_total',
      help: 'Embedding calls that failed, by where they failed',
      labelNames: ['reason'],
      registers: [this.registry],
    });
    // Latency buckets for a remote provider: tens of ms to its timeout.
    const embedLatencyBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
    this.embedRequestDuration = new Histogram({
      name: 'loom_embed_batch_duration_seconds',
      help: 'Time the embedder took to answer one loom.embed.batch.v1 request (queue wait and provider calls), by outcome (ok, failed, invalid)',
      labelNames: ['outcome'],
      buckets: embedLatencyBuckets,
      registers: [this.registry],
    });
    this.embedProviderDuration = new Histogram({
      name: 'loom_embed_provider_duration_seconds',
      help: 'Time one call to the embedding provider took (one micro-batch of texts), by outcome (ok, failed)',
      labelNames: ['outcome'],
      buckets: embedLatencyBuckets,
      registers: [this.registry],
    });
    // Read at scrape time from the embedder's batcher; absent (no sample) in a process without one.
    const load = (): EmbedderLoad | undefined => this.embedderProbe?.();
    this.embedderQueueDepth = new Gauge({
      name: 'loom_embedder_queue_depth',
      help: 'Texts waiting in this embedder for a provider call slot (scale out when it stays above 0)',
      registers: [this.registry],
      collect() {
        const l = load();
        if (l) this.set(l.queued);
      },
    });
    this.embedderInFlight = new Gauge({
      name: 'loom_embedder_in_flight',
      help: 'Provider calls this embedder is running now (at most loom_embedder_concurrency)',
      registers: [this.registry],
      collect() {
        const l = load();
        if (l) this.set(l.inFlight);
      },
    });
    this.embedderConcurrency = new Gauge({
      name: 'loom_embedder_concurrency',
      help: 'Provider calls this embedder runs at once at most (LOOM_EMBEDDER_CONCURRENCY)',
      registers: [this.registry],
      collect() {
        const l = load();
        if (l) this.set(l.concurrency);
      },
    });
    this.appendBatchSize = new Histogram({
      name: 'loom_append_batch_rows',
      help: 'Turns written by one transcript insert',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
      registers: [this.registry],
    });
    this.appendOutcomes = new Counter({
      name: 'loom_append_total',
      help: 'Appends by outcome (stored, duplicate, logging_disabled, deleted)',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    this.savedOutcomes = new Counter({
      name: 'loom_saved_messages_total',
      help: 'Saved-message writes by op (save, unsave) and outcome (saved, unsaved, removed, not_found, or the refusal reason)',
      labelNames: ['op', 'outcome'],
      registers: [this.registry],
    });
    this.titlerOutcomes = new Counter({
      name: 'loom_titler_threads_total',
      help: 'Threads a titler pass handled, by outcome (titled, refused, waiting, empty, failed, superseded)',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    this.jobOutcomes = new Counter({
      name: 'loom_jobs_total',
      help: 'Attempts at stored jobs (kind: erasure, memory-extraction) by outcome: done, retry (failed, tried again later) or failed (for the last time; alert on it)',
      labelNames: ['kind', 'outcome'],
      registers: [this.registry],
    });
    this.llmCalls = new Counter({
      name: 'loom_llm_calls_total',
      help: "Loom's own LLM calls, by purpose (titler, ...) and outcome (ok, failed)",
      labelNames: ['purpose', 'outcome'],
      registers: [this.registry],
    });
    this.llmTokens = new Counter({
      name: 'loom_llm_tokens_total',
      help: "Tokens Loom's own LLM calls spent, by purpose and direction (input, output), as the provider reported them",
      labelNames: ['purpose', 'direction'],
      registers: [this.registry],
    });
    this.llmCost = new Counter({
      name: 'loom_llm_cost_usd_total',
      help: "What Loom's own LLM calls cost in US dollars, by purpose and model, at list prices (LOOM_MODEL_PRICES); calls to a model with no price add nothing",
      labelNames: ['purpose', 'model'],
      registers: [this.registry],
    });
    this.writeBehindFlushRows = new Histogram({
      name: 'loom_write_behind_flush_rows',
      help: 'Embedded engine: acknowledged rows one flush of the write-ahead queue moved into storage',
      buckets: [1, 4, 16, 64, 256, 1024, 4096, 16384],
      registers: [this.registry],
    });
    this.writeBehindFlushDuration = new Histogram({
      name: 'loom_write_behind_flush_seconds',
      help: 'Embedded engine: time one flush of the write-ahead queue took (all its inserts)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    this.writeQuarantined = new Counter({
      name: 'loom_write_quarantined_total',
      help: 'Rows the storage engine refused on their own (poison rows), set aside in write_quarantine (or its file) so the rest are stored; see `loom quarantine list`',
      labelNames: ['table'],
      registers: [this.registry],
    });
    // Parts and merges are ClickHouse's health signal: many parts slow reads, and a merge
    // backlog takes the CPU that reads need.
    const readHealth = (): Promise<StorageHealth | undefined> => this.health();
    this.storageActiveParts = new Gauge({
      name: 'loom_storage_active_parts',
      help: "Active ClickHouse parts of each of Loom's tables (read from the engine at scrape time)",
      labelNames: ['table'],
      registers: [this.registry],
      async collect() {
        const health = await readHealth();
        this.reset();
        for (const [table, parts] of Object.entries(health?.activeParts ?? {})) this.set({ table }, parts);
      },
    });
    this.storageMergesRunning = new Gauge({
      name: 'loom_storage_merges_running',
      help: "Background merges running on Loom's tables (read from the engine at scrape time)",
      registers: [this.registry],
      async collect() {
        const health = await readHealth();
        if (health) this.set(health.mergesRunning);
      },
    });
    const readKept = () => this.keptProbe?.();
    this.searchKeptVectors = new Gauge({
      name: 'loom_search_kept_vectors',
      help: 'Embedding rows whose Int8 vectors search keeps in memory to rank namespace-wide vector legs (ADR 0038; LOOM_SEARCH_KEPT_VECTORS bounds it)',
      registers: [this.registry],
      collect() {
        const kept = readKept();
        if (kept) this.set(kept.rows);
      },
    });
    this.searchKeptLoading = new Gauge({
      name: 'loom_search_kept_loading',
      help: "Namespaces whose vectors or postings search is reading into memory now (their searches rank in the engine until it ends)",
      registers: [this.registry],
      collect() {
        const kept = readKept();
        if (kept) this.set(kept.loading);
      },
    });
    const readSaved = () => this.savedProbe?.();
    this.savedSearchLoading = new Gauge({
      name: 'loom_saved_search_loading',
      help: "Background reads saved-message search runs now after a user's first search (ADR 0037): corpora reading their vectors or postings, users whose shown rows are being read; searches meanwhile wait behind their statements",
      registers: [this.registry],
      collect() {
        const saved = readSaved();
        if (saved) this.set(saved.loading);
      },
    });
    const readPostings = () => this.postingsProbe?.();
    this.searchKeptPostings = new Gauge({
      name: 'loom_search_kept_postings',
      help: 'Postings (turn headers and every term of each turn) search keeps in memory to rank namespace-wide lexical legs (ADR 0039, ADR 0041; LOOM_SEARCH_KEPT_POSTINGS bounds it)',
      registers: [this.registry],
      collect() {
        const held = readPostings();
        if (held) this.set(held.postings);
      },
    });
  }

  /** Lets /metrics report the postings search keeps in memory (the gateway wires its KeptPostings here). */
  reportKeptPostings(probe: () => { postings: number }): void {
    this.postingsProbe = probe;
  }

  /** Lets /metrics report saved-message search's background reads (the gateway wires its SavedSearchService here). */
  reportSavedSearch(probe: () => { loading: number }): void {
    this.savedProbe = probe;
  }

  /** Lets /metrics report the vectors search keeps in memory (the gateway wires its KeptVectors here). */
  reportKeptVectors(probe: () => { rows: number; loading: number }): void {
    this.keptProbe = probe;
  }

  /** Lets /metrics report the storage's parts and merges (the gateway wires its storage here). */
  reportStorage(probe: () => Promise<StorageHealth>): void {
    this.storageProbe = probe;
  }

  /** Lets /metrics report the embedder's queue depth and calls in flight (the embedder wires its batcher here). */
  reportEmbedder(probe: () => EmbedderLoad): void {
    this.embedderProbe = probe;
  }

  /** One probe per scrape, shared by both gauges; a failed probe leaves them unset. */
  private health(): Promise<StorageHealth | undefined> {
    if (!this.storageProbe) return Promise.resolve(undefined);
    this.lastHealth ??= this.storageProbe()
      .catch(() => undefined)
      .finally(() => setTimeout(() => (this.lastHealth = undefined), 50).unref());
    return this.lastHealth;
  }
}
