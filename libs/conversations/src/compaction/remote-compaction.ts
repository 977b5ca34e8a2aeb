import { LoomError, Subjects, type CompactRunReply, type CompactRunRequest, type CompactThreadRequest, type CompactThreadResponse } from '@loom/contracts';
import { TransportError, type RequestClient } from '@loom/transport';

/** What runs conversation.compact: the compaction service here, or a compactor over NATS. */
export interface Compactor {
  compact(namespace: string, agent: string, input: CompactThreadRequest): Promise<CompactThreadResponse>;
}

/**
 * conversation.compact sent to a compactor (`loom.compact.run.v1`, queue group `compactor`), for
 * gateways with LOOM_COMPACTION_RUNS_IN=service. The compactor answers what the op would have,
 * errors included, so the caller sees the same op either way.
 */
export class RemoteCompaction implements Compactor {
  constructor(
    private readonly requests: RequestClient,
    /** Long enough for the summarizer's call and the summary's embed. */
    private readonly timeoutMs: number,
  ) {}

  async compact(namespace: string, agent: string, input: CompactThreadRequest): Promise<CompactThreadResponse> {
    const payload: CompactRunRequest = { namespace, agent, request: input };
    let reply: CompactRunReply;
    try {
      reply = await this.requests.request<CompactRunReply>(Subjects.compactRun, payload, { timeoutMs: this.timeoutMs });
    } catch (error) {
      if (error instanceof TransportError && error.failure === 'no_responders') {
        throw new LoomError('unavailable', `no compactor answers ${Subjects.compactRun}; start the compactor service, or set LOOM_COMPACTION_RUNS_IN=gateway (nothing was changed)`, { cause: error });
      }
      throw new LoomError('unavailable', `the compactor did not answer (${(error as Error).message}); the thread may have been compacted, so read it before retrying`, { cause: error });
    }
    if (reply.ok) return reply.response;
    throw new LoomError(reply.error.code, reply.error.message, reply.error.fields ? { fields: reply.error.fields } : {});
  }
}
