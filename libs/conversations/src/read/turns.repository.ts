import type { Storage } from '@loom/clickhouse';
import { ALL_AGENTS, type SortOrder } from '@loom/contracts';
import type { TurnCursor } from '../cursor';
import { takeWithinBudget } from '../page-budget';
import { turnKey, type TranscriptRow } from '../rows';

export interface ThreadStats {
  turn_count: number;
  first_ts: string | null;
  last_ts: string | null;
}

export interface ThreadActivityRow {
  thread_id: string;
  agents: string[];
  last_ts: string;
  turn_count: number;
  last_role: string;
  last_text: string;
}

const TURN_COLUMNS = 'thread_id, msg_id, agent, role, content, reasoning, user_id, run_id, metadata, tokens, ts, is_saved, saved_at';

/** Reads of live transcript rows. Tombstoned rows never leave this class. */
export class TurnsRepository {
  constructor(private readonly storage: Storage) {}

  /**
   * One page of a thread's live turns in (ts, agent, msg_id) order: at most `limit` turns and
   * at most `budgetBytes` of content and reasoning (always at least one turn). Two reads, so
   * the gateway never holds more text than the budget: the candidates' keys and sizes first
   * (no text), then the text of the contiguous run that fits. `more` tells whether turns
   * remain past the page.
   */
  async page(options: {
    namespace: string;
    threadId: string;
    agent: string;
    runId?: string | undefined;
    order: SortOrder;
    limit: number;
    budgetBytes: number;
    after?: TurnCursor | undefined;
  }): Promise<{ rows: TranscriptRow[]; more: boolean; last: TurnCursor | undefined }> {
    const asc = options.order === 'asc';
    const conditions = ['namespace = {ns:String}', 'thread_id = {thread:String}', 'deleted = 0'];
    if (options.agent !== ALL_AGENTS) conditions.push('agent = {agent:String}');
    if (options.runId !== undefined) conditions.push('run_id = {run:String}');
    const after = options.after ? [`(ts, agent, msg_id) ${asc ? '>' : '<'} ({cts:DateTime64(6, 'UTC')}, {cagent:String}, {cmsg:String})`] : [];
    const direction = asc ? 'ASC' : 'DESC';
    const order = `ORDER BY ts ${direction}, agent ${direction}, msg_id ${direction}`;
    const params = {
      ns: options.namespace,
      thread: options.threadId,
      agent: options.agent,
      run: options.runId ?? '',
      cts: options.after?.ts ?? '1970-01-01 00:00:00.000000',
      cagent: options.after?.agent ?? '',
      cmsg: options.after?.msg_id ?? '',
    };
    const candidates = await this.storage.query<TurnCursor & { bytes: string | number }>(
      `SELECT ts, agent, msg_id, length(content) + length(reasoning) AS bytes
       FROM ${this.storage.tables.conversations} FINAL
       WHERE ${[...conditions, ...after].join(' AND ')}
       ${order}
       LIMIT {limit:UInt32}`,
      { ...params, limit: options.limit + 1 },
    );
    const taken = takeWithinBudget(candidates.slice(0, options.limit).map((c) => Number(c.bytes)), options.budgetBytes);
    if (taken === 0) return { rows: [], more: false, last: undefined };
    const first = candidates[0]!;
    const last = candidates[taken - 1]!;
    const [lo, hi] = asc ? [first, last] : [last, first];
    // The run of keys chosen above, read again with its text; LIMIT holds it to that size even
    // if a turn landed inside the run meanwhile (the cursor then starts after what was served).
    const rows = await this.storage.query<TranscriptRow>(
      `SELECT ${TURN_COLUMNS} FROM ${this.storage.tables.conversations} FINAL
       WHERE ${conditions.join(' AND ')}
         AND (ts, agent, msg_id) >= ({lts:DateTime64(6, 'UTC')}, {lagent:String}, {lmsg:String})
         AND (ts, agent, msg_id) <= ({hts:DateTime64(6, 'UTC')}, {hagent:String}, {hmsg:String})
       ${order}
       LIMIT {taken:UInt32}`,
      { ...params, lts: lo.ts, lagent: lo.agent, lmsg: lo.msg_id, hts: hi.ts, hagent: hi.agent, hmsg: hi.msg_id, taken },
    );
    const served = rows[rows.length - 1];
    const end = served ? { ts: served.ts, agent: served.agent, msg_id: served.msg_id } : { ts: last.ts, agent: last.agent, msg_id: last.msg_id };
    return { rows, more: candidates.length > taken || rows.length < taken, last: end };
  }

  async stats(namespace: string, threadId: string, agent: string): Promise<ThreadStats> {
    const rows = await this.storage.query<{ turn_count: string; first_ts: string | null; last_ts: string | null }>(
      `SELECT count() AS turn_count, if(count() = 0, NULL, min(ts)) AS first_ts, if(count() = 0, NULL, max(ts)) AS last_ts
       FROM ${this.storage.tables.conversations} FINAL
       WHERE namespace = {ns:String} AND thread_id = {thread:String} AND deleted = 0 ${agent === ALL_AGENTS ? '' : 'AND agent = {agent:String}'}`,
      { ns: namespace, thread: threadId, agent },
    );
    const row = rows[0];
    return { turn_count: Number(row?.turn_count ?? 0), first_ts: row?.first_ts ?? null, last_ts: row?.last_ts ?? null };
  }

  /**
   * Threads active in the window, newest first, with their last turn's first `textChars`
   * characters. Two reads: the ranking aggregates every live row of the namespace but no text,
   * then the text of the page's last turns only. Reading `content` inside the aggregate was
   * most of its cost (at 100k turns, 88 ms against 28 without).
   */
  async recentThreads(options: {
    namespace: string;
    agent: string;
    windowDays: number;
    limit: number;
    offset: number;
    textChars: number;
  }): Promise<ThreadActivityRow[]> {
    const agentFilter = options.agent === ALL_AGENTS ? '' : 'AND agent = {agent:String}';
    // Only threads with a row in the window can have their last live turn in it: the merge
    // (FINAL) then reads those threads' granules, not a year of history.
    const ranked = await this.storage.query<Omit<ThreadActivityRow, 'last_text'> & { turn_count: string; last_agent: string; last_msg_id: string }>(
      `SELECT thread_id, groupUniqArray(agent) AS agents, max(ts) AS last_ts, count() AS turn_count,
              argMax(role, (ts, msg_id)) AS last_role, argMax(agent, (ts, msg_id)) AS last_agent, argMax(msg_id, (ts, msg_id)) AS last_msg_id
       FROM ${this.storage.tables.conversations} FINAL
       WHERE namespace = {ns:String} AND deleted = 0 ${agentFilter}
         AND thread_id IN (
           SELECT thread_id FROM ${this.storage.tables.conversations}
           WHERE namespace = {ns:String} AND ts >= now64(6) - toIntervalDay({days:UInt32}) ${agentFilter})
       GROUP BY thread_id
       HAVING last_ts >= now64(6) - toIntervalDay({days:UInt32})
       ORDER BY last_ts DESC, thread_id ASC
       LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      { ns: options.namespace, agent: options.agent, days: options.windowDays, limit: options.limit, offset: options.offset },
    );
    if (ranked.length === 0) return [];
    const texts = await this.storage.query<{ thread_id: string; agent: string; msg_id: string; text: string }>(
      `SELECT thread_id, agent, msg_id, substringUTF8(content, 1, {chars:UInt32}) AS text
       FROM ${this.storage.tables.conversations} FINAL
       WHERE namespace = {ns:String} AND thread_id IN {threads:Array(String)} AND msg_id IN {msgs:Array(String)} AND deleted = 0`,
      { ns: options.namespace, threads: ranked.map((r) => r.thread_id), msgs: [...new Set(ranked.map((r) => r.last_msg_id))], chars: options.textChars },
    );
    const textOf = new Map(texts.map((t) => [turnKey({ namespace: options.namespace, ...t }), t.text]));
    // A last turn tombstoned between the two reads shows no text; the next listing has the new last turn.
    return ranked.map(({ last_agent, last_msg_id, ...r }) => ({
      ...r,
      turn_count: Number(r.turn_count),
      last_text: textOf.get(turnKey({ namespace: options.namespace, thread_id: r.thread_id, agent: last_agent, msg_id: last_msg_id })) ?? '',
    }));
  }
}
