import { Limits, type RunListResponse, type RunModelCost, type UsageReport } from '@loom/contracts';
import type { CapturedObservation } from './observations';
import { briefEvents, type BriefWindow } from './brief-events';
import type { CapturedTurn } from './transcript';

export interface IngestTarget {
  /** The gateway, e.g. http://127.0.0.1:7777 */
  url: string;
  token: string;
  namespace: string;
  threadId: string;
  agent?: string | undefined;
  userId?: string | undefined;
  /** The run the turns belong to (conversation.append's run_id). */
  runId?: string | undefined;
}

export interface IngestReport {
  thread_id: string;
  turns: number;
  appended: number;
  duplicates: number;
  /** Answered `logging_disabled`: the namespace does not record, so nothing was kept. */
  not_recorded: number;
  /** Over the 1 MiB content limit: not sent. */
  too_large: number;
  /** The last turn handled, whatever its outcome: where a later capture resumes. */
  last_msg_id: string | null;
}

export class IngestError extends Error {
  /** The HTTP status Loom answered, when it answered. */
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'IngestError';
  }
}

/**
 * Appends turns in order through `conversation.append`, one call each (the order of a thread is
 * the order of its appends). Ids make it safe to run again: a turn that landed is a duplicate.
 * Stops at the first error the caller must fix (auth, a down gateway), saying what to do.
 */
export async function ingestTurns(turns: readonly CapturedTurn[], target: IngestTarget, onProgress?: (done: number, total: number) => void): Promise<IngestReport> {
  const report: IngestReport = { thread_id: target.threadId, turns: turns.length, appended: 0, duplicates: 0, not_recorded: 0, too_large: 0, last_msg_id: null };
  let lastReported = 0;
  for (const [i, turn] of turns.entries()) {
    if (Buffer.byteLength(turn.content, 'utf8') > Limits.maxContentBytes) {
      report.too_large += 1;
    } else {
      const answer = await append(target, turn);
      if (answer.stored) report.appended += 1;
      else if (answer.reason === 'duplicate') report.duplicates += 1;
      else report.not_recorded += 1;
      report.last_msg_id = answer.msg_id;
    }
    const done = i + 1;
    if (onProgress && (done === turns.length || done - lastReported >= Math.max(1, Math.ceil(turns.length / 20)))) {
      lastReported = done;
      onProgress(done, turns.length);
    }
  }
  return report;
}

function append(target: IngestTarget, turn: CapturedTurn): Promise<{ stored: boolean; reason?: string; msg_id: string }> {
  return callOp(target, 'conversation.append', {
    namespace: target.namespace,
    thread_id: target.threadId,
    role: turn.role,
    content: turn.content,
    ...(turn.msg_id ? { msg_id: turn.msg_id } : {}),
    ...(turn.reasoning ? { reasoning: turn.reasoning } : {}),
    ...(target.agent ? { agent: target.agent } : {}),
    ...(target.runId ? { run_id: target.runId } : {}),
    ...(target.userId && turn.role === 'user' ? { user_id: target.userId } : {}),
  });
}

/** Reports per run.report_usage call: well under the op's 2,000. */
const USAGE_CHUNK = 500;

export interface UsageHandOff {
  run_id: string;
  reports: number;
  began: boolean;
  model_cost: RunModelCost | null;
}

/**
 * Reports a session's model usage to its run through `run.report_usage`, beginning the run with
 * `goal` if it does not exist. Every report carries the client's call id, so sending a session's
 * whole usage again on each hook adds nothing and a lost call is made good by the next one.
 */
export async function reportUsage(reports: readonly UsageReport[], target: Omit<IngestTarget, 'threadId'> & { runId: string; goal: string }): Promise<UsageHandOff> {
  const outcome: UsageHandOff = { run_id: target.runId, reports: reports.length, began: false, model_cost: null };
  for (let i = 0; i < reports.length; i += USAGE_CHUNK) {
    const answer = await callOp<{ began: boolean; model_cost: RunModelCost }>(target, 'run.report_usage', {
      namespace: target.namespace,
      run_id: target.runId,
      goal: target.goal,
      reports: reports.slice(i, i + USAGE_CHUNK),
      ...(target.agent ? { agent: target.agent } : {}),
    });
    outcome.began ||= answer.began;
    outcome.model_cost = answer.model_cost;
  }
  return outcome;
}

/** Observations per observe.record call: well under the op's 2,000. */
const OBSERVATION_CHUNK = 500;

/**
 * Records a session's tool actions through `observe.record`. Each carries the client's id for the
 * action, so sending them again changes nothing but a late outcome.
 */
export async function recordObservations(
  observations: readonly CapturedObservation[],
  target: Omit<IngestTarget, 'threadId'> & { sessionId: string },
): Promise<{ recorded: number; skipped_high: number }> {
  const outcome = { recorded: 0, skipped_high: 0 };
  for (let i = 0; i < observations.length; i += OBSERVATION_CHUNK) {
    const answer = await callOp<{ recorded: number; skipped_high: number }>(target, 'observe.record', {
      namespace: target.namespace,
      session_id: target.sessionId,
      observations: observations.slice(i, i + OBSERVATION_CHUNK).map(({ seq: _seq, ...o }) => o),
      ...(target.agent ? { agent: target.agent } : {}),
      ...(target.userId ? { user_id: target.userId } : {}),
    });
    outcome.recorded += answer.recorded;
    outcome.skipped_high += answer.skipped_high;
  }
  return outcome;
}

/** Hands the session's new observations to memory extraction (deferred): `observe.crystallize`. */
export function crystallizeObservations(target: Omit<IngestTarget, 'threadId'> & { sessionId: string }): Promise<{ observations: number; extraction_id: string | null }> {
  return callOp(target, 'observe.crystallize', {
    namespace: target.namespace,
    session_id: target.sessionId,
    defer: true,
    ...(target.agent ? { agent: target.agent } : {}),
    ...(target.userId ? { user_id: target.userId } : {}),
  });
}

/** Begins a capture run unless it exists; answers whether this call began it. */
export async function beginRun(target: { url: string; token: string; namespace: string; runId: string; goal: string; agent?: string | undefined }): Promise<boolean> {
  try {
    await callOp(target, 'run.begin', { namespace: target.namespace, run_id: target.runId, goal: target.goal, ...(target.agent ? { agent: target.agent } : {}) });
    return true;
  } catch (error) {
    if (error instanceof IngestError && error.status === 409) return false;
    throw error;
  }
}

/** Ends a capture run with status `ended` (the session finished; no verdict). A run already completed is left as it is. */
export async function endRun(target: { url: string; token: string; namespace: string; runId: string; agent?: string | undefined }): Promise<{ ended: boolean }> {
  try {
    await callOp(target, 'run.complete', { namespace: target.namespace, run_id: target.runId, status: 'ended', ...(target.agent ? { agent: target.agent } : {}) });
    return { ended: true };
  } catch (error) {
    if (error instanceof IngestError && (error.status === 404 || error.status === 409)) return { ended: false };
    throw error;
  }
}

export interface MemoryHandOff {
  /** Extractions started (one per chunk of messages). */
  extractions: string[];
  messages: number;
  skipped_high: number;
}

/** Messages per memory.set_from_messages call, and a body size that stays well under the gateway's limit. */
const MEMORY_CHUNK_MESSAGES = 500;
const MEMORY_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Hands a session's user and assistant turns to `memory.set_from_messages(defer=true)`, so facts
 * are extracted whether or not the namespace records its transcripts.
 */
export async function handTurnsToMemory(turns: readonly CapturedTurn[], target: Omit<IngestTarget, 'threadId'> & { sessionId?: string | undefined }): Promise<MemoryHandOff> {
  const messages = turns.filter((t) => t.role === 'user' || t.role === 'assistant').map((t) => ({ role: t.role, content: t.content }));
  const report: MemoryHandOff = { extractions: [], messages: messages.length, skipped_high: 0 };
  let chunk: typeof messages = [];
  let bytes = 0;
  const flush = async (): Promise<void> => {
    if (chunk.length === 0) return;
    const answer = await callOp<{ extraction_id: string; skipped_high: number }>(target, 'memory.set_from_messages', {
      namespace: target.namespace,
      messages: chunk,
      defer: true,
      ...(target.sessionId ? { session_id: target.sessionId } : {}),
      ...(target.userId ? { user_id: target.userId } : {}),
    });
    report.extractions.push(answer.extraction_id);
    report.skipped_high += answer.skipped_high;
    chunk = [];
    bytes = 0;
  };
  for (const message of messages) {
    const size = Buffer.byteLength(message.content, 'utf8');
    if (size > Limits.maxContentBytes) continue;
    if (chunk.length >= MEMORY_CHUNK_MESSAGES || bytes + size > MEMORY_CHUNK_BYTES) await flush();
    chunk.push(message);
    bytes += size;
  }
  await flush();
  return report;
}

/**
 * One op over HTTP. A 503 (storage or a dependency down) is retried with backoff: every op this
 * sends is safe to repeat (ids make appends idempotent). Errors say what to do next.
 */
export async function callOp<T>(target: { url: string; token: string }, op: string, body: object): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(`${target.url}/v1/ops/${op}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (error) {
      throw new IngestError(`cannot reach Loom at ${target.url} (${(error as Error).message}); start it with \`loom up\` or pass --url`);
    }
    const answer = (await response.json().catch(() => ({}))) as T & { error?: { message?: string } };
    if (response.status === 503 && attempt < 5) {
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
      continue;
    }
    if (response.status === 401) throw new IngestError('Loom refused the token (401); pass a writer token with --token or LOOM_TOKEN', 401);
    if (response.status === 403) throw new IngestError(`Loom refused (403): ${answer.error?.message ?? 'the token cannot act on this namespace'}`, 403);
    if (!response.ok) throw new IngestError(`${op} answered ${response.status}: ${answer.error?.message ?? 'no message'}`, response.status);
    return answer;
  }
}

/**
 * A session's entries since the last save as a brief save, condensed on the server (the client
 * spends no model tokens): its turns and tool actions in the order they happened, then the
 * client's own compaction summary as a `summary` event.
 */
export async function saveSessionBrief(
  window: BriefWindow,
  target: Omit<IngestTarget, 'threadId'> & { sessionId: string; project?: string | undefined; branch?: string | undefined },
): Promise<{ brief_key: string; changed: boolean; revision: number; author?: string; reason?: string; skipped_high?: number; events: number }> {
  const events = briefEvents(window, 4_000, 20_000);
  const answer = await callOp<{ brief_key: string; changed: boolean; revision: number; author?: string; reason?: string; skipped_high?: number }>(target, 'session.brief_save', {
    namespace: target.namespace,
    session_id: target.sessionId,
    ...(target.project ? { project: target.project } : {}),
    ...(target.branch ? { branch: target.branch } : {}),
    ...(target.agent ? { agent: target.agent } : {}),
    ...(window.cursor ? { event_cursor: window.cursor } : {}),
    events: events.length > 0 ? events : [{ kind: 'note', text: 'session ended with no new turns' }],
  });
  return { ...answer, events: events.length };
}

/** The namespace's runs, newest first, with their model cost and the page's (run.list). */
export function listRuns(target: { url: string; token: string; namespace: string }, filters: { agent?: string; status?: string; since?: string; limit?: number }): Promise<RunListResponse> {
  return callOp(target, 'run.list', { namespace: target.namespace, agent: filters.agent ?? '*', ...(filters.status ? { status: filters.status } : {}), ...(filters.since ? { since: filters.since } : {}), limit: filters.limit ?? 20 });
}

/** The namespace's saved briefs, one line each: what a session-start primer names (and never loads). */
export function listBriefs(target: { url: string; token: string; namespace: string }): Promise<{ briefs: Array<{ brief_key: string; line: string; updated_at: string }> }> {
  return callOp(target, 'session.brief_list', { namespace: target.namespace, limit: 20 });
}

export function getBrief(target: { url: string; token: string; namespace: string }, key: string, full: boolean): Promise<{ brief: { brief_key: string; rendered: string; revision: number; client_summary?: string | null } }> {
  return callOp(target, 'session.brief_get', { namespace: target.namespace, brief_key: key, ...(full ? { full: true } : {}) });
}
