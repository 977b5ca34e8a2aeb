import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { BriefReviseRequest, BriefSaveRequest, Headers as WireHeaders, Subjects, validateInput, type BriefReviseReply, type MemoryExtractionRequestedEvent } from '@loom/contracts';
import type { BriefScope, BriefsService } from '@loom/briefs';
import type { MemoryService } from '@loom/memory';
import { inSpan, withExtractedContext, type Logger } from '@loom/platform';
import { headersFromContext, RetryLater } from '@loom/transport';
import { answerOp, refused } from '../shared/op-reply';
import { runStoredJob } from '../shared/stored-job-delivery';
import { BRIEFS, HOST_LOGGER, MEMORY } from '../shared/tokens';

/**
 * The brief condenser's subjects:
 * - `loom.brief.revise.v1` (request/reply): one session.brief_save, answered as the op would be;
 * - `loom.memory.extraction-requested.v1` (durable): one deferred extraction, acked once done.
 */
@Controller()
export class BriefCondenserController {
  constructor(
    @Inject(BRIEFS) private readonly briefs: BriefsService,
    @Inject(MEMORY) private readonly memory: MemoryService,
    @Inject(HOST_LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern(Subjects.briefRevise)
  async revise(@Payload() payload: unknown, @Ctx() ctx: unknown): Promise<BriefReviseReply> {
    const headers = headersFromContext(ctx, [WireHeaders.traceparent, WireHeaders.tracestate, WireHeaders.correlationId]);
    return withExtractedContext(headers, () =>
      inSpan('brief.revise', { 'messaging.destination': Subjects.briefRevise }, async () => {
        let run: BriefReviseRequest;
        let input: BriefSaveRequest;
        try {
          run = validateInput(BriefReviseRequest, payload);
          input = validateInput(BriefSaveRequest, run.request);
        } catch (error) {
          return refused(error, Subjects.briefRevise, this.logger);
        }
        const scope: BriefScope = run.scope.bounded ? { bounded: true, prefix: run.scope.prefix ?? '' } : { bounded: false };
        const reply = await answerOp(() => this.briefs.save(run.namespace, run.agent, scope, input), this.logger, 'the brief save failed in the brief condenser; nothing was written, and a retry is safe', {
          namespace: run.namespace,
        });
        if (reply.ok) this.logger.info({ namespace: run.namespace, changed: reply.response.changed, revision: reply.response.revision, author: reply.response.author ?? null }, 'brief revised');
        return reply;
      }),
    );
  }

  @EventPattern(Subjects.memoryExtractionRequested)
  async extract(@Payload() event: MemoryExtractionRequestedEvent): Promise<void> {
    await runStoredJob(this.memory.extractions, event.namespace, event.extraction_id, (delayMs, why) => new RetryLater(delayMs, why));
  }
}
