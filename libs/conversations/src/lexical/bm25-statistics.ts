import type { Storage } from '@loom/clickhouse';
import { retentionCondition } from './retention-condition';

/** BM25's statistics of one namespace: live documents, their mean length, and document frequencies of terms asked so far. */
interface NamespaceStatistics {
  docs: number;
  avgLength: number;
  df: Map<string, number>;
  /** The namespace's postings when these were read (`signatures`): any write since changes it. */
  signature: string;
  /** When they were read (ms since epoch). */
  at: number;
}

/** The statistics a BM25 statement takes as parameters: per namespace, its mean length and each query term's idf. */
export interface Bm25Parameters {
  /** The namespaces in scope that hold at least one live document (no other can match). */
  namespaces: string[];
  avgLengths: number[];
  /** idf[i][j]: of terms[j] in namespaces[i]. */
  idf: number[][];
}

/** Statistics to score with now, and whether they were still current (known once `current` settles). */
export interface Bm25Lookup {
  parameters: Bm25Parameters;
  /** Resolves true when nothing was written to the namespaces since the statistics were read. */
  current: Promise<boolean>;
}

export interface Bm25StatisticsOptions {
  /** At most how long read statistics serve (ms), whatever the check says: retention expires turns without a write. 0 reads them for every search. */
  maxAgeMs: number;
  /** The retention TTL in days (0: none); expired turns are not counted (or found). */
  retentionDays: number;
  now?: () => number;
}

type Scope = { all: true } | { all: false; namespaces: string[] };

/**
 * Per-namespace BM25 statistics (document count, mean length, document frequency), read once
 * and reused while the namespace's postings are unchanged, instead of being counted in every
 * search: at 1M turns, counting them with FINAL cost more than scoring the postings.
 *
 * Whether they are still current is checked on every search by a cheap signature of the
 * namespace's header postings, read without FINAL: their count and highest version. Every
 * write that can change the statistics changes it: an append or save adds a version, and so
 * does every removal (a tombstone, thread delete, compaction, erasure or unsave writes a new
 * version of the turn's embedding row, hence of its postings); a purge or a TTL merge deletes
 * rows and lowers the count. Because it is read from the engine, it holds for writes by other
 * processes too (the split topology). The retention TTL expires turns without any write: the
 * statistics also expire after `maxAgeMs`.
 *
 * The check runs beside the scoring statement (`current`); when it fails, the caller reads
 * the statistics again (`refresh`) and scores again.
 */
export class Bm25Statistics {
  private readonly entries = new Map<string, NamespaceStatistics>();
  /** Every-namespace searches: which namespaces held postings, and their signature then. */
  private everyNamespace: { namespaces: string[]; signature: string; at: number } | undefined;
  private readonly now: () => number;

  constructor(
    private readonly storage: Storage,
    private readonly options: Bm25StatisticsOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The statistics for a search of `terms` over `scope`: cached ones with a check running, or
   * freshly read ones (checked already).
   */
  async lookup(scope: Scope, terms: readonly string[]): Promise<Bm25Lookup> {
    const namespaces = this.youngNamespaces(scope);
    if (!namespaces) return { parameters: await this.refresh(scope, terms), current: Promise.resolve(true) };
    const current = this.isCurrent(scope);
    // A term asked for the first time has its document frequency counted now, while the check runs.
    const present = namespaces.filter((ns) => this.entries.get(ns)!.docs > 0);
    const unknown = terms.filter((t) => present.some((ns) => !this.entries.get(ns)!.df.has(t)));
    if (unknown.length === 0) return { parameters: this.parameters(namespaces, terms), current };
    await this.readFrequencies(present, unknown);
    if (!(await current)) return { parameters: await this.refresh(scope, terms), current: Promise.resolve(true) };
    return { parameters: this.parameters(namespaces, terms), current: Promise.resolve(true) };
  }

  /** Reads the statistics of `scope` again (signature first, so a write in between is seen by the next check). */
  async refresh(scope: Scope, terms: readonly string[]): Promise<Bm25Parameters> {
    const at = this.now();
    const signatures = await this.signatures(scope);
    const namespaces = scope.all ? [...signatures.keys()].sort() : scope.namespaces;
    const documents = await this.documents(namespaces);
    for (const ns of namespaces) {
      const d = documents.get(ns);
      this.entries.set(ns, { docs: Number(d?.n ?? 0), avgLength: Number(d?.avgdl ?? 0), df: new Map(), signature: signatures.get(ns) ?? '', at });
    }
    if (scope.all) this.everyNamespace = { namespaces, signature: everySignature(signatures), at };
    await this.readFrequencies(namespaces.filter((ns) => this.entries.get(ns)!.docs > 0), terms);
    return this.parameters(namespaces, terms);
  }

  /** The namespaces of `scope` when every one has statistics young enough to serve, else undefined. */
  private youngNamespaces(scope: Scope): readonly string[] | undefined {
    const young = (at: number): boolean => this.now() - at < this.options.maxAgeMs;
    if (scope.all && !(this.everyNamespace && young(this.everyNamespace.at))) return undefined;
    const namespaces = scope.all ? this.everyNamespace!.namespaces : scope.namespaces;
    return namespaces.every((ns) => {
      const e = this.entries.get(ns);
      return e !== undefined && young(e.at);
    })
      ? namespaces
      : undefined;
  }

  private parameters(namespaces: readonly string[], terms: readonly string[]): Bm25Parameters {
    const present = namespaces.filter((ns) => this.entries.get(ns)!.docs > 0);
    return {
      namespaces: present,
      avgLengths: present.map((ns) => this.entries.get(ns)!.avgLength),
      idf: present.map((ns) => {
        const e = this.entries.get(ns)!;
        return terms.map((t) => {
          const df = e.df.get(t) ?? 0;
          return Math.log(1 + (e.docs - df + 0.5) / (df + 0.5));
        });
      }),
    };
  }

  private async isCurrent(scope: Scope): Promise<boolean> {
    const signatures = await this.signatures(scope);
    if (scope.all) return this.everyNamespace?.signature === everySignature(signatures);
    return scope.namespaces.every((ns) => this.entries.get(ns)?.signature === (signatures.get(ns) ?? ''));
  }

  /**
   * Per namespace: how many header postings (one per version of a turn's embedding row, until
   * merges collapse them) and the highest version, without FINAL: a range read of two columns.
   */
  private async signatures(scope: Scope): Promise<Map<string, string>> {
    const params: Record<string, unknown> = {};
    const conditions = ["term = ''"];
    if (!scope.all) {
      conditions.unshift('namespace IN {namespaces:Array(String)}');
      params['namespaces'] = scope.namespaces;
    }
    const rows = await this.storage.query<{ namespace: string; n: string; v: string }>(
      `SELECT namespace, toString(count()) AS n, toString(max(version)) AS v FROM ${this.storage.tables.conversationTerms} WHERE ${conditions.join(' AND ')} GROUP BY namespace`,
      params,
    );
    return new Map(rows.map((r) => [r.namespace, `${r.n}@${r.v}`]));
  }

  /** Live documents and mean length per namespace, from the header postings (term ''). */
  private async documents(namespaces: string[]): Promise<Map<string, { n: string; avgdl: number }>> {
    if (namespaces.length === 0) return new Map();
    const params: Record<string, unknown> = { namespaces };
    const conditions = ['namespace IN {namespaces:Array(String)}', "term = ''", 'deleted = 0', ...retentionCondition(this.options.retentionDays, params)];
    const rows = await this.storage.query<{ namespace: string; n: string; avgdl: number }>(
      `SELECT namespace, count() AS n, avg(doc_len) AS avgdl FROM ${this.storage.tables.conversationTerms} FINAL WHERE ${conditions.join(' AND ')} GROUP BY namespace`,
      params,
    );
    return new Map(rows.map((r) => [r.namespace, r]));
  }

  /** Document frequencies of `terms` in each namespace, counted over live postings. */
  private async readFrequencies(namespaces: string[], terms: readonly string[]): Promise<void> {
    if (namespaces.length === 0 || terms.length === 0) return;
    const params: Record<string, unknown> = { namespaces, terms };
    const conditions = ['namespace IN {namespaces:Array(String)}', 'term IN {terms:Array(String)}', 'deleted = 0', ...retentionCondition(this.options.retentionDays, params)];
    const rows = await this.storage.query<{ namespace: string; term: string; df: string }>(
      `SELECT namespace, term, count() AS df FROM ${this.storage.tables.conversationTerms} FINAL WHERE ${conditions.join(' AND ')} GROUP BY namespace, term`,
      params,
    );
    const counted = new Map(rows.map((r) => [JSON.stringify([r.namespace, r.term]), Number(r.df)]));
    for (const ns of namespaces) {
      const entry = this.entries.get(ns)!;
      for (const t of terms) entry.df.set(t, counted.get(JSON.stringify([ns, t])) ?? 0);
    }
  }
}

function everySignature(signatures: Map<string, string>): string {
  return JSON.stringify([...signatures].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
