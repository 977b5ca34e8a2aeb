/**
 * Every NATS subject Loom speaks, defined once. Requests are `loom.<area>.<verb>.v<major>`,
 * events are past tense. A breaking change adds a `.v2` beside the old subject; never rename.
 */
export const Subjects = {
  /** Request/reply: texts in, vectors out. Served by the embedder in queue group `embedder`. */
  embedBatch: 'loom.embed.batch.v1',
  /**
   * Event: a gateway stored an erasure request for the erasure service (`ErasureRequestedEvent`).
   * A nudge only: the stored request is the work, so a lost event delays it to the next poll.
   */
  erasureRequested: 'loom.erasure.requested.v1',
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
} as const;

/** Header names carried on every message (W3C trace context plus our correlation id). */
export const Headers = {
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  correlationId: 'loom-correlation-id',
} as const;
