import { toIso, type Storage } from '@loom/clickhouse';
import type { SavedMessageHit, SavedSearchMode, SearchSavedMessagesRequest, SearchSavedMessagesResponse, TurnRole } from '@loom/contracts';
import { cosineSimilarity } from '@loom/providers';
import { readsAsHigh } from '@loom/sensitivity';
import type { EmbeddingClient } from '../embedding/embedding.client';
import { usableQueryVector } from '../embedding/embedding-columns';
import type { LiveSettingsService } from '../settings/live-settings.service';
import { firstChars } from '../text';
import { bm25, centredExcerpt, reciprocalRankFusion } from './bm25';

const DEFAULT_LIMIT = 10;
const DEFAULT_LEXICAL_WEIGHT = 0.5;

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

const keyOf = (d: { thread_id: string; msg_id: string }): string => JSON.stringify([d.thread_id, d.msg_id]);

/**
 * conversation.search_saved_messages: one user's saved messages in one namespace, never fanned
 * out. Hybrid by default: a vector leg over each message's first 2,048 characters and a BM25
 * leg over its whole text, fused by reciprocal rank; `lexical_weight` scales the BM25 leg.
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
    const lexicalWeight = input.lexical_weight ?? DEFAULT_LEXICAL_WEIGHT;
    const settings = await this.settings.all();
    const chars = settings.conversation_search_excerpt_chars;
    // High messages (an earlier build may have saved some) are out of both legs and out of the
    // BM25 statistics: they are never a hit, in any mode.
    const docs = (await this.corpus(namespace, userId, input.conversation_id)).filter((d) => !d.is_high && !readsAsHigh(d.content));
    const byKey = new Map(docs.map((d) => [keyOf(d), d]));

    let mode = requested;
    let vectorRanked: Array<{ key: string; score: number }> = [];
    if (requested !== 'lexical') {
      // A query that reads as high goes to no provider; the lexical leg alone answers it.
      const embedded = readsAsHigh(input.query) ? undefined : await this.embedder.embed([input.query]);
      // A query with nothing to embed ("?") has no direction: the lexical leg answers it.
      const query = usableQueryVector(embedded);
      if (query) {
        vectorRanked = await this.vectorLeg(namespace, docs, query.vector, query.model, settings.conversation_search_min_similarity);
      } else {
        mode = 'lexical';
      }
    }
    const lexical = mode === 'semantic' ? [] : bm25(docs.map((d) => ({ key: keyOf(d), text: d.content })), input.query);
    const firstMatch = new Map(lexical.map((h) => [h.key, h.firstMatch]));

    let ranked: Array<{ key: string; score: number }>;
    if (mode === 'semantic') ranked = vectorRanked;
    else if (mode === 'lexical') ranked = lexical.map((h) => ({ key: h.key, score: h.score }));
    else {
      const fused = reciprocalRankFusion([
        { keys: vectorRanked.map((h) => h.key), weight: 1 - lexicalWeight },
        { keys: lexical.map((h) => h.key), weight: lexicalWeight },
      ]);
      ranked = [...fused].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score);
    }
    const inVector = new Set(vectorRanked.map((h) => h.key));
    const hits: SavedMessageHit[] = ranked.slice(0, limit).map(({ key, score }) => {
      const doc = byKey.get(key)!;
      const at = firstMatch.get(key);
      return {
        conversation_id: doc.thread_id,
        message_id: doc.msg_id,
        agent: doc.agent,
        role: doc.role,
        ts: toIso(doc.sort_ts)!,
        message_ts: toIso(doc.ts)!,
        score,
        matched: [...(inVector.has(key) ? (['semantic'] as const) : []), ...(at !== undefined ? (['lexical'] as const) : [])],
        // A lexical hit shows the text around the match; a vector hit the message's start.
        excerpt: at !== undefined ? centredExcerpt(doc.content, at, chars) : firstChars(doc.content, chars),
      };
    });
    return { hits, mode };
  }

  private corpus(namespace: string, userId: string, conversationId: string | undefined): Promise<SavedDoc[]> {
    return this.storage.query<SavedDoc>(
      `SELECT thread_id, msg_id, agent, role, content, is_high, ts, ifNull(saved_at, toDateTime64(ts, 3, 'UTC')) AS sort_ts
       FROM ${this.storage.tables.conversations} FINAL
       WHERE namespace = {ns:String} AND user_id = {user:String} AND is_saved AND deleted = 0
         ${conversationId !== undefined ? 'AND thread_id = {conv:String}' : ''}
       LIMIT 1 BY thread_id, msg_id`,
      { ns: namespace, user: userId, conv: conversationId ?? '' },
    );
  }

  /** Cosine over the saved messages' vectors (first 2,048 characters), floor applied. */
  private async vectorLeg(namespace: string, docs: SavedDoc[], query: number[], model: string, floor: number): Promise<Array<{ key: string; score: number }>> {
    if (docs.length === 0) return [];
    const rows = await this.storage.query<{ thread_id: string; msg_id: string; embedding: number[] }>(
      `SELECT thread_id, msg_id, embedding FROM ${this.storage.tables.conversationEmbeddings} FINAL
       WHERE namespace = {ns:String} AND thread_id IN {threads:Array(String)} AND msg_id IN {ids:Array(String)}
         AND deleted = 0 AND embed_error = '' AND model = {model:String}`,
      { ns: namespace, threads: [...new Set(docs.map((d) => d.thread_id))], ids: [...new Set(docs.map((d) => d.msg_id))], model },
    );
    const wanted = new Set(docs.map(keyOf));
    return rows
      .filter((r) => wanted.has(keyOf(r)))
      .map((r) => ({ key: keyOf(r), score: cosineSimilarity(query, r.embedding) }))
      .filter((h) => h.score >= floor)
      .sort((a, b) => b.score - a.score);
  }
}
