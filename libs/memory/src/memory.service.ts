import { formatMillis, toIso, type Storage } from '@loom/clickhouse';
import {
  LoomError,
  type MemoryHit,
  type RecallRequest,
  type RecallResponse,
  type SearchMemoryRequest,
  type SearchMemoryResponse,
  type SetFromMessagesRequest,
  type SetFromMessagesResponse,
  type SetMemoryRequest,
  type SetMemoryResponse,
  type TurnRole,
  type ExtractionStatusResponse,
  type MemoryExtractionRequestedEvent,
} from '@loom/contracts';
import { bm25, centredExcerpt, firstChars, type EmbeddingClient } from '@loom/conversations';
import { InMemoryLeaseManager, type LeaseManager } from '@loom/leases';
import { newId, nextVersion, type Logger, type LoomMetrics } from '@loom/platform';
import { cosineSimilarity, type LlmProvider } from '@loom/providers';
import { readsAsHigh } from '@loom/sensitivity';
import { extractionRequest, parseFacts } from './extraction-prompt';
import { DefaultExtractionQueueOptions, ExtractionQueue, type ExtractionQueueOptions, type ExtractionRow } from './extraction-queue';

const SEARCH_FLOOR = 0.3;
const EXCERPT_CHARS = 240;

interface MemoryRow {
  memory_id: string;
  user_id: string;
  text: string;
  source: string;
  embedding: number[];
  created_at: string;
}

/**
 * The memory plane, apart from the transcript: facts written by memory.set or extracted by
 * memory.set_from_messages, and the turns extractions read (`memory_evidence`), kept whether or
 * not the namespace records conversations. Nothing here reads the conversation tables, and the
 * conversation plane never writes here: a recorded turn is never a memory on its own.
 */
export class MemoryService {
  /** Deferred extractions: kept in storage, run by whichever replica takes their lease. */
  readonly extractions: ExtractionQueue;
  private readonly runsHere: boolean;
  private readonly notify: ((event: MemoryExtractionRequestedEvent) => void) | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly embedder: EmbeddingClient,
    private readonly llm: LlmProvider,
    private readonly observe: { metrics?: LoomMetrics | undefined; logger?: Logger | undefined } = {},
    queue: {
      leases?: LeaseManager;
      options?: Partial<ExtractionQueueOptions>;
      /**
       * `here` (the default): this process runs deferred extractions. `elsewhere`: it only stores
       * them and hands each to `notify` (the brief condenser, LOOM_BRIEFS_RUNS_IN=service).
       */
      runs?: 'here' | 'elsewhere';
      notify?: (event: MemoryExtractionRequestedEvent) => void;
    } = {},
  ) {
    this.runsHere = (queue.runs ?? 'here') === 'here';
    this.notify = queue.notify;
    this.extractions = new ExtractionQueue(
      storage,
      queue.leases ?? new InMemoryLeaseManager(),
      (row) => this.runDeferred(row),
      { ...DefaultExtractionQueueOptions, ...queue.options },
      observe.logger,
      observe.metrics,
    );
  }

  /** Starts running deferred extractions, first those a crash or a stop left pending (unless they run elsewhere). */
  start(): void {
    if (this.runsHere) this.extractions.start();
  }

  async set(namespace: string, input: SetMemoryRequest): Promise<SetMemoryResponse> {
    const text = input.text.trim();
    if (readsAsHigh(text)) return { memory_id: null, stored: false, reason: 'high_sensitivity' };
    const [id] = await this.store(namespace, [text], { userId: input.user_id ?? '', source: 'set', extractionId: '' });
    return { memory_id: id!, stored: true };
  }

  async setFromMessages(namespace: string, input: SetFromMessagesRequest): Promise<SetFromMessagesResponse> {
    const extractionId = newId('ext_');
    // A high turn is never kept, never sent to the model.
    const plain = input.messages.filter((m) => m.content.trim() !== '' && !readsAsHigh(m.content));
    const now = formatMillis();
    const version = nextVersion();
    await this.storage.insert(
      this.storage.tables.memoryEvidence,
      plain.map((m, seq) => ({
        namespace,
        extraction_id: extractionId,
        seq,
        session_id: input.session_id ?? '',
        user_id: input.user_id ?? '',
        role: m.role,
        content: m.content,
        ts: now,
        version,
      })),
    );
    const base = { extraction_id: extractionId, evidence: plain.length, skipped_high: input.messages.length - plain.length };
    const record = { namespace, extraction_id: extractionId, user_id: input.user_id ?? '' };
    if (input.defer) {
      // The evidence is stored first: a pending extraction always has all its messages.
      await this.extractions.record({ ...record, status: 'pending', facts: 0 }, { background: this.runsHere });
      if (!this.runsHere) this.notify?.({ namespace, extraction_id: extractionId });
      return { ...base, deferred: true };
    }
    const facts = await this.extract(namespace, extractionId, plain, input.user_id ?? '');
    await this.extractions.record({ ...record, status: 'done', facts });
    return { ...base, deferred: false, facts };
  }

  /** memory.extraction_status: where an extraction stands. */
  async extractionStatus(namespace: string, extractionId: string): Promise<ExtractionStatusResponse> {
    const row = await this.extractions.find(namespace, extractionId);
    if (!row) throw new LoomError('not_found', `no extraction "${extractionId}" in namespace "${namespace}"`);
    return {
      extraction_id: row.extraction_id,
      status: row.status,
      facts: row.status === 'done' ? row.facts : null,
      attempts: row.attempts,
      last_error: row.last_error || null,
      next_attempt_at: row.status === 'pending' ? toIso(row.next_attempt_at) : null,
      created_at: toIso(row.created_at)!,
      updated_at: toIso(row.updated_at)!,
    };
  }

  /**
   * A deferred extraction from its stored evidence. Facts that landed before a crash cut the
   * attempt short are counted, not extracted again: one insert stores all of an extraction's facts.
   */
  private async runDeferred(row: ExtractionRow): Promise<number> {
    const [stored] = await this.storage.query<{ n: string }>(
      `SELECT count() AS n FROM ${this.storage.tables.memories} FINAL WHERE namespace = {ns:String} AND extraction_id = {id:String} AND deleted = 0`,
      { ns: row.namespace, id: row.extraction_id },
    );
    if (Number(stored?.n ?? 0) > 0) return Number(stored!.n);
    const evidence = await this.storage.query<{ role: string; content: string }>(
      `SELECT role, content FROM ${this.storage.tables.memoryEvidence} FINAL WHERE namespace = {ns:String} AND extraction_id = {id:String} ORDER BY seq`,
      { ns: row.namespace, id: row.extraction_id },
    );
    return this.extract(row.namespace, row.extraction_id, evidence, row.user_id);
  }

  async search(namespace: string, input: SearchMemoryRequest): Promise<SearchMemoryResponse> {
    if (readsAsHigh(input.query)) return { hits: [] };
    const embedded = await this.embedder.embed([input.query]);
    if (!embedded.ok) throw new LoomError('unavailable', `memory.search needs the embedder (${embedded.message}); retry`);
    const rows = await this.storage.query<MemoryRow>(
      `SELECT memory_id, user_id, text, source, embedding, toString(created_at) AS created_at FROM ${this.storage.tables.memories} FINAL
       WHERE namespace = {ns:String} AND deleted = 0 AND model = {model:String}
         ${input.user_id !== undefined ? 'AND user_id = {user:String}' : ''}`,
      { ns: namespace, model: embedded.model, user: input.user_id ?? '' },
    );
    const query = embedded.vectors[0]!;
    const hits: MemoryHit[] = rows
      .map((r) => ({ row: r, score: cosineSimilarity(query, r.embedding) }))
      .filter((h) => h.score >= SEARCH_FLOOR)
      .sort((a, b) => b.score - a.score)
      .slice(0, input.limit ?? 10)
      .map(({ row, score }) => ({ memory_id: row.memory_id, text: row.text, user_id: row.user_id || null, source: row.source, score, created_at: toIso(row.created_at)! }));
    return { hits };
  }

  /** Lexical (BM25) and time-window reads over the turns extractions read. */
  async recall(namespace: string, input: RecallRequest): Promise<RecallResponse> {
    const since = parseTime(input.since, 'since');
    const until = parseTime(input.until, 'until');
    const rows = await this.storage.query<{ extraction_id: string; seq: number; session_id: string; user_id: string; role: TurnRole; content: string; ts: string }>(
      `SELECT extraction_id, seq, session_id, user_id, role, content, ts FROM ${this.storage.tables.memoryEvidence} FINAL
       WHERE namespace = {ns:String}
         ${since ? "AND ts >= {since:DateTime64(3, 'UTC')}" : ''}
         ${until ? "AND ts <= {until:DateTime64(3, 'UTC')}" : ''}
         ${input.user_id !== undefined ? 'AND user_id = {user:String}' : ''}
       ORDER BY ts DESC, extraction_id, seq
       LIMIT 50000`,
      { ns: namespace, since: since ?? '', until: until ?? '', user: input.user_id ?? '' },
    );
    const limit = input.limit ?? 20;
    const key = (r: { extraction_id: string; seq: number }): string => `${r.extraction_id}#${r.seq}`;
    const view = (r: (typeof rows)[number], score: number | null, at?: number) => ({
      extraction_id: r.extraction_id,
      session_id: r.session_id || null,
      user_id: r.user_id || null,
      role: r.role,
      ts: toIso(r.ts)!,
      excerpt: at !== undefined ? centredExcerpt(r.content, at, EXCERPT_CHARS) : firstChars(r.content, EXCERPT_CHARS),
      score,
    });
    if (!input.query?.trim()) return { hits: rows.slice(0, limit).map((r) => view(r, null)) };
    const byKey = new Map(rows.map((r) => [key(r), r]));
    const ranked = bm25(rows.map((r) => ({ key: key(r), text: r.content })), input.query);
    return { hits: ranked.slice(0, limit).map((h) => view(byKey.get(h.key)!, h.score, h.firstMatch)) };
  }

  async close(): Promise<void> {
    await this.extractions.close();
  }

  private async extract(namespace: string, extractionId: string, messages: Array<{ role: string; content: string }>, userId: string): Promise<number> {
    if (messages.length === 0) return 0;
    // The stock fake model finds no facts; that is not an error.
    const answer = await this.llm.complete(extractionRequest(messages));
    const facts = parseFacts(answer.text).filter((f) => !readsAsHigh(f));
    if (facts.length === 0) return 0;
    await this.store(namespace, facts, { userId, source: 'extraction', extractionId });
    return facts.length;
  }

  private async store(namespace: string, texts: string[], meta: { userId: string; source: string; extractionId: string }): Promise<string[]> {
    const embedded = await this.embedder.embed(texts);
    if (!embedded.ok) throw new LoomError('unavailable', `memories need the embedder to be searchable (${embedded.message}); nothing was stored; retry`);
    const now = formatMillis();
    const rows = texts.map((text, i) => ({
      namespace,
      memory_id: newId('mem_'),
      user_id: meta.userId,
      text,
      source: meta.source,
      extraction_id: meta.extractionId,
      model: embedded.model,
      embedding: embedded.vectors[i]!,
      created_at: now,
      deleted: false,
      version: nextVersion(),
    }));
    await this.storage.insert(this.storage.tables.memories, rows);
    return rows.map((r) => r.memory_id);
  }
}

function parseTime(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new LoomError('invalid_input', `${field} must be an ISO 8601 time`, { fields: [{ field, message: 'not an ISO 8601 time' }] });
  return formatMillis(new Date(ms));
}
