import { LoomError, Subjects, type BriefReviseReply, type BriefReviseRequest, type BriefSaveRequest, type BriefSaveResponse } from '@loom/contracts';
import { TransportError, type RequestClient } from '@loom/transport';
import type { BriefScope } from './brief-keys';

/** What runs session.brief_save: the briefs service here, or a brief condenser over NATS. */
export interface BriefSaver {
  save(namespace: string, agent: string, scope: BriefScope, input: BriefSaveRequest): Promise<BriefSaveResponse>;
}

/** Under NATS's default 1 MiB payload, with room for the packet and headers. */
const MAX_REQUEST_BYTES = 1024 * 1024 - 16 * 1024;

/**
 * session.brief_save sent to a brief condenser (`loom.brief.revise.v1`, queue group
 * `brief-condenser`), for gateways with LOOM_BRIEFS_RUNS_IN=service. The condenser answers what
 * the op would have, errors included, so the caller sees the same op either way.
 */
export class RemoteBriefRevision implements BriefSaver {
  constructor(
    private readonly requests: RequestClient,
    /** Long enough for every model window of one save. */
    private readonly timeoutMs: number,
  ) {}

  async save(namespace: string, agent: string, scope: BriefScope, input: BriefSaveRequest): Promise<BriefSaveResponse> {
    const payload: BriefReviseRequest = { namespace, agent, scope: scope.bounded ? { bounded: true, prefix: scope.prefix } : { bounded: false }, request: input };
    if (Buffer.byteLength(JSON.stringify(payload)) > MAX_REQUEST_BYTES) {
      throw new LoomError('payload_too_large', 'this save is too large to hand to the brief condenser (about 1 MiB of events at most); send its events in several saves', {
        fields: [{ field: 'events', message: 'too large for one save' }],
      });
    }
    let reply: BriefReviseReply;
    try {
      reply = await this.requests.request<BriefReviseReply>(Subjects.briefRevise, payload, { timeoutMs: this.timeoutMs });
    } catch (error) {
      if (error instanceof TransportError && error.failure === 'no_responders') {
        throw new LoomError('unavailable', `no brief condenser answers ${Subjects.briefRevise}; start the brief-condenser service, or set LOOM_BRIEFS_RUNS_IN=gateway (nothing was changed)`, { cause: error });
      }
      throw new LoomError('unavailable', `the brief condenser did not answer (${(error as Error).message}); the brief may have been revised, so load it before retrying (a save that repeats its session and event_cursor is a safe retry)`, { cause: error });
    }
    if (reply.ok) return reply.response;
    throw new LoomError(reply.error.code, reply.error.message, reply.error.fields ? { fields: reply.error.fields } : {});
  }
}
