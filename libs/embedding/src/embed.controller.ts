import { Controller, Inject, Logger } from '@nestjs/common';
import type { Span } from '@opentelemetry/api';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import {
  EmbedBatchRequest,
  Headers as WireHeaders,
  LoomError,
  Subjects,
  validateInput,
  type EmbedBatchFailure,
  type EmbedBatchResponse,
} from '@loom/contracts';
import { inSpan, withExtractedContext, type LoomMetrics } from '@loom/platform';
import { headersFromContext } from '@loom/transport';
import { EmbedBatcher } from './embed.batcher';
import { EMBED_BATCHER, EMBEDDER_METRICS } from './tokens';

/** Room under NATS's default 1 MiB payload for the packet framing around the reply. */
const MAX_REPLY_BYTES = 1024 * 1024 - 16 * 1024;

/** Adapter for `loom.embed.batch.v1`: validate, embed, answer. Failures are answered in-band. */
@Controller()
export class EmbedController {
  private readonly logger = new Logger('embedder');

  constructor(
    @Inject(EMBED_BATCHER) private readonly batcher: EmbedBatcher,
    @Inject(EMBEDDER_METRICS) private readonly metrics: LoomMetrics,
  ) {}

  @MessagePattern(Subjects.embedBatch)
  async embed(@Payload() payload: unknown, @Ctx() ctx: unknown): Promise<EmbedBatchResponse | EmbedBatchFailure> {
    const headers = headersFromContext(ctx, [WireHeaders.traceparent, WireHeaders.tracestate, WireHeaders.correlationId]);
    return withExtractedContext(headers, () =>
      inSpan('embed.batch', { 'messaging.destination': Subjects.embedBatch }, async (span) => {
        const done = this.metrics.embedRequestDuration.startTimer();
        const answer = await this.serve(payload, headers, span);
        done({ outcome: 'error' in answer ? (answer.error.code === 'invalid_input' ? 'invalid' : 'failed') : 'ok' });
        return answer;
      }),
    );
  }

  private async serve(payload: unknown, headers: Record<string, string>, span: Span): Promise<EmbedBatchResponse | EmbedBatchFailure> {
    let request: EmbedBatchRequest;
    try {
      request = validateInput(EmbedBatchRequest, payload);
    } catch (error) {
      const message = error instanceof LoomError ? error.message : 'invalid payload';
      this.logger.warn(`refused an invalid ${Subjects.embedBatch} payload: ${message}`);
      return { error: { code: 'invalid_input', message, retryable: false } };
    }
    span.setAttribute('loom.texts', request.texts.length);
    try {
      const vectors = await this.batcher.embed(request.texts);
      const answer: EmbedBatchResponse = { model: this.batcher.model, dims: vectors[0]?.length ?? this.batcher.dims, vectors };
      // A reply over the NATS payload limit would fail inside the transport, with no answer at all.
      // Counted exactly only when it may be over: no JSON number is longer than 24 characters and
      // its comma, so most replies are known to fit without writing them out.
      const bound = 128 + answer.model.length * 6 + vectors.reduce((sum, v) => sum + 3 + v.length * 25, 0);
      const bytes = bound <= MAX_REPLY_BYTES ? bound : Buffer.byteLength(JSON.stringify(answer));
      if (bytes > MAX_REPLY_BYTES) {
        return {
          error: { code: 'invalid_input', message: `${request.texts.length} vectors make a ${bytes}-byte reply, over ${MAX_REPLY_BYTES}; send fewer texts per request`, retryable: false },
        };
      }
      return answer;
    } catch (error) {
      this.metrics.embedFailures.inc({ reason: 'provider' });
      const retryable = (error as { retryable?: boolean }).retryable ?? true;
      const message = error instanceof Error ? error.message : 'the embedding provider failed';
      // Counts and the error's message only: the texts never reach a log line.
      this.logger.warn(`embedding provider failed for ${request.texts.length} texts (correlation id ${headers[WireHeaders.correlationId] ?? 'none'}): ${message}`);
      return { error: { code: 'provider_failed', message, retryable } };
    }
  }
}
