import type { Storage } from '@loom/clickhouse';
import { toIso } from '@loom/clickhouse';
import { ALL_AGENTS, Defaults, type SearchHit, type SearchTurnsRequest, type SearchTurnsResponse } from '@loom/contracts';
import { readsAsHigh } from '@loom/sensitivity';
import type { EmbeddingClient } from '../embedding/embedding.client';
import { usableQueryVector } from '../embedding/embedding-columns';
import type { LiveSettingsService } from '../settings/live-settings.service';
import { candidatesFor, exactCandidatesStatement, latestLive, needsMoreCandidates, quantize, rankExact, vectorCandidatesStatement, type CandidateRow } from './vector-ranking';

/** A hit as read: a vector candidate, or a substring match (which has no score). */
type HitRow = Omit<CandidateRow, 'deleted' | 'version' | 'score'> & { score?: number };

/** Which namespaces a search covers: a list, or every namespace (an every-namespace token). */
export type NamespaceSet = { all: true } | { all: false; namespaces: string[] };

/**
 * conversation.search: cosine ranking over embedding rows with the live similarity floor; when
 * the embedder cannot answer, a case-insensitive substring match over the same kinds of turn.
 * High turns have no embedding row and are excluded from the fallback by their flag.
 */
export class SearchService {
  constructor(
    private readonly storage: Storage,
    private readonly embedder: EmbeddingClient,
    private readonly settings: LiveSettingsService,
  ) {}

  async search(scope: NamespaceSet, agent: string, input: SearchTurnsRequest): Promise<SearchTurnsResponse> {
    const [excerptChars, floor] = await Promise.all([
      this.settings.get('conversation_search_excerpt_chars'),
      this.settings.get('conversation_search_min_similarity'),
    ]);
    const limit = input.limit ?? Defaults.searchLimit;
    // A query holding a secret is never sent to the embedder; the substring match answers it
    // (and it never returns high turns, so the secret is not echoed back either).
    const embedded = readsAsHigh(input.query) ? undefined : await this.embedder.embed([input.query]);
    // A query with nothing to embed ("?", "👍") has no direction to rank by: the substring match answers it.
    const query = usableQueryVector(embedded);
    if (query) {
      const rows = await this.vectorSearch(scope, agent, input, { ...query, floor, limit, excerptChars });
      return { hits: rows.map(toHit), mode: 'vector' };
    }
    const rows = await this.substringSearch(scope, agent, input, { limit, excerptChars });
    return { hits: rows.map(toHit), mode: 'substring' };
  }

  /** The caller's filters; `deleted = 0` too unless the ranking resolves versions itself. */
  private filters(scope: NamespaceSet, agent: string, input: SearchTurnsRequest, params: Record<string, unknown>, options: { live: boolean } = { live: true }): string[] {
    const conditions = options.live ? ['deleted = 0'] : [];
    if (!scope.all) {
      conditions.push('namespace IN {namespaces:Array(String)}');
      params['namespaces'] = scope.namespaces;
    }
    if (agent !== ALL_AGENTS) {
      conditions.push('agent = {agent:String}');
      params['agent'] = agent;
    }
    if (input.thread_id !== undefined) {
      conditions.push('thread_id = {thread:String}');
      params['thread'] = input.thread_id;
    }
    if (input.run_id !== undefined) {
      conditions.push('run_id = {run:String}');
      params['run'] = input.run_id;
    }
    if (input.role !== undefined) {
      conditions.push('role = {role:String}');
      params['role'] = input.role;
    }
    return conditions;
  }

  private async vectorSearch(
    scope: NamespaceSet,
    agent: string,
    input: SearchTurnsRequest,
    options: { vector: number[]; model: string; floor: number; limit: number; excerptChars: number },
  ): Promise<HitRow[]> {
    // One thread's rows are few: score them exactly. A wider scope ranks on the Int8 copy first.
    const exact = input.thread_id !== undefined;
    const params: Record<string, unknown> = { q: options.vector, ...(exact ? {} : { q16: quantize(options.vector) }), chars: options.excerptChars };
    const all = this.filters(scope, agent, input, params, { live: false });
    // Agent, run and role can change in a hand-over: those filters also let hand-over versions through.
    const handOver = all.filter((c) => /^(agent|run_id|role) = /.test(c));
    const conditions = all.filter((c) => !handOver.includes(c));
    // Rows whose embed failed have no vector and stay out; vectors of another model are never compared.
    conditions.push("embed_error = ''", 'model = {model:String}');
    params['model'] = options.model;
    const statement = (exact ? exactCandidatesStatement : vectorCandidatesStatement)(this.storage.tables.conversationEmbeddings, conditions, handOver);
    const filters = { agent: agent === ALL_AGENTS ? undefined : agent, run_id: input.run_id, role: input.role };
    for (let pool = candidatesFor(options.limit); ; pool *= 4) {
      const rows = await this.storage.query<CandidateRow>(statement, { ...params, candidates: pool });
      const live = latestLive(rows, filters);
      if (!needsMoreCandidates(pool, rows.length, live.length, options.limit)) return rankExact(live, options.floor, options.limit);
    }
  }

  private async substringSearch(scope: NamespaceSet, agent: string, input: SearchTurnsRequest, options: { limit: number; excerptChars: number }): Promise<HitRow[]> {
    const params: Record<string, unknown> = { needle: input.query, limit: options.limit, chars: options.excerptChars };
    const conditions = this.filters(scope, agent, input, params);
    conditions.push('is_high = 0', "(role IN ('user', 'assistant') OR is_summary)", 'positionCaseInsensitiveUTF8(content, {needle:String}) > 0');
    return this.storage.query<HitRow>(
      `SELECT namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, substringUTF8(content, 1, {chars:UInt32}) AS excerpt
       FROM ${this.storage.tables.conversations} FINAL
       WHERE ${conditions.join(' AND ')}
       ORDER BY ts DESC
       LIMIT {limit:UInt32}`,
      params,
    );
  }
}

function toHit(row: HitRow): SearchHit {
  return {
    namespace: row.namespace,
    thread_id: row.thread_id,
    msg_id: row.msg_id,
    agent: row.agent,
    role: row.role,
    run_id: row.run_id || null,
    user_id: row.user_id || null,
    ts: toIso(row.ts)!,
    score: row.score === undefined ? null : Math.round(Number(row.score) * 1e6) / 1e6,
    excerpt: row.excerpt,
  };
}
