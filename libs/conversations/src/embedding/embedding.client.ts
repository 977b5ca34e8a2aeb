import { Subjects, type EmbedBatchFailure, type EmbedBatchResponse } from '@loom/contracts';
import type { LoomMetrics } from '@loom/platform';
import { TransportError, type RequestClient } from '@loom/transport';

export type EmbedOutcome =
  | { ok: true; model: string; dims: number; vectors: number[][] }
  | { ok: false; reason: 'embedder_unavailable' | 'provider_failed' | typeof EMBED_DEFERRED; message: string };

/**
 * The reason of an embed not tried because the connection to NATS was down: not a failure of
 * the embedder (CONV-EMBED-08 is about those), so the turn's embedding row waits with this
 * reason and is embedded once the connection is back (PendingEmbeddings, ADR 0020).
 */
export const EMBED_DEFERRED = 'deferred_transport_down';

/**
 * The gateway's side of `loom.embed.batch.v1`. Never throws: appends fail open and search falls
 * back, so callers need the failure as a value, with a reason short enough to store on a row.
 */
export class EmbeddingClient {
  constructor(
    private readonly requests: RequestClient,
    private readonly timeoutMs: number,
    private readonly metrics?: LoomMetrics,
  ) {}

  async embed(texts: string[]): Promise<EmbedOutcome> {
    try {
      const answer = await this.requests.request<EmbedBatchResponse | EmbedBatchFailure>(Subjects.embedBatch, { texts }, { timeoutMs: this.timeoutMs });
      if ('error' in answer) {
        this.metrics?.embedFailures.inc({ reason: 'provider_failed' });
        return { ok: false, reason: 'provider_failed', message: answer.error.message };
      }
      if (!Array.isArray(answer.vectors) || answer.vectors.length !== texts.length) {
        this.metrics?.embedFailures.inc({ reason: 'bad_answer' });
        return { ok: false, reason: 'provider_failed', message: 'the embedder answered with the wrong number of vectors' };
      }
      return { ok: true, model: answer.model, dims: answer.dims, vectors: answer.vectors };
    } catch (error) {
      this.metrics?.embedFailures.inc({ reason: error instanceof TransportError ? error.failure : 'transport' });
      if (error instanceof TransportError && error.failure === 'disconnected') return { ok: false, reason: EMBED_DEFERRED, message: error.message };
      const message = error instanceof TransportError ? error.message : 'the embedder could not be reached';
      return { ok: false, reason: 'embedder_unavailable', message };
    }
  }
}
