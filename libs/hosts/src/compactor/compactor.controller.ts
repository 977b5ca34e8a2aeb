import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { CompactRunRequest, CompactThreadRequest, Headers as WireHeaders, Subjects, validateInput, type CompactRunReply } from '@loom/contracts';
import type { CompactionService } from '@loom/conversations';
import { inSpan, withExtractedContext, type Logger } from '@loom/platform';
import { headersFromContext } from '@loom/transport';
import { answerOp, refused } from '../shared/op-reply';
import { COMPACTION, HOST_LOGGER } from '../shared/tokens';

/** `loom.compact.run.v1`: validate, compact, answer what conversation.compact would have. */
@Controller()
export class CompactorController {
  constructor(
    @Inject(COMPACTION) private readonly compaction: CompactionService,
    @Inject(HOST_LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern(Subjects.compactRun)
  async compact(@Payload() payload: unknown, @Ctx() ctx: unknown): Promise<CompactRunReply> {
    const headers = headersFromContext(ctx, [WireHeaders.traceparent, WireHeaders.tracestate, WireHeaders.correlationId]);
    return withExtractedContext(headers, () =>
      inSpan('compact.run', { 'messaging.destination': Subjects.compactRun }, async () => {
        let run: CompactRunRequest;
        let input: CompactThreadRequest;
        try {
          run = validateInput(CompactRunRequest, payload);
          input = validateInput(CompactThreadRequest, run.request);
        } catch (error) {
          return refused(error, Subjects.compactRun, this.logger);
        }
        const reply = await answerOp(() => this.compaction.compact(run.namespace, run.agent, input), this.logger, 'the compaction failed in the compactor; nothing was changed where it failed, and a retry is safe', {
          namespace: run.namespace,
          thread_id: input.thread_id,
        });
        if (reply.ok) {
          const r = reply.response;
          this.logger.info({ namespace: run.namespace, thread_id: input.thread_id, compacted: r.compacted, messages_summarized: r.messages_summarized, reason: r.reason ?? null }, 'compaction done');
        }
        return reply;
      }),
    );
  }
}
