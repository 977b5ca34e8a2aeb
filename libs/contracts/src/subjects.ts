/**
 * Every NATS subject Loom speaks, defined once. Requests are `loom.<area>.<verb>.v<major>`,
 * events are past tense. A breaking change adds a `.v2` beside the old subject; never rename.
 */
export const Subjects = {
  /** Request/reply: texts in, vectors out. Served by the embedder in queue group `embedder`. */
  embedBatch: 'loom.embed.batch.v1',
  /**
   * Durable work (JetStream, stream `LOOM_WORK`): a gateway stored an erasure request for the
   * erasure service (`ErasureRequestedEvent`, `Nats-Msg-Id` = the erasure id). Acked once the
   * erasure is finished (done or failed for good); the stored request stays the record.
   */
  erasureRequested: 'loom.erasure.requested.v1',
  /**
   * Durable work (JetStream, stream `LOOM_WORK`): a deferred memory extraction to run
   * (`MemoryExtractionRequestedEvent`, `Nats-Msg-Id` = the extraction id). Consumed by the
   * brief condenser when the gateways have LOOM_BRIEFS_RUNS_IN=service.
   */
  memoryExtractionRequested: 'loom.memory.extraction-requested.v1',
  /**
   * Request/reply: run `session.brief_save` (`BriefReviseRequest` in, `BriefReviseReply` out).
   * Served by the brief condenser in queue group `brief-condenser` when the gateways have
   * LOOM_BRIEFS_RUNS_IN=service.
   */
  briefRevise: 'loom.brief.revise.v1',
  /**
   * Request/reply: run `conversation.compact` (`CompactRunRequest` in, `CompactRunReply` out).
   * Served by the compactor in queue group `compactor` when the gateways have
   * LOOM_COMPACTION_RUNS_IN=service.
   */
  compactRun: 'loom.compact.run.v1',
} as const;
export type Subject = (typeof Subjects)[keyof typeof Subjects];

/** The queue group is the consuming service's name, so replicas share the work. */
export const QueueGroups = {
  embedder: 'embedder',
  erasure: 'erasure',
  compactor: 'compactor',
  briefCondenser: 'brief-condenser',
} as const;

/**
 * Work that must not be lost travels on JetStream: one work-queue stream, one durable pull
 * consumer per subject (named after the consuming service, so its replicas share it), explicit
 * acks sent only when the work is done, and deduplication by `Nats-Msg-Id` inside the window.
 * `ackWaitMs` is how long a delivery may go without a sign of life (a consumer working on it
 * says so every third of it) before another replica gets it.
 */
export const DurableWork = {
  stream: 'LOOM_WORK',
  duplicateWindowMs: 10 * 60_000,
  subjects: {
    [Subjects.erasureRequested]: { consumer: QueueGroups.erasure, ackWaitMs: 30_000, maxDeliver: -1 },
    [Subjects.memoryExtractionRequested]: { consumer: QueueGroups.briefCondenser, ackWaitMs: 30_000, maxDeliver: -1 },
  },
} as const;
export type DurableSubject = keyof typeof DurableWork.subjects;

/** Header names carried on every message (W3C trace context plus our correlation id). */
export const Headers = {
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  correlationId: 'loom-correlation-id',
} as const;
