import type { Storage } from '@loom/clickhouse';
import { termFrequencies } from '@loom/conversations';
import { readsAsHigh } from '@loom/sensitivity';
import type { PullRequestRow } from '../github/github-rows';
import type { GithubStore } from '../github/github-store';

/** One mainline commit as the rankers see it: its message, files and symbols, and its terms. */
export interface ChangeDoc {
  sha: string;
  /** Mainline position; pull requests with no indexed commit (open ones) sit after every commit. */
  seq: number;
  pr_number: number;
  /** The PR's title from the GitHub source, when known. */
  pr_title: string | null;
  /** `open`: an open pull request from the GitHub source, not on the mainline. */
  state: 'merged' | 'open';
  subject: string;
  body: string;
  author: string;
  committed_at: string;
  files: string[];
  symbols: string[];
  additions: number;
  deletions: number;
  /** Distinct terms of its changed code lines. */
  codeTerms: Set<string>;
  /** Terms of subject and body. */
  tf: Map<string, number>;
  length: number;
}

export interface ChangeCorpus {
  /** The mainline commits, oldest first. */
  docs: ChangeDoc[];
  /** Open pull requests, and merged ones no indexed commit landed (GitHub source only). */
  pulls: ChangeDoc[];
  bySha: Map<string, ChangeDoc>;
  /** Documents holding each term (for IDF). */
  df: Map<string, number>;
  averageLength: number;
}

/**
 * Every mainline commit of a repository with its files and symbols, read in three queries and
 * kept while the repository's head stays the same: the duplicate check and bisect rank them in
 * memory (a 10k-commit history is a few megabytes).
 */
export class ChangeCorpora {
  private readonly cache = new Map<string, { head: string; corpus: Promise<ChangeCorpus> }>();

  constructor(
    private readonly storage: Storage,
    private readonly github?: GithubStore,
  ) {}

  /**
   * `head` names the version: the indexed head, and the GitHub source's last update when there is
   * one. `upto`: the repository's checkpoint; commits past it are not all written yet.
   */
  get(namespace: string, repo: string, head: string, upto: number): Promise<ChangeCorpus> {
    const key = `${namespace}\u0000${repo}`;
    const cached = this.cache.get(key);
    if (cached && cached.head === head) return cached.corpus;
    const corpus = this.load(namespace, repo, upto);
    this.cache.set(key, { head, corpus });
    corpus.catch(() => this.cache.delete(key));
    return corpus;
  }

  private async load(namespace: string, repo: string, upto: number): Promise<ChangeCorpus> {
    const t = this.storage.tables;
    const params = { namespace, repo, upto };
    const [commits, files, symbols, pullRows] = await Promise.all([
      this.storage.query<{ sha: string; seq: number; pr_number: number; subject: string; body: string; author_name: string; committed_at: string; additions: number; deletions: number; code_terms: string[] }>(
        `SELECT sha, seq, pr_number, subject, body, author_name, committed_at, additions, deletions, code_terms FROM ${t.codeCommits} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND seq <= {upto:UInt32} ORDER BY seq`,
        params,
      ),
      this.storage.query<{ sha: string; paths: string[] }>(
        `SELECT sha, groupArray(path) AS paths FROM (SELECT sha, path FROM ${t.codeFileChanges} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND seq <= {upto:UInt32}) GROUP BY sha`,
        params,
      ),
      this.storage.query<{ sha: string; symbols: string[] }>(
        `SELECT sha, groupUniqArray(symbol) AS symbols FROM (SELECT sha, symbol FROM ${t.codeSymbolChanges} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND seq <= {upto:UInt32}) GROUP BY sha`,
        params,
      ),
      this.github ? this.github.openAndMerged(namespace, repo) : Promise.resolve([] as PullRequestRow[]),
    ]);
    const pullByNumber = new Map(pullRows.map((p) => [p.number, p]));
    const pullBySha = new Map(pullRows.filter((p) => p.merge_commit_sha !== '').map((p) => [p.merge_commit_sha, p]));
    const landed = new Set<number>();
    const filesOf = new Map(files.map((f) => [f.sha, f.paths]));
    const symbolsOf = new Map(symbols.map((s) => [s.sha, s.symbols]));
    const df = new Map<string, number>();
    const docs = commits.map((c): ChangeDoc => {
      const pull = (Number(c.pr_number) > 0 ? pullByNumber.get(Number(c.pr_number)) : undefined) ?? pullBySha.get(c.sha);
      if (pull) landed.add(pull.number);
      // A merge commit says little ("Merge pull request #4 from acme/ping"); its PR's title and description say what it did.
      const { tf, length } = termFrequencies(pull ? `${c.subject}\n${c.body}\n${pull.title}\n${pull.body}` : `${c.subject}\n${c.body}`);
      for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
      return {
        sha: c.sha,
        seq: Number(c.seq),
        pr_number: Number(c.pr_number) > 0 ? Number(c.pr_number) : (pull?.number ?? 0),
        pr_title: pull && !readsAsHigh(pull.title) ? pull.title : null,
        state: 'merged',
        subject: c.subject,
        body: c.body,
        author: c.author_name,
        committed_at: new Date(`${String(c.committed_at).replace(' ', 'T')}Z`).toISOString(),
        files: filesOf.get(c.sha) ?? [],
        symbols: symbolsOf.get(c.sha) ?? [],
        additions: Number(c.additions),
        deletions: Number(c.deletions),
        codeTerms: new Set(c.code_terms),
        tf,
        length,
      };
    });
    const pulls = pullRows.filter((p) => !landed.has(p.number)).map((p): ChangeDoc => {
      const { tf, length } = termFrequencies(`${p.title}\n${p.body}`);
      for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
      const title = readsAsHigh(p.title) ? null : p.title;
      return {
        sha: p.state === 'merged' ? p.merge_commit_sha : p.head_sha,
        seq: Number.MAX_SAFE_INTEGER,
        pr_number: p.number,
        pr_title: title,
        state: p.state === 'open' ? 'open' : 'merged',
        subject: title ?? `PR #${p.number}`,
        body: p.body,
        author: p.author,
        committed_at: new Date(`${String(p.merged_at ?? p.updated_at).replace(' ', 'T')}Z`).toISOString(),
        files: [],
        symbols: [],
        additions: 0,
        deletions: 0,
        codeTerms: new Set(),
        tf,
        length,
      };
    });
    const all = [...docs, ...pulls];
    const averageLength = all.reduce((n, d) => n + d.length, 0) / (all.length || 1) || 1;
    return { docs, pulls, bySha: new Map(docs.map((d) => [d.sha, d])), df, averageLength };
  }
}

const K1 = 1.2;
const B = 0.75;

/** BM25 of a document for the query's terms; also which terms matched (the evidence). */
export function bm25(corpus: ChangeCorpus, doc: ChangeDoc, terms: readonly string[]): { score: number; matched: string[] } {
  let score = 0;
  const matched: string[] = [];
  const n = corpus.docs.length;
  for (const term of terms) {
    const tf = doc.tf.get(term);
    if (!tf) continue;
    const df = corpus.df.get(term) ?? 0;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    score += idf * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / corpus.averageLength)));
    matched.push(term);
  }
  return { score, matched };
}
