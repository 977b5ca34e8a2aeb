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
import { savedBm25Statement, savedVectorStatement } from './saved-statements';

const DEFAULT_LIMIT = 10;
const DEFAULT_LEXICAL_WEIGHT = 0.5;
/** BM25's usual constants, as in conversation search. */
const K1 = 1.2;
const B = 0.75;

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

const keyOf = (d: { thread_id: string; msg_id: string }): string => JSON.stringify([d.thread_id, d.msg_id]);

/**
 * conversation.search_saved_messages: one user's saved messages in one namespace, never fanned
 * out. Hybrid by default: a vector leg over each message's first 2,048 characters and a BM25
 * leg over its whole text, fused by reciprocal rank; `lexical_weight` scales the BM25 leg.
 * Both legs rank inside the engine over the user's entries in `saved_terms` (ADR 0016); this
 * process reads the text of the hits it returns, and nothing else.
 */
export class SavedSearchService {
  constructor(
    private readonly storage: Storage,
    private readonly embedder: EmbeddingClient,
    private readonly settings: LiveSettingsService,
  ) {}

  async search(namespace: string, userId: string, input: SearchSavedMessagesRequest): Promise<SearchSavedMessagesResponse> {
    const requested: SavedSearchMode = input.search_mode ?? 'hybrid';
    const limit = input.limit ?? DEFAULT_LIMIT;
    const depth = fusionDepth(limit);
    const lexicalWeight = input.lexical_weight ?? DEFAULT_LEXICAL_WEIGHT;
    const settings = await this.settings.all();
    const chars = settings.conversation_search_excerpt_chars;
    const scope = { ns: namespace, user: userId, ...(input.conversation_id !== undefined ? { conv: input.conversation_id } : {}) };
    const terms = queryTerms(input.query);

    let mode = requested;
    const vectorLeg = async (): Promise<Ranked[]> => {
      if (requested === 'lexical') return [];
      // A query that reads as high goes to no provider; the lexical leg alone answers it.
      const embedded = readsAsHigh(input.query) ? undefined : await this.embedder.embed([input.query]);
      // A query with nothing to embed ("?") has no direction: the lexical leg answers it.
      const query = usableQueryVector(embedded);
      if (!query) {
        mode = 'lexical';
        return [];
      }
      const legLimit = requested === 'semantic' ? limit : depth;
      const rows = await this.storage.query<{ thread_id: string; msg_id: string; score: number }>(
        savedVectorStatement(this.storage.tables.conversationEmbeddings, this.storage.tables.savedTerms, 'conv' in scope),
        {
          ...scope,
          q: query.vector,
          q16: quantize(query.vector),
          candidates: candidatesFor(legLimit),
          model: query.model,
          floor: settings.conversation_search_min_similarity,
          limit: legLimit,
        },
      );
      return rows.map((r) => ({ key: keyOf(r), score: Number(r.score) }));
    };
    // Words the index never holds (stopwords, punctuation) match nothing.
    const lexicalLeg = async (): Promise<Ranked[]> => (requested === 'semantic' ? [] : this.bm25(scope, terms, requested === 'lexical' ? limit : depth));
    const [vectorRanked, lexicalRanked] = await Promise.all([vectorLeg(), lexicalLeg()]);
    // The embedder could not answer a semantic call: the lexical leg answers it instead.
    const lexical = mode === 'lexical' && requested === 'semantic' ? await this.bm25(scope, terms, limit) : lexicalRanked;

    let ranked: Ranked[];
    if (mode === 'semantic') ranked = vectorRanked;
    else if (mode === 'lexical') ranked = lexical;
    else {
      const fused = reciprocalRankFusion([
        { keys: vectorRanked.map((h) => h.key), weight: 1 - lexicalWeight },
        { keys: lexical.map((h) => h.key), weight: lexicalWeight },
      ]);
      ranked = [...fused].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
    }
    const inVector = new Set(vectorRanked.map((h) => h.key));
    const inLexical = new Set(lexical.map((h) => h.key));
    // The transcript row is the message: it must still be this user's saved message, and never high.
    const docs = await this.savedRows(scope, ranked.slice(0, limit));
    const hits: SavedMessageHit[] = [];
    for (const { key, score } of ranked.slice(0, limit)) {
      const doc = docs.get(key);
      if (!doc) continue;
      const at = inLexical.has(key) ? firstMatch(doc.content, terms) : undefined;
      hits.push({
        conversation_id: doc.thread_id,
        message_id: doc.msg_id,
        agent: doc.agent,
        role: doc.role,
        ts: toIso(doc.sort_ts)!,
        message_ts: toIso(doc.ts)!,
        score,
        matched: [...(inVector.has(key) ? (['semantic'] as const) : []), ...(inLexical.has(key) ? (['lexical'] as const) : [])],
        // A lexical hit shows the text around the match; a vector hit the message's start.
        excerpt: at !== undefined ? centredExcerpt(doc.content, at, chars) : firstChars(doc.content, chars),
      });
    }
    return { hits, mode };
  }

  private async bm25(scope: Record<string, string>, terms: string[], limit: number): Promise<Ranked[]> {
    if (terms.length === 0) return [];
    const rows = await this.storage.query<{ thread_id: string; msg_id: string; score: number }>(
      savedBm25Statement(this.storage.tables.savedTerms, 'conv' in scope),
      { ...scope, terms, k1: K1, b: B, limit },
    );
    return rows.map((r) => ({ key: keyOf(r), score: Number(r.score) }));
  }

  /** The hits' transcript rows, kept when they are still the user's live saved messages and not high. */
  private async savedRows(scope: Record<string, string>, ranked: readonly Ranked[]): Promise<Map<string, SavedDoc>> {
    if (ranked.length === 0) return new Map();
    const keys = ranked.map((r) => JSON.parse(r.key) as [string, string]);
    // The latest version of each row, without FINAL: over the namespace's transcript FINAL cost
    // about fifteen times as much for ten rows. The conditions apply to that latest version.
    const rows = await this.storage.query<SavedDoc>(
      `SELECT thread_id, msg_id, agent, role, content, is_high, ts, ifNull(saved_at, toDateTime64(ts, 3, 'UTC')) AS sort_ts
       FROM (
         SELECT * FROM ${this.storage.tables.conversations}
         WHERE namespace = {ns:String} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)}
         ORDER BY version DESC
         LIMIT 1 BY thread_id, agent, msg_id
       )
       WHERE user_id = {user:String} AND is_saved AND deleted = 0
       LIMIT 1 BY thread_id, msg_id`,
      { ns: scope['ns'], user: scope['user'], threads: [...new Set(keys.map((k) => k[0]))], ids: [...new Set(keys.map((k) => k[1]))] },
    );
    return new Map(rows.filter((d) => !d.is_high && !readsAsHigh(d.content)).map((d) => [keyOf(d), d]));
  }
}
