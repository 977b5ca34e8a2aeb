import { toIso, type Storage } from '@loom/clickhouse';
import type { SavedMessageHit, SavedSearchMode, SearchSavedMessagesRequest, SearchSavedMessagesResponse, TurnRole } from '@loom/contracts';
import { readsAsHigh } from '@loom/sensitivity';
import type { EmbeddingClient } from '../embedding/embedding.client';
import { usableQueryVector } from '../embedding/embedding-columns';
import { firstMatch, queryTerms } from '../lexical/tokenizer';
import { fusionDepth } from '../search/search.service';
import { candidatesFor, quantize } from '../search/vector-ranking';
import type { LiveSettingsService } from '../settings/live-settings.service';
import { firstChars } from '../text';
import { centredExcerpt, reciprocalRankFusion } from './bm25';
import { keyOf, SavedCorpusCache, signatureOf, type SavedCorpus, type SavedCorpusBudget, type SavedScope } from './saved-corpus-cache';
import { B, bm25Idf, K1, rankBm25, rankByCosine } from './saved-ranking';
import { savedBm25Statement, savedHitRowsStatement, savedHitRowsWithSignatureStatement, savedVectorStatement } from './saved-statements';
import { SavedTexts } from './saved-texts';

const DEFAULT_LIMIT = 10;
const DEFAULT_LEXICAL_WEIGHT = 0.5;
/**
 * Characters of saved messages' text held for showing hits, all users together: the bench's user
 * of 10,000 messages holds about 7,000,000 (some 7-14 MB), so this holds several such users.
 */
export const DEFAULT_SAVED_TEXT_CHARS = 40_000_000;
/** Messages whose rows one statement of a background fill reads (each such statement holds chDB's other statements). */
const TEXT_PAGE = 250;

export interface SavedSearchOptions {
  /** LOOM_RETENTION_CONVERSATIONS_DAYS (0: forever): a held row past it is read from the engine. */
  retentionDays?: number;
  /** See DEFAULT_SAVED_TEXT_CHARS; 0 holds no text. */
  maxTextChars?: number;
}

/** A saved message's transcript row, read only for the hits shown. */
interface SavedDoc {
  thread_id: string;
  msg_id: string;
  agent: string;
  role: TurnRole;
  content: string;
  is_high: boolean | number;
  ts: string;
  sort_ts: string;
}

interface Ranked {
  key: string;
  score: number;
}

/** A leg's row: a message at one version, and its score. */
interface LegRow {
  thread_id: string;
  msg_id: string;
  version: string;
  score: number;
}

/**
 * conversation.search_saved_messages: one user's saved messages in one namespace, never fanned
 * out. Hybrid by default: a vector leg over each message's first 2,048 characters and a BM25
 * leg over its whole text, fused by reciprocal rank; `lexical_weight` scales the BM25 leg.
 *
 * The flow of a search (ADR 0016, ADR 0024, ADR 0037): the user's corpus (live set, statistics,
 * live vectors and every live posting) is kept by `SavedCorpusCache`; a warm search ranks both
 * legs in this process over what is held, then reads the transcript rows of the hits it returns
 * and the corpus's signature in one statement (ADR 0037 addendum 2). When the signature has
 * changed it reads the corpus again (a delta of the vectors and postings), ranks again and reads
 * the new hits' rows. Until every posting is held (a user's first search starts reading them in
 * the background) a term never asked before costs one statement to count. A corpus over the
 * memory budget ranks the leg it could not hold in the engine, over the user's rows in
 * `saved_docs` / `saved_terms`.
 */
export class SavedSearchService {
  private readonly cache: SavedCorpusCache;
  private readonly texts: SavedTexts<SavedDoc>;
  /** Background reads of a user's rows into `texts`, by user. */
  private readonly fills = new Map<string, Promise<void>>();

  constructor(
    private readonly storage: Storage,
    private readonly embedder: EmbeddingClient,
    private readonly settings: LiveSettingsService,
    budget: Partial<SavedCorpusBudget> = {},
    options: SavedSearchOptions = {},
  ) {
    this.cache = new SavedCorpusCache(storage, budget);
    this.texts = new SavedTexts(options.maxTextChars ?? DEFAULT_SAVED_TEXT_CHARS, options.retentionDays ?? 0);
  }

  /** Resolves when the kept corpora's background loads (vectors, postings, the rows shown) have ended (a user's first search starts them off the request path). */
  async settled(): Promise<void> {
    await this.cache.settled();
    while (this.fills.size > 0) await Promise.all([...this.fills.values()]);
  }

  /** Background reads running now: corpora reading their vectors or postings, users' rows being held (`loom_saved_search_loading`). */
  loading(): number {
    return this.cache.loading() + this.fills.size;
  }

  /** What the held rows of all users hold (tests, and the lab). */
  heldTexts(): { users: number; chars: number } {
    return this.texts.held();
  }

  async search(namespace: string, userId: string, input: SearchSavedMessagesRequest): Promise<SearchSavedMessagesResponse> {
    const requested: SavedSearchMode = input.search_mode ?? 'hybrid';
    const limit = input.limit ?? DEFAULT_LIMIT;
    const depth = fusionDepth(limit);
    const lexicalWeight = input.lexical_weight ?? DEFAULT_LEXICAL_WEIGHT;
    const scope: SavedScope = { ns: namespace, user: userId, ...(input.conversation_id !== undefined ? { conv: input.conversation_id } : {}) };
    const terms = queryTerms(input.query);

    // A query that reads as high goes to no provider; the lexical leg alone answers it.
    const embedding = requested === 'lexical' || readsAsHigh(input.query) ? Promise.resolve(undefined) : this.embedder.embed([input.query]);
    const kept = this.cache.cached(scope);
    const [settings, first] = await Promise.all([
      this.settings.all(),
      kept ? this.cache.countFrequencies(scope, kept, terms).then(() => kept) : this.cache.refresh(scope, terms),
    ]);
    const chars = settings.conversation_search_excerpt_chars;
    // A query with nothing to embed ("?") has no direction: the lexical leg answers it.
    const query = usableQueryVector(await embedding);
    const mode: SavedSearchMode = requested !== 'lexical' && !query ? 'lexical' : requested;
    const rank = async (corpus: SavedCorpus): Promise<Ranking> => {
      const [vectorRanked, lexical] = await Promise.all([
        mode === 'lexical' || !query ? [] : this.vectorLeg(scope, corpus, query, settings.conversation_search_min_similarity, mode === 'semantic' ? limit : depth),
        mode === 'semantic' ? [] : this.bm25(scope, corpus, terms, mode === 'lexical' ? limit : depth),
      ]);
      return { ...fuse(mode, vectorRanked, lexical, lexicalWeight, limit), inVector: new Set(vectorRanked.map((h) => h.key)), inLexical: new Set(lexical.map((h) => h.key)) };
    };
    if (!kept) this.fill(scope, first);
    let ranking = await rank(first);
    // A kept corpus is checked by the user's signature: read alone when the hits' rows are held at
    // their live versions (ADR 0037 addendum 3), else with those rows in one statement (addendum
    // 2), which then holds them. Written to since it was read, the corpus is read again and the
    // search ranks again.
    let docs: Map<string, SavedDoc>;
    if (kept) {
      const keys = ranking.ranked.map((r) => r.key);
      const held = this.texts.lookup(userKey(scope), keys, kept.live);
      const checked = held ? { docs: held, signature: await this.cache.signature(scope) } : await this.savedRowsChecked(scope, ranking.ranked);
      docs = checked.docs;
      if (checked.signature !== kept.signature) {
        const fresh = await this.cache.refresh(scope, terms);
        this.fill(scope, fresh);
        ranking = await rank(fresh);
        docs = await this.savedRows(scope, ranking.ranked);
      } else if (!held) this.texts.keep(userKey(scope), keys, kept.live, docs);
    } else docs = await this.savedRows(scope, ranking.ranked);

    const hits: SavedMessageHit[] = [];
    for (const { key, score } of ranking.ranked) {
      const doc = docs.get(key);
      if (!doc) continue;
      const at = ranking.inLexical.has(key) ? firstMatch(doc.content, terms) : undefined;
      hits.push({
        conversation_id: doc.thread_id,
        message_id: doc.msg_id,
        agent: doc.agent,
        role: doc.role,
        ts: toIso(doc.sort_ts)!,
        message_ts: toIso(doc.ts)!,
        score,
        matched: [...(ranking.inVector.has(key) ? (['semantic'] as const) : []), ...(ranking.inLexical.has(key) ? (['lexical'] as const) : [])],
        // A lexical hit shows the text around the match; a vector hit the message's start.
        excerpt: at !== undefined ? centredExcerpt(doc.content, at, chars) : firstChars(doc.content, chars),
      });
    }
    return { hits, mode };
  }

  /** Cosine over the user's live vectors, floor applied, best first: over the held vectors, else in the engine (rows of stale versions dropped). */
  private async vectorLeg(scope: SavedScope, corpus: SavedCorpus, query: { vector: number[]; model: string }, floor: number, limit: number): Promise<Ranked[]> {
    if (corpus.vectors) return rankByCosine(query.vector, query.model, corpus.vectors.values(), floor, limit);
    return this.liveRows(corpus, limit, (asked) =>
      this.storage.query<LegRow>(savedVectorStatement(this.storage.tables.savedDocs, scope.conv !== undefined), {
        ...scope,
        q: query.vector,
        q16: quantize(query.vector),
        // Enough for an Int8 ranking to hold the exact best (as conversation search's stage 1).
        candidates: Math.max(2 * asked, candidatesFor(asked)),
        model: query.model,
        floor,
        limit: asked,
      }),
    );
  }

  /** BM25 over the user's live saved messages, with the corpus's own statistics (SAVE-SEARCH-10): over the held postings, else in the engine. */
  private async bm25(scope: SavedScope, corpus: SavedCorpus, terms: readonly string[], limit: number): Promise<Ranked[]> {
    // Words the index never holds (stopwords, punctuation) match nothing.
    if (terms.length === 0 || corpus.docs === 0) return [];
    if (corpus.postings) return rankBm25(terms, corpus.postings, corpus, corpus, limit);
    const idf = terms.map((t) => bm25Idf(corpus.docs, corpus.df.get(t) ?? 0));
    return this.liveRows(corpus, limit, (asked) =>
      this.storage.query<LegRow>(savedBm25Statement(this.storage.tables.savedTerms, scope.conv !== undefined), {
        ...scope,
        terms,
        idf,
        avgdl: corpus.avgLength,
        k1: K1,
        b: B,
        limit: asked,
      }),
    );
  }

  /**
   * The best `limit` rows of a leg whose version is the live one, one per message. Stale
   * versions (an unsaved or re-saved message not yet merged away) take places in the engine's
   * answer, so it asks for twice the limit, and four times more while that was not enough.
   */
  private async liveRows(corpus: SavedCorpus, limit: number, read: (asked: number) => Promise<LegRow[]>): Promise<Ranked[]> {
    for (let asked = limit * 2; ; asked *= 4) {
      const rows = await read(asked);
      const out: Ranked[] = [];
      const seen = new Set<string>();
      for (const r of rows) {
        const key = keyOf(r);
        if (corpus.live.get(key) !== r.version || seen.has(key)) continue;
        seen.add(key);
        out.push({ key, score: Number(r.score) });
        if (out.length === limit) return out;
      }
      if (rows.length < asked) return out;
    }
  }

  /** The hits' transcript rows, kept when they are still the user's live saved messages and not high. */
  private async savedRows(scope: SavedScope, ranked: readonly Ranked[]): Promise<Map<string, SavedDoc>> {
    if (ranked.length === 0) return new Map();
    const rows = await this.storage.query<SavedDoc>(savedHitRowsStatement(this.storage.tables.conversations), hitParameters(scope, ranked));
    return shown(rows);
  }

  /**
   * Reads the rows of every live message of a user's corpus into `texts` off the request path, a
   * page at a time, each page with the signature: it stops when the corpus changed (the next
   * search's read starts another) or the budget is full. One fill per user at a time. Not for a
   * corpus of one conversation: the user's whole corpus fills the same rows.
   */
  private fill(scope: SavedScope, corpus: SavedCorpus): void {
    const user = userKey(scope);
    if (scope.conv !== undefined || !this.texts.enabled()) return;
    this.texts.prune(user, corpus.live);
    if (this.fills.has(user)) return;
    const run = (async () => {
      let from = 0;
      while (from < corpus.docList.length) {
        const keys: string[] = [];
        for (; from < corpus.docList.length && keys.length < TEXT_PAGE; from += 1) {
          const key = corpus.docList[from]!.key;
          if (!this.texts.has(user, key, corpus.live.get(key))) keys.push(key);
        }
        if (keys.length === 0) return;
        const checked = await this.savedRowsChecked(scope, keys.map((key) => ({ key, score: 0 })), true);
        if (checked.signature !== corpus.signature || !this.texts.keep(user, keys, corpus.live, checked.docs)) return;
      }
    })()
      .catch(() => undefined)
      .finally(() => this.fills.delete(user));
    this.fills.set(user, run);
  }

  /** `savedRows` and the user's current signature, in one statement (the signature alone when there are no hits); `background`: for a fill. */
  private async savedRowsChecked(scope: SavedScope, ranked: readonly Ranked[], background = false): Promise<{ docs: Map<string, SavedDoc>; signature: string }> {
    if (ranked.length === 0) return { docs: new Map(), signature: await this.cache.signature(scope) };
    const rows = await this.storage[background ? 'backgroundQuery' : 'query']<SavedDoc & { part: number; n: string; v: string }>(
      savedHitRowsWithSignatureStatement(this.storage.tables.conversations, this.storage.tables.savedDocs),
      hitParameters(scope, ranked),
    );
    const head = rows.find((r) => Number(r.part) === 1);
    return { docs: shown(rows.filter((r) => Number(r.part) === 0)), signature: signatureOf(head) };
  }
}

interface Ranking {
  /** The best `limit`, best first. */
  ranked: Ranked[];
  inVector: Set<string>;
  inLexical: Set<string>;
}

/** The legs as the mode combines them: one leg alone, or both fused by reciprocal rank; the best `limit`. */
function fuse(mode: SavedSearchMode, vectorRanked: Ranked[], lexical: Ranked[], lexicalWeight: number, limit: number): { ranked: Ranked[] } {
  if (mode === 'semantic') return { ranked: vectorRanked.slice(0, limit) };
  if (mode === 'lexical') return { ranked: lexical.slice(0, limit) };
  const fused = reciprocalRankFusion([
    { keys: vectorRanked.map((h) => h.key), weight: 1 - lexicalWeight },
    { keys: lexical.map((h) => h.key), weight: lexicalWeight },
  ]);
  const ranked = [...fused].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
  return { ranked: ranked.slice(0, limit) };
}

/** Whose rows `texts` holds: a user in a namespace (every corpus of one conversation of theirs too). */
function userKey(scope: SavedScope): string {
  return JSON.stringify([scope.ns, scope.user]);
}

function hitParameters(scope: SavedScope, ranked: readonly Ranked[]): Record<string, unknown> {
  const keys = ranked.map((r) => JSON.parse(r.key) as [string, string]);
  return { ns: scope.ns, user: scope.user, threads: [...new Set(keys.map((k) => k[0]))], ids: [...new Set(keys.map((k) => k[1]))] };
}

/** The rows a hit may show: never one that is, or reads as, high. */
function shown(rows: readonly SavedDoc[]): Map<string, SavedDoc> {
  return new Map(rows.filter((d) => !d.is_high && !readsAsHigh(d.content)).map((d) => [keyOf(d), d]));
}
