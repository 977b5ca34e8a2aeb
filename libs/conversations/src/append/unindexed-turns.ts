import { formatMillis, type Storage } from '@loom/clickhouse';
import { Limits } from '@loom/contracts';
import { nextVersion } from '@loom/platform';
import { readsAsHigh } from '@loom/sensitivity';
import type { EmbeddingClient, EmbedOutcome } from '../embedding/embedding.client';
import { embeddingColumns } from '../embedding/embedding-columns';
import type { ThreadLeases } from '../leases/thread-leases';
import { lexicalColumns } from '../lexical/lexical-columns';
import { EMBEDDING_COLUMNS, embeddingKey, type EmbeddingRow, type TranscriptRow } from '../rows';
import { firstChars } from '../text';

/**
 * `embed_error` of the placeholder an append writes when it stored a turn without the thread's
 * lease (NATS unreachable, ADR 0026): the turn waits here for its embedding row.
 */
export const EMBED_UNFENCED = 'unindexed_leases_down';

const INDEXED_ROLES = new Set<string>(['user', 'assistant']);

/**
 * The placeholder for a turn stored while the thread's lease could not be taken. It is a
 * tombstone with no text, so no search ever finds it and nothing can make it a live row but the
 * sweep below, which writes the live row under the lease after checking the turn is still live.
 * Its version is the transcript row's: every write made after the turn was stored (a tombstone
 * of a delete that saw the turn, another gateway's vector for the same turn) has a greater one
 * and wins over it, so a placeholder landing late never hides or revives anything.
 */
export function unindexedPlaceholder(row: EmbeddingRow, turnVersion: number): EmbeddingRow {
  return {
    ...row,
    text: '',
    model: '',
    embedding: [],
    embed_error: EMBED_UNFENCED,
    lex_terms: [],
    lex_tfs: [],
    lex_len: 0,
    is_saved: false,
    saved_at: null,
    deleted: true,
    deleted_at: null,
    version: turnVersion,
  };
}

/** The transcript columns the sweep reads of a placeholder's turn. */
type LiveTurn = Pick<
  TranscriptRow,
  'namespace' | 'thread_id' | 'agent' | 'msg_id' | 'ts' | 'role' | 'content' | 'user_id' | 'run_id' | 'is_high' | 'is_summary' | 'is_saved' | 'saved_at'
>;

/**
 * Gives the turns stored without their thread's lease their embedding rows once the leases are
 * back (the gateway's deferred-embeds sweep calls it, ADR 0026). Embeds first (a provider call
 * is never made under a lease), then, under the threads' leases, re-reads each placeholder and
 * its turn: a turn still live gets its live row (vector and lexical index); a placeholder whose
 * turn is gone is cleared; one replaced meanwhile is left alone; one whose turn changed since
 * it was embedded waits for the next sweep. While the embedder cannot
 * answer nothing is written and the next sweep tries again.
 */
export class UnindexedTurns {
  constructor(
    private readonly storage: Storage,
    private readonly embedder: EmbeddingClient,
    private readonly threadLeases: ThreadLeases,
  ) {}

  async index(options: { limit?: number } = {}): Promise<{ found: number; written: number }> {
    const placeholders = await this.storage.query<EmbeddingRow>(
      `SELECT ${EMBEDDING_COLUMNS} FROM ${this.storage.tables.conversationEmbeddings} FINAL
       WHERE deleted = 1 AND embed_error = {marker:String} ORDER BY version LIMIT {limit:UInt32}`,
      { marker: EMBED_UNFENCED, limit: options.limit ?? 256 },
    );
    if (placeholders.length === 0) return { found: 0, written: 0 };
    const turns = await this.liveTurns(placeholders);
    const indexable = placeholders.map((p) => chosenTurn(p, turns)).filter((t): t is LiveTurn => t !== undefined && isIndexable(t));
    const texts = new Map(indexable.map((t) => [embeddingKey(t), firstChars(t.content, Limits.embedChars)]));
    const embedded = indexable.length > 0 ? await this.embedder.embed([...texts.values()]) : undefined;
    if (embedded && !embedded.ok) return { found: placeholders.length, written: 0 };
    const position = new Map([...texts.keys()].map((key, i) => [key, i]));
    // No unfenced fallback here: without the lease nothing is written, and the next sweep retries.
    const outcomes = await this.threadLeases.forBatch(placeholders, (p) => p, (held) => this.settle(held, texts, position, embedded));
    return { found: placeholders.length, written: outcomes.filter((o) => o === 'indexed').length };
  }

  private async settle(
    held: EmbeddingRow[],
    texts: Map<string, string>,
    position: Map<string, number>,
    embedded: EmbedOutcome | undefined,
  ): Promise<Array<'indexed' | 'cleared' | 'replaced' | 'later'>> {
    if (held.length === 0) return [];
    const [current, turns] = await Promise.all([this.currentRows(held), this.liveTurns(held)]);
    const out: EmbeddingRow[] = [];
    const outcomes = held.map((placeholder): 'indexed' | 'cleared' | 'replaced' | 'later' => {
      const key = embeddingKey(placeholder);
      const now = current.get(key);
      // Another write (a gateway's vector, a tombstone) came after the placeholder: it stands.
      if (!now || now.embed_error !== EMBED_UNFENCED || String(now.version) !== String(placeholder.version)) return 'replaced';
      const turn = chosenTurn(placeholder, turns);
      if (!turn || !isIndexable(turn)) {
        out.push({ ...placeholder, embed_error: '', version: nextVersion() });
        return 'cleared';
      }
      // The turn read now is not the one embedded (two racing copies of it settled meanwhile):
      // the next sweep embeds it again.
      const i = position.get(key);
      if (i === undefined || !embedded || firstChars(turn.content, Limits.embedChars) !== texts.get(key)) return 'later';
      out.push({
        namespace: turn.namespace,
        thread_id: turn.thread_id,
        msg_id: turn.msg_id,
        agent: turn.agent,
        role: turn.role,
        run_id: turn.run_id,
        user_id: turn.user_id,
        ts: turn.ts,
        text: texts.get(key)!,
        ...embeddingColumns(embedded, i),
        ...lexicalColumns(turn.content),
        is_summary: false,
        is_saved: Boolean(turn.is_saved),
        saved_at: turn.saved_at,
        deleted: false,
        deleted_at: null,
        created_at: formatMillis(),
        version: nextVersion(),
      });
      return 'indexed';
    });
    await this.storage.insert(this.storage.tables.conversationEmbeddings, out);
    return outcomes;
  }

  /** The live transcript rows (every agent's copy) of these turns. */
  private async liveTurns(rows: EmbeddingRow[]): Promise<Map<string, LiveTurn[]>> {
    const found = await this.storage.query<LiveTurn>(
      `SELECT namespace, thread_id, agent, msg_id, ts, role, content, user_id, run_id, is_high, is_summary, is_saved, saved_at
       FROM ${this.storage.tables.conversations} FINAL
       WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)} AND deleted = 0`,
      scope(rows),
    );
    const byKey = new Map<string, LiveTurn[]>();
    for (const turn of found) byKey.set(embeddingKey(turn), [...(byKey.get(embeddingKey(turn)) ?? []), turn]);
    return byKey;
  }

  /** The embedding table's current row (tombstones included) of each of these turns. */
  private async currentRows(rows: EmbeddingRow[]): Promise<Map<string, { embed_error: string; version: string }>> {
    const found = await this.storage.query<{ namespace: string; thread_id: string; msg_id: string; embed_error: string; version: string }>(
      `SELECT namespace, thread_id, msg_id, embed_error, toString(version) AS version FROM ${this.storage.tables.conversationEmbeddings} FINAL
       WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)}`,
      scope(rows),
    );
    return new Map(found.map((r) => [embeddingKey(r), r]));
  }
}

/** The placeholder's own agent's copy of the turn, else another agent's live copy. */
function chosenTurn(placeholder: EmbeddingRow, turns: Map<string, LiveTurn[]>): LiveTurn | undefined {
  const copies = turns.get(embeddingKey(placeholder)) ?? [];
  return copies.find((t) => t.agent === placeholder.agent) ?? copies[0];
}

function isIndexable(turn: LiveTurn): boolean {
  return !turn.is_high && !turn.is_summary && INDEXED_ROLES.has(turn.role) && !readsAsHigh(turn.content);
}

function scope(rows: Array<{ namespace: string; thread_id: string; msg_id: string }>): { namespaces: string[]; threads: string[]; ids: string[] } {
  return {
    namespaces: [...new Set(rows.map((r) => r.namespace))],
    threads: [...new Set(rows.map((r) => r.thread_id))],
    ids: [...new Set(rows.map((r) => r.msg_id))],
  };
}
