import type { Storage } from '@loom/clickhouse';
import { toIso } from '@loom/clickhouse';
import { ALL_AGENTS, Defaults, type SearchHit, type SearchMode, type SearchTurnsRequest, type SearchTurnsResponse } from '@loom/contracts';
import { readsAsHigh } from '@loom/sensitivity';
import type { EmbeddingClient } from '../embedding/embedding.client';
import { usableQueryVector } from '../embedding/embedding-columns';
import { bm25ScoringStatement, POSTINGS_PER_TERM } from '../lexical/bm25-scoring-statement';
import { Bm25Statistics, type Bm25Parameters } from '../lexical/bm25-statistics';
import type { KeptLexicalFilters, KeptLexicalRanker, KeptPostings } from '../lexical/kept-postings';
import { retentionCondition } from '../lexical/retention-condition';
import { firstMatch, queryTerms } from '../lexical/tokenizer';
import { centredExcerpt } from '../saved/bm25';
import type { LiveSettingsService } from '../settings/live-settings.service';
import { firstChars, isWholeText } from '../text';
import { latestTextStatement, neighbourStatement } from './neighbour-statement';
import { convexFusion, fusionDepth, HYBRID_VECTOR_FLOOR, hybridVectorDepth, NEIGHBOUR_SOURCES, withNeighbours } from './score-fusion';
import type { KeptRanker, KeptVectors } from './kept-vectors';
import { candidatesFor, exactCandidatesStatement, keptCandidatesStatement, latestLive, needsMoreCandidates, quantize, rankExact, vectorCandidatesStatement, type CandidateRow, type HandOverFilters } from './vector-ranking';

/** A hit as read: a vector candidate, or a substring match (which has no score). */
type HitRow = Omit<CandidateRow, 'deleted' | 'version' | 'score'> & { score?: number };

/** A BM25 hit: the turn's columns, its score and the query terms it holds (its excerpt comes later). */
type LexicalRow = Omit<HitRow, 'excerpt'> & { score: number; matched: string[] };

/** How the lexical leg keeps its statistics and honours the retention TTL. */
export interface LexicalSearchOptions {
  /** At most how long BM25 statistics read for a namespace serve its searches while unchanged (ms); 0 reads them every time. */
  statsMaxAgeMs: number;
  /** LOOM_RETENTION_CONVERSATIONS_DAYS (0: keep forever): an expired turn is not found by its words. */
  retentionDays: number;
  /** How deep hybrid's vector leg ranks for a limit (default `hybridVectorDepth`); the lab tries others. */
  vectorDepth?: (limit: number) => number;
  /** Namespaces' Int8 vectors kept in this process (ADR 0038): stage 1 of a namespace-wide vector leg ranks them here. */
  keptVectors?: KeptVectors;
  /** Namespaces' postings of asked terms kept in this process (ADR 0039): a namespace-wide lexical leg ranks here. */
  keptPostings?: KeptPostings;
}

/** One attempt at a search: whether kept copies may answer, and when it began (performance.now()). */
interface SearchPass {
  useKept: boolean;
  began: number;
}

/** The vector leg's rows, and whether an exact kept copy alone ranked them (then a hit with no row left was purged since). */
interface VectorLeg {
  rows: HitRow[];
  kept: boolean;
}

/** The lexical leg's rows, and whether they were ranked on kept postings (then a hit whose text is gone was purged since). */
interface LexicalLeg {
  rows: LexicalRow[];
  /** The kept postings' ranker when they ranked the rows (it finds neighbours too). */
  kept?: { ranker: KeptLexicalRanker; filters: KeptLexicalFilters };
}

/** Which namespaces a search covers: a list, or every namespace (an every-namespace token). */
export type NamespaceSet = { all: true } | { all: false; namespaces: string[] };

/** How long unchanged BM25 statistics serve by default: the retention TTL expires turns without a write. */
export const DEFAULT_STATS_MAX_AGE_MS = 60_000;

/**
 * BM25's k1 as usual; b below the usual 0.75, because a turn is short and a long one is often
 * long for a reason (a full answer): measured with `npm run eval`, 0.5 ranked better on both sets.
 */
const K1 = 1.2;
const B = 0.5;

export { fusionDepth } from './score-fusion';

/** A neighbour of a hit (neighbour-statement.ts): its columns and the turns on either side. */
type NeighbourRow = Omit<HitRow, 'excerpt'> & { prev_id: string; next_id: string };

const hitKey = (row: { namespace: string; thread_id: string; msg_id: string }): string => JSON.stringify([row.namespace, row.thread_id, row.msg_id]);

/**
 * conversation.search in three modes (`search_mode`, default the live setting
 * conversation_search_default_mode):
 * - `vector`: cosine ranking over embedding rows with the live similarity floor; when the
 *   embedder cannot answer, a case-insensitive substring match over the same kinds of turn.
 * - `lexical`: BM25 over the postings the write path keeps (the whole text of every turn that
 *   has an embedding row), inside the engine.
 * - `hybrid`: both legs fused by their scores (score-fusion.ts), `lexical_weight` scaling the
 *   BM25 leg, the vector leg without the live floor; then the turns next to the best hits in
 *   their threads take a share of their scores. When the embedder cannot answer, the BM25 leg
 *   alone (mode `lexical`).
 * High turns have no embedding row (so no postings either) and are excluded from the fallback
 * by their flag. A query that reads as high never reaches the embedder.
 */
export class SearchService {
  /** Per-namespace BM25 statistics, reused while the namespace's postings are unchanged. */
  private readonly statistics: Bm25Statistics;
  private readonly retentionDays: number;
  private readonly vectorDepth: (limit: number) => number;
  private readonly kept: KeptVectors | undefined;
  private readonly keptPostings: KeptPostings | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly embedder: EmbeddingClient,
    private readonly settings: LiveSettingsService,
    lexical: LexicalSearchOptions = { statsMaxAgeMs: DEFAULT_STATS_MAX_AGE_MS, retentionDays: 0 },
  ) {
    this.retentionDays = lexical.retentionDays;
    this.vectorDepth = lexical.vectorDepth ?? hybridVectorDepth;
    this.kept = lexical.keptVectors;
    this.keptPostings = lexical.keptPostings;
    this.statistics = new Bm25Statistics(storage, { maxAgeMs: lexical.statsMaxAgeMs, retentionDays: lexical.retentionDays });
  }

  async search(scope: NamespaceSet, agent: string, input: SearchTurnsRequest): Promise<SearchTurnsResponse> {
    // A turn purged since kept postings were read has no text left: the copy is read again, and
    // this search answers from the engine's postings.
    return (await this.searchOnce(scope, agent, input, true)) ?? (await this.searchOnce(scope, agent, input, false))!;
  }

  /** One search; undefined when a BM25 hit ranked on kept postings turned out to be gone. */
  private async searchOnce(scope: NamespaceSet, agent: string, input: SearchTurnsRequest, useKept: boolean): Promise<SearchTurnsResponse | undefined> {
    // The kept copies' catch-ups may share a statement that began after this search did (ADR 0040).
    const pass: SearchPass = { useKept, began: performance.now() };
    const settings = await this.settings.all();
    const mode: SearchMode = input.search_mode ?? settings.conversation_search_default_mode;
    const excerptChars = settings.conversation_search_excerpt_chars;
    const floor = settings.conversation_search_min_similarity;
    const limit = input.limit ?? Defaults.searchLimit;
    if (mode === 'vector') return this.vectorMode(scope, agent, input, { floor, limit, excerptChars }, pass);

    // Words the index never holds (stopwords, punctuation) find nothing, in either leg.
    const terms = queryTerms(input.query);
    if (terms.length === 0) return { hits: [], mode };
    if (mode === 'lexical') {
      const leg = await this.lexicalSearch(scope, agent, input, terms, limit, pass);
      const hits = await this.lexicalHits(leg, excerptChars, limit);
      return hits && { hits, mode };
    }

    const vectorFloor = Math.min(floor, HYBRID_VECTOR_FLOOR);
    // A query holding a secret is never sent to the embedder: the BM25 leg answers alone.
    const vectorLeg = async (): Promise<VectorLeg | undefined> => {
      const embedded = readsAsHigh(input.query) ? undefined : await this.embedder.embed([input.query]);
      const query = usableQueryVector(embedded);
      if (!query) return undefined;
      return this.vectorSearch(scope, agent, input, { ...query, floor: vectorFloor, limit: this.vectorDepth(limit), excerptChars, excerpts: false }, pass);
    };
    const [vectorResult, leg] = await Promise.all([vectorLeg(), this.lexicalSearch(scope, agent, input, terms, fusionDepth(limit), pass)]);
    if (!vectorResult) {
      const hits = await this.lexicalHits(leg, excerptChars, limit);
      return hits && { hits, mode: 'lexical' };
    }
    const vector = vectorResult.rows;
    const lexical = leg.rows;

    const weight = input.lexical_weight ?? Defaults.searchLexicalWeight;
    const fused = convexFusion(
      lexical.map((r) => ({ key: hitKey(r), score: r.score })),
      vector.map((r) => ({ key: hitKey(r), score: Number(r.score) })),
      { lexicalWeight: weight, vectorFloor, vectorOnlyFloor: floor },
    );
    const vectorRows = new Map(vector.map((r) => [hitKey(r), r]));
    const lexicalRows = new Map(lexical.map((r) => [hitKey(r), r]));
    const rowOf = new Map<string, HitRow>([...lexical.map((r): [string, HitRow] => [hitKey(r), { ...r, excerpt: '' }]), ...vectorRows]);
    const order = [...fused].sort((a, b) => b[1] - a[1]).map(([key]) => key);
    const sources = order.slice(0, NEIGHBOUR_SOURCES).map((key) => rowOf.get(key)!);
    // A hit the BM25 leg found shows the text around its first matched term. In the engine path the
    // texts of the BM25 hits in the fused top `limit` are read beside the neighbour statement (all
    // that can rank was too many: at 100k turns they spanned ~100 threads); kept postings find the
    // neighbours here, so the texts are read once the answer's hits are known.
    const early = leg.kept ? [] : order.slice(0, limit).flatMap((key) => (lexicalRows.has(key) ? [lexicalRows.get(key)!] : []));
    const [neighbours, texts] = await Promise.all([leg.kept ? keptNeighbours(leg.kept, sources) : this.neighbours(scope, agent, input, sources), this.fullTexts(early)]);
    for (const [key, row] of neighbours.rows) if (!rowOf.has(key)) rowOf.set(key, row);
    const ranked = [...withNeighbours(fused, neighbours.of)]
      .flatMap(([key, score]) => {
        const row = rowOf.get(key);
        return row ? [{ key, score, row }] : [];
      })
      .sort((a, b) => b.score - a.score || (a.row.ts < b.row.ts ? 1 : a.row.ts > b.row.ts ? -1 : 0))
      .slice(0, limit);
    // The answer's texts in one statement (the vector leg reads none): each hit's latest embedding
    // row, whole for most turns; a BM25 hit's longer text is then read from its transcript.
    const latest = await this.embeddingTexts(ranked.map(({ row }) => row));
    const asked = new Set(early.map(hitKey));
    const late = ranked.flatMap(({ key }) => (lexicalRows.has(key) && !asked.has(key) ? [lexicalRows.get(key)!] : []));
    for (const [key, text] of await this.fullTexts(late, latest)) texts.set(key, text);
    const excerpts = new Map([...latest].map(([key, text]) => [key, firstChars(text, excerptChars)]));
    // A hit only kept copies vouch for (kept postings: a BM25 hit, a neighbour; an exact vector
    // copy: a vector hit), with no text left, was removed without a version since they were read.
    const engineVouched = (key: string): boolean => (vectorRows.has(key) && !vectorResult.kept) || ((lexicalRows.has(key) || !vectorRows.has(key)) && !leg.kept);
    const gone = ranked.filter(({ key }) => !engineVouched(key) && (lexicalRows.has(key) ? !texts.has(key) : !excerpts.has(key)));
    if (gone.length > 0) return this.forgetPurged(gone.map(({ row }) => row));
    const matchedExcerpt = new Map(ranked.flatMap(({ key }) => {
      const lexicalRow = lexicalRows.get(key);
      const excerpt = lexicalRow && matchExcerpt(texts.get(key), lexicalRow.matched, excerptChars);
      return excerpt === undefined ? [] : [[key, excerpt] as const];
    }));
    // A BM25 hit with no text shows the first characters of its embedding row when the vector leg found it too.
    const excerptOf = (key: string): string => matchedExcerpt.get(key) ?? (lexicalRows.has(key) && !vectorRows.has(key) ? undefined : excerpts.get(key)) ?? '';
    const hits = ranked.map(({ key, score, row }) => toHit({ ...row, excerpt: excerptOf(key), score }));
    return { hits, mode };
  }

  /**
   * The turns on either side of each hit in its thread, among those the search may return
   * (neighbour-statement.ts): their columns without an excerpt (`excerpts` reads it for the few
   * that make the answer).
   */
  private async neighbours(scope: NamespaceSet, agent: string, input: SearchTurnsRequest, hits: ReadonlyArray<HitRow>): Promise<{ rows: Map<string, HitRow>; of: Map<string, string[]> }> {
    const rows = new Map<string, HitRow>();
    const of = new Map<string, string[]>();
    if (hits.length === 0) return { rows, of };
    const params: Record<string, unknown> = {
      hit_namespaces: [...new Set(hits.map((h) => h.namespace))],
      hit_threads: [...new Set(hits.map((h) => h.thread_id))],
      hit_ids: [...new Set(hits.map((h) => h.msg_id))],
    };
    const found = await this.storage.query<NeighbourRow>(neighbourStatement(this.storage.tables.conversationEmbeddings, this.filters(scope, agent, input, params)), params);
    const isHit = new Set(hits.map(hitKey));
    for (const { prev_id, next_id, ...row } of found) {
      const key = hitKey(row);
      for (const side of [prev_id, next_id]) {
        const hit = hitKey({ namespace: row.namespace, thread_id: row.thread_id, msg_id: side });
        if (!isHit.has(hit)) continue;
        rows.set(key, { ...row, excerpt: '' });
        of.set(hit, [...(of.get(hit) ?? []), key]);
      }
    }
    return { rows, of };
  }

  /**
   * The text of each turn's latest embedding row, by key; a turn whose latest row is a tombstone,
   * or that has none, is absent. Below `Limits.embedChars` characters it is the turn's whole text
   * (`isWholeText`). One statement on the embedding rows (granules of 64 rows, LZ4): at 100k turns
   * about half the time of the same read from the transcripts, whose granules hold ~500 turns in ZSTD.
   */
  private async embeddingTexts(rows: ReadonlyArray<{ namespace: string; thread_id: string; msg_id: string }>): Promise<Map<string, string>> {
    if (rows.length === 0) return new Map();
    const keys = { namespaces: [...new Set(rows.map((r) => r.namespace))], threads: [...new Set(rows.map((r) => r.thread_id))], ids: [...new Set(rows.map((r) => r.msg_id))] };
    const found = await this.storage.query<{ namespace: string; thread_id: string; msg_id: string; text: string; deleted: boolean | number }>(latestTextStatement(this.storage.tables.conversationEmbeddings), keys);
    const wanted = new Set(rows.map(hitKey));
    // The IN lists cross (one turn's msg_id in another's thread): only the turns asked are kept.
    return new Map(found.filter((f) => !Number(f.deleted) && wanted.has(hitKey(f))).map((f) => [hitKey(f), f.text]));
  }

  /** The spec's vector search, unchanged: cosine ranking, or the substring fallback. */
  private async vectorMode(
    scope: NamespaceSet,
    agent: string,
    input: SearchTurnsRequest,
    options: { floor: number; limit: number; excerptChars: number },
    pass: SearchPass,
  ): Promise<SearchTurnsResponse | undefined> {
    // A query holding a secret is never sent to the embedder; the substring match answers it
    // (and it never returns high turns, so the secret is not echoed back either).
    const embedded = readsAsHigh(input.query) ? undefined : await this.embedder.embed([input.query]);
    // A query with nothing to embed ("?", "👍") has no direction to rank by: the substring match answers it.
    const query = usableQueryVector(embedded);
    if (query) {
      const leg = await this.vectorSearch(scope, agent, input, { ...query, ...options }, pass);
      return leg && { hits: leg.rows.map(toHit), mode: 'vector' };
    }
    const rows = await this.substringSearch(scope, agent, input, options);
    return { hits: rows.map(toHit), mode: 'substring' };
  }

  /**
   * BM25 in the engine over every namespace in scope, with the vector leg's filters, scored with
   * the namespaces' statistics (`Bm25Statistics`): cached ones are checked beside the scoring,
   * and when a write made them out of date, they are read again and the scoring re-runs.
   */
  private async lexicalSearch(scope: NamespaceSet, agent: string, input: SearchTurnsRequest, terms: string[], limit: number, pass: SearchPass): Promise<LexicalLeg> {
    // A namespace-wide search whose namespaces' postings are kept ranks here (ADR 0039).
    const ranker = pass.useKept && !scope.all ? await this.keptPostings?.ranker(scope.namespaces, terms, { k1: K1, b: B }, pass.began) : undefined;
    if (ranker) {
      const filters = { agent: agent === ALL_AGENTS ? undefined : agent, thread_id: input.thread_id, run_id: input.run_id, role: input.role };
      return { rows: ranker.rank(filters, limit), kept: { ranker, filters } };
    }
    const { parameters, current } = await this.statistics.lookup(scope, terms);
    const [rows, fresh] = await Promise.all([this.scoreLexical(scope, agent, input, terms, limit, parameters), current]);
    if (fresh) return { rows };
    return { rows: await this.scoreLexical(scope, agent, input, terms, limit, await this.statistics.refresh(scope, terms)) };
  }

  /** Reads the kept copies of the namespaces of purged hits again; the caller searches in the engine. */
  private forgetPurged(rows: ReadonlyArray<{ namespace: string }>): undefined {
    for (const ns of new Set(rows.map((r) => r.namespace))) {
      this.keptPostings?.suspect(ns);
      this.kept?.suspect(ns);
    }
    return undefined;
  }

  private async scoreLexical(scope: NamespaceSet, agent: string, input: SearchTurnsRequest, terms: string[], limit: number, stats: Bm25Parameters): Promise<LexicalRow[]> {
    const params: Record<string, unknown> = { terms, limit, per_term: POSTINGS_PER_TERM, k1: K1, b: B, stat_ns: stats.namespaces, avgdl: stats.avgLengths, idf: stats.idf };
    const scopeConditions = retentionCondition(this.retentionDays, params);
    if (!scope.all) {
      scopeConditions.unshift('namespace IN {namespaces:Array(String)}');
      params['namespaces'] = scope.namespaces;
    }
    const filters = this.filters({ all: true }, agent, input, params, { live: false });
    const rows = await this.storage.query<LexicalRow>(bm25ScoringStatement(this.storage.tables.conversationTerms, scopeConditions, filters), params);
    return rows.map((r) => ({ ...r, score: Number(r.score) }));
  }

  /**
   * The best `limit` lexical hits with the excerpt around each one's first matched term; undefined
   * when kept postings ranked one whose text is gone (purged since they were read).
   */
  private async lexicalHits(leg: LexicalLeg, chars: number, limit: number): Promise<SearchHit[] | undefined> {
    const rows = leg.rows.slice(0, limit);
    const texts = await this.fullTexts(rows, await this.embeddingTexts(rows));
    const gone = rows.filter((row) => !texts.has(hitKey(row)));
    if (leg.kept && gone.length > 0) return this.forgetPurged(gone);
    return rows.map((row) => toHit({ ...row, excerpt: matchExcerpt(texts.get(hitKey(row)), row.matched, chars) ?? '' }));
  }

  /**
   * The whole text of each turn (the postings cover all of it): from `known` (embeddingTexts) when
   * whole there, else the owner's transcript row, or where retention expired it, the embedding
   * row's first 2,048 characters. None is ever high.
   */
  private async fullTexts(all: ReadonlyArray<{ namespace: string; thread_id: string; agent: string; msg_id: string }>, known: ReadonlyMap<string, string> = new Map()): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    // A latest embedding row's text already read is the whole text when it is short enough.
    for (const r of all) {
      const text = known.get(hitKey(r));
      if (text !== undefined && isWholeText(text)) texts.set(hitKey(r), text);
    }
    const rows = all.filter((r) => !texts.has(hitKey(r)));
    if (rows.length === 0) return texts;
    const { tables } = this.storage;
    const params = {
      namespaces: [...new Set(rows.map((r) => r.namespace))],
      threads: [...new Set(rows.map((r) => r.thread_id))],
      ids: [...new Set(rows.map((r) => r.msg_id))],
    };
    const turns = await this.storage.query<{ namespace: string; thread_id: string; agent: string; msg_id: string; text: string }>(
      `SELECT namespace, thread_id, agent, msg_id, content AS text FROM ${tables.conversations} FINAL
         WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)} AND deleted = 0 AND is_high = 0`,
      params,
    );
    const owners = new Map(rows.map((r) => [hitKey(r), r.agent]));
    // Another agent's copy of the turn serves when the owner's is gone; the owner's wins.
    for (const t of [...turns].sort((a, b) => Number(a.agent === owners.get(hitKey(a))) - Number(b.agent === owners.get(hitKey(b))))) texts.set(hitKey(t), t.text);
    // Only where retention expired every transcript row: the embedding row's text (read only then).
    const missing = rows.filter((r) => !texts.has(hitKey(r)));
    if (missing.length === 0) return texts;
    const vectors = await this.storage.query<{ namespace: string; thread_id: string; msg_id: string; text: string }>(
      `SELECT namespace, thread_id, msg_id, text FROM ${tables.conversationEmbeddings} FINAL
         WHERE namespace IN {namespaces:Array(String)} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)} AND deleted = 0`,
      { namespaces: [...new Set(missing.map((r) => r.namespace))], threads: [...new Set(missing.map((r) => r.thread_id))], ids: [...new Set(missing.map((r) => r.msg_id))] },
    );
    for (const v of vectors) if (!texts.has(hitKey(v))) texts.set(hitKey(v), v.text);
    return texts;
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
    options: { vector: number[]; model: string; floor: number; limit: number; excerptChars: number; excerpts?: boolean },
    pass: SearchPass,
  ): Promise<VectorLeg | undefined> {
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
    const filters = { agent: agent === ALL_AGENTS ? undefined : agent, run_id: input.run_id, role: input.role };
    // A namespace-wide search whose namespaces are kept ranks its first stage here (ADR 0038).
    const ranker = exact || scope.all || !pass.useKept ? undefined : await this.kept?.ranker(scope.namespaces, options.model, pass.began);
    if (ranker?.hits) {
      // Exact copies (ADR 0040): both stages here; only the answer's excerpts are read.
      const hits: HitRow[] = ranker.hits(params['q16'] as number[], options.vector, filters, options.limit, options.floor).map((h) => ({ ...h, excerpt: '' }));
      if (options.excerpts === false) return { rows: hits, kept: true };
      const texts = await this.embeddingTexts(hits);
      // A hit with no row left was purged (or expired) since the copy was read.
      if (hits.some((h) => !texts.has(hitKey(h)))) return this.forgetPurged(hits);
      return { rows: hits.map((h) => ({ ...h, excerpt: firstChars(texts.get(hitKey(h))!, options.excerptChars) })), kept: true };
    }
    if (ranker) {
      const { q16, ...exactParams } = params;
      return { rows: await this.keptSearch(ranker, q16 as number[], keptCandidatesStatement(this.storage.tables.conversationEmbeddings, conditions, handOver, { excerpt: options.excerpts ?? true }), exactParams, filters, options), kept: false };
    }
    const statement = (exact ? exactCandidatesStatement : vectorCandidatesStatement)(this.storage.tables.conversationEmbeddings, conditions, handOver, { excerpt: options.excerpts ?? true });
    for (let pool = candidatesFor(options.limit); ; pool *= 4) {
      const rows = await this.storage.query<CandidateRow>(statement, { ...params, candidates: pool });
      const live = latestLive(rows, filters);
      if (!needsMoreCandidates(pool, rows.length, live.length, options.limit)) return { rows: rankExact(live, options.floor, options.limit), kept: false };
    }
  }

  /**
   * The two stages with the first ranked on kept vectors: the candidates' every version is read
   * with exact scores (keptCandidatesStatement), then stage 2 as in the engine path, the pool
   * growing while superseded versions crowd it.
   */
  private async keptSearch(
    ranker: KeptRanker,
    query: readonly number[],
    statement: string,
    params: Record<string, unknown>,
    filters: HandOverFilters,
    options: { floor: number; limit: number },
  ): Promise<HitRow[]> {
    for (let pool = candidatesFor(options.limit); ; pool *= 4) {
      const candidates = ranker.candidates(query, filters, pool);
      const wanted = new Set(candidates.map(hitKey));
      const rows =
        candidates.length === 0
          ? []
          : (
              await this.storage.query<CandidateRow>(statement, {
                ...params,
                kept_threads: [...new Set(candidates.map((c) => c.thread_id))],
                kept_ids: [...new Set(candidates.map((c) => c.msg_id))],
              })
            ).filter((row) => wanted.has(hitKey(row)));
      const live = latestLive(rows, filters);
      if (!needsMoreCandidates(pool, candidates.length, live.length, options.limit)) return rankExact(live, options.floor, options.limit);
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

/** `SearchService.neighbours` answered from kept postings (their turns' rows, in the same shape). */
function keptNeighbours(kept: { ranker: KeptLexicalRanker; filters: KeptLexicalFilters }, hits: ReadonlyArray<HitRow>): { rows: Map<string, HitRow>; of: Map<string, string[]> } {
  const rows = new Map<string, HitRow>();
  const of = new Map<string, string[]>();
  for (const { hit, turn } of kept.ranker.neighbours(hits, kept.filters)) {
    const key = hitKey(turn);
    rows.set(key, { ...turn, excerpt: '' });
    const h = hitKey(hit);
    of.set(h, [...(of.get(h) ?? []), key]);
  }
  return { rows, of };
}

/** `chars` characters around the first of `terms` in `text`; undefined when the text holds none of them. */
function matchExcerpt(text: string | undefined, terms: readonly string[], chars: number): string | undefined {
  if (text === undefined) return undefined;
  const at = firstMatch(text, terms);
  return at === undefined ? firstChars(text, chars) : centredExcerpt(text, at, chars);
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
