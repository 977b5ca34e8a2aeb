import type { Storage } from '@loom/clickhouse';
import { savedLiveDocsStatement, savedPostingsStatement, savedSignatureStatement } from './saved-statements';

/** One user's live saved messages [in one conversation] as last read, with their BM25 statistics. */
export interface SavedCorpus {
  /** `keyOf(message)` -> the version that is live (a posting or vector of any other version is stale). */
  live: Map<string, string>;
  /** Live messages that have terms, and their mean length in terms. */
  docs: number;
  avgLength: number;
  /** Document frequency (over live messages) of each term asked so far. */
  df: Map<string, number>;
  signature: string;
}

export interface SavedScope {
  ns: string;
  user: string;
  conv?: string;
}

/** How many corpora are kept (a corpus of 10,000 messages is about a megabyte). */
const MAX_ENTRIES = 64;

export const keyOf = (d: { thread_id: string; msg_id: string }): string => JSON.stringify([d.thread_id, d.msg_id]);

/**
 * The live set and BM25 statistics of each user's saved messages, read once and reused while
 * the user's rows in saved_docs are unchanged (ADR 0024, after ADR 0015): reading them costs
 * more than a search, and matching postings against them inside the engine cost ten times a
 * search. Whether they are current is checked on every search (`signature`, beside the leg
 * statements); when it fails, the caller reads them again and searches again, so a search never
 * answers from a corpus older than the rows its legs read. Saved messages have no retention TTL,
 * so no maximum age is needed.
 */
export class SavedCorpusCache {
  private readonly entries = new Map<string, SavedCorpus>();

  constructor(private readonly storage: Storage) {}

  /** The current signature of the user's rows (one range read of two columns). */
  async signature(scope: SavedScope): Promise<string> {
    const [row] = await this.storage.query<{ n: string; v: string }>(savedSignatureStatement(this.storage.tables.savedDocs), { ns: scope.ns, user: scope.user });
    return `${row?.n ?? 0}@${row?.v ?? 0}`;
  }

  /** The kept corpus of `scope`, if any (it may be stale: check `signature`). */
  cached(scope: SavedScope): SavedCorpus | undefined {
    return this.entries.get(entryKey(scope));
  }

  /** Reads the corpus of `scope` again, with the frequencies of `terms` (signature first, so a write in between shows at the next check). */
  async refresh(scope: SavedScope, terms: readonly string[]): Promise<SavedCorpus> {
    const signature = await this.signature(scope);
    const rows = await this.storage.query<{ thread_id: string; msg_id: string; version: string; doc_len: number }>(
      savedLiveDocsStatement(this.storage.tables.savedDocs, scope.conv !== undefined),
      { ...scope },
    );
    const live = new Map<string, string>();
    let docs = 0;
    let length = 0;
    for (const r of rows) {
      live.set(keyOf(r), r.version);
      // A message without terms ("?") is found by meaning only; BM25 never counted it.
      if (Number(r.doc_len) > 0) {
        docs += 1;
        length += Number(r.doc_len);
      }
    }
    const corpus: SavedCorpus = { live, docs, avgLength: docs > 0 ? length / docs : 0, df: new Map(), signature };
    const key = entryKey(scope);
    this.entries.delete(key);
    this.entries.set(key, corpus);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    await this.countFrequencies(scope, corpus, terms);
    return corpus;
  }

  /** Counts the document frequencies of the terms `corpus` has not counted yet, over its live messages. */
  async countFrequencies(scope: SavedScope, corpus: SavedCorpus, terms: readonly string[]): Promise<void> {
    const unknown = terms.filter((t) => !corpus.df.has(t));
    if (unknown.length === 0 || corpus.docs === 0) {
      for (const t of unknown) corpus.df.set(t, 0);
      return;
    }
    const postings = await this.storage.query<{ term: string; thread_id: string; msg_id: string; version: string }>(
      savedPostingsStatement(this.storage.tables.savedTerms, scope.conv !== undefined),
      { ...scope, terms: unknown },
    );
    const counts = new Map(unknown.map((t) => [t, 0]));
    for (const p of postings) {
      if (corpus.live.get(keyOf(p)) === p.version) counts.set(p.term, (counts.get(p.term) ?? 0) + 1);
    }
    for (const [t, n] of counts) corpus.df.set(t, n);
  }
}

function entryKey(scope: SavedScope): string {
  return JSON.stringify([scope.ns, scope.user, scope.conv ?? null]);
}
