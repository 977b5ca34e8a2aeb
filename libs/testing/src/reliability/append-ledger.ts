import { errorLabel, type OpCall } from './op-call';

/**
 * What a client was told about each append it sent: the ground truth a fault is judged against.
 * An acknowledged turn (200, stored: true) must be present exactly once afterwards; a turn whose
 * answer never came (connection cut by a kill) may be present or not, but only once.
 */
export class AppendLedger {
  readonly acknowledged = new Set<string>();
  readonly sent = new Map<string, string>();
  /** Answers by kind: "200 stored", "503 unavailable", "ECONNREFUSED", ... */
  readonly outcomes: Record<string, number> = {};
  /** Client-side latency of every acknowledged append, ms. */
  readonly ackMs: number[] = [];
  /** Longest wait for any answer, acknowledgement or not (a connection error counts too), ms. */
  slowestMs = 0;

  record(msgId: string, threadId: string, outcome: string, ms?: number): void {
    this.sent.set(msgId, threadId);
    this.outcomes[outcome] = (this.outcomes[outcome] ?? 0) + 1;
    if (ms !== undefined) this.slowestMs = Math.max(this.slowestMs, ms);
    if (outcome === '200 stored') {
      this.acknowledged.add(msgId);
      if (ms !== undefined) this.ackMs.push(ms);
    }
  }

  threads(): string[] {
    return [...new Set(this.sent.values())].sort();
  }
}

export interface AppendLoadOptions {
  call: OpCall;
  namespace: string;
  ledger: AppendLedger;
  writers: number;
  threads: number;
  /** Unique across the whole run: every msg_id is `<prefix>-w<writer>-<n>`. */
  prefix: string;
  /** Checked before each append; the load ends when it returns true. */
  stop: () => boolean;
  /** A writer whose call fails at the connection (the process is gone) ends instead of retrying. */
  endOnConnectionError?: boolean;
  timeoutMs?: number;
  content?: (msgId: string, n: number) => string;
}

/** Concurrent writers, each appending turns with unique msg_ids until `stop()`; every answer goes into the ledger. */
export async function appendUnderLoad(options: AppendLoadOptions): Promise<void> {
  const content = options.content ?? ((msgId) => `turn ${msgId}: the deploy of the billing service failed on the ledger migration`);
  const writer = async (w: number): Promise<void> => {
    for (let n = 0; !options.stop(); n += 1) {
      const msgId = `${options.prefix}-w${w}-${n}`;
      const threadId = `${options.prefix}-t${(w + n) % options.threads}`;
      const started = Date.now();
      try {
        const result = await options.call(
          'conversation.append',
          { namespace: options.namespace, thread_id: threadId, msg_id: msgId, role: n % 2 ? 'assistant' : 'user', content: content(msgId, n) },
          options.timeoutMs ?? 30_000,
        );
        options.ledger.record(msgId, threadId, outcomeOf(result), Date.now() - started);
        // A refusal: the next attempt waits a little instead of spinning on a 503.
        if (result.status !== 200) await new Promise((r) => setTimeout(r, 50));
      } catch (error) {
        options.ledger.record(msgId, threadId, errorLabel(error), Date.now() - started);
        if (options.endOnConnectionError) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  await Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w)));
}

function outcomeOf(result: { status: number; body: any }): string {
  if (result.status === 200) return result.body?.stored === true ? '200 stored' : `200 not stored (${String(result.body?.reason ?? 'no reason')})`;
  return `${result.status} ${String(result.body?.error?.code ?? result.body?.code ?? '')}`.trim();
}

export interface PresenceCount {
  acknowledged: number;
  /** Acknowledged and found. */
  present: number;
  /** Acknowledged and not found. */
  lost: number;
  /** msg_ids found more than once. */
  duplicated: number;
  /** Sent, found, but never acknowledged (the answer was cut off): allowed, once. */
  storedWithoutAck: number;
  /** Found, never sent by this client. */
  strangers: number;
  /** Rows the reads returned. */
  rowsRead: number;
  lostIds: string[];
  duplicatedIds: string[];
}

/** Reads every thread the ledger wrote to (conversation.list, all pages) and compares with what was acknowledged. */
export async function countPresence(call: OpCall, namespace: string, ledger: AppendLedger): Promise<PresenceCount> {
  const seen = new Map<string, number>();
  let rowsRead = 0;
  for (const threadId of ledger.threads()) {
    let cursor: string | undefined;
    for (let page = 0; page < 10_000; page += 1) {
      const result = await call('conversation.list', { namespace, thread_id: threadId, limit: 200, ...(cursor ? { cursor } : {}) }, 60_000);
      if (result.status !== 200) throw new Error(`conversation.list answered ${result.status}: ${JSON.stringify(result.body).slice(0, 300)}`);
      for (const m of result.body.messages as Array<{ msg_id: string }>) {
        seen.set(m.msg_id, (seen.get(m.msg_id) ?? 0) + 1);
        rowsRead += 1;
      }
      cursor = result.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
  }
  const lostIds = [...ledger.acknowledged].filter((id) => !seen.has(id));
  const duplicatedIds = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  return {
    acknowledged: ledger.acknowledged.size,
    present: ledger.acknowledged.size - lostIds.length,
    lost: lostIds.length,
    duplicated: duplicatedIds.length,
    storedWithoutAck: [...seen.keys()].filter((id) => ledger.sent.has(id) && !ledger.acknowledged.has(id)).length,
    strangers: [...seen.keys()].filter((id) => !ledger.sent.has(id)).length,
    rowsRead,
    lostIds: lostIds.slice(0, 20),
    duplicatedIds: duplicatedIds.slice(0, 20),
  };
}
