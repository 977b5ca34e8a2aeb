import { tokenize } from '@loom/conversations';
import { coveredByGlob, describeEvidence, evidenceOf, testGlobsOf } from './evidence';

export interface IssueText {
  id: string;
  title: string;
  body: string;
  /** When it was opened (ms since the epoch), if known. */
  openedAt?: number | undefined;
}

export interface RankedIssue {
  id: string;
  /** 0..1. */
  score: number;
  /** Evidence both issues share, most telling first. */
  shared: string[];
}

/** The ranker's knobs; the defaults are the ones the public issue set was measured with. */
export interface RankerOptions {
  /** How much a title term counts against a body term, in documents and in the query. */
  titleWeight: number;
  /**
   * How much a body term of the new issue counts in its query (a title term counts
   * `titleWeight`; an older issue's body term counts 1 in its document). Above 1, the new issue's
   * body is a larger share of what a candidate must match, so a candidate that shares only the
   * title scores lower against the query's score on itself, and the body's words help order the
   * candidates. Set on ADR 0036's tuning split (addendum 3): 2 (plateau 1.5 to 3) kept ranked
   * first there (50 of 72) and called 3 of 513 unlinked, not 6; on the held-out sets it ranked 2
   * more first (round 5: 38 of 61, was 36; the first held-out six unchanged at 25 of 35) and
   * called none more.
   */
  queryBodyWeight: number;
  k1: number;
  b: number;
  /** Share of the score that comes from shared code evidence (when the query has any). */
  evidenceWeight: number;
  /** Characters of a body read (long logs add noise, not signal). */
  maxBodyChars: number;
  /**
   * Share of the score that time decides: an older issue opened shortly before the new one keeps
   * all of its score, one opened long before keeps 1 - recencyWeight of it. Reports of one bug
   * come in bursts (a CI failure, a release), so of two similar issues the recent one is likelier.
   */
  recencyWeight: number;
  /** Days over which that share fades (e-folding time). */
  recencyDays: number;
  /**
   * Word overlap (Jaccard of the title's distinct terms) at which an older issue's title counts as
   * the same title as the new one's: a template ("[tool_crash] FileSystemException: …", a CI
   * report's heading) or a near copy.
   */
  templateSimilarity: number;
  /**
   * How much a templated title lowers every score of a check: with `t` older issues sharing the
   * new issue's title, scores are divided by 1 + templatePenalty * ln(t). One such issue (t = 1)
   * changes nothing: a title matching one older issue is strong evidence. A title many issues share
   * says little about which bug it is, like a common word; the order of the candidates is unchanged.
   */
  templatePenalty: number;
}

export const DefaultRankerOptions: RankerOptions = {
  titleWeight: 3,
  queryBodyWeight: 2,
  k1: 1.2,
  b: 0.75,
  evidenceWeight: 0.3,
  maxBodyChars: 8_000,
  recencyWeight: 0.35,
  recencyDays: 90,
  templateSimilarity: 0.6,
  templatePenalty: 1,
};

/** Text a bug report carries that says nothing about the bug: links and the issue template's headings. */
function clean(text: string, maxChars: number): string {
  return text
    .slice(0, maxChars)
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ');
}

interface Doc {
  id: string;
  tf: Map<string, number>;
  length: number;
  evidence: Set<string>;
  globs: string[];
  openedAt: number | undefined;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * The factor a check's scores are multiplied by when the new issue's title is one many older
 * issues share: 1 / (1 + penalty * ln(t)), t the number of older titles at least `similarity`
 * alike (the inverse frequency of the whole title in the pool, as IDF weighs a word).
 */
export function templateFactor(title: string, olderTitles: readonly string[], similarity: number, penalty: number): number {
  const terms = new Set(tokenize(title));
  const twins = olderTitles.filter((t) => jaccard(terms, new Set(tokenize(t))) >= similarity).length;
  return twins > 1 ? 1 / (1 + penalty * Math.log(twins)) : 1;
}

function weightedTerms(title: string, body: string, titleWeight: number, bodyWeight = 1): { tf: Map<string, number>; length: number } {
  const tf = new Map<string, number>();
  let length = 0;
  for (const term of tokenize(title)) {
    tf.set(term, (tf.get(term) ?? 0) + titleWeight);
    length += titleWeight;
  }
  for (const term of tokenize(body)) {
    tf.set(term, (tf.get(term) ?? 0) + bodyWeight);
    length += bodyWeight;
  }
  return { tf, length };
}

/**
 * Ranks older issues by how likely the new one duplicates each: BM25F over title and body (title
 * terms weigh `titleWeight` times a body term, on both sides) with the code-aware tokenizer of
 * lexical search, normalised by the query's score against itself so that one threshold serves
 * every query, blended with the share of the query's code evidence (error codes, exception
 * names, stack symbols, CI failure ids) the candidate also carries, each item weighted by rarity.
 * Scores are lowered when the new issue's title is a template many older issues share, and by
 * time (see RankerOptions). Knobs settled on a repository split (docs/adr/0036).
 */
export function rankDuplicates(
  query: { title: string; body?: string | undefined; openedAt?: number | undefined },
  candidates: readonly IssueText[],
  options: RankerOptions = DefaultRankerOptions,
): RankedIssue[] {
  const { titleWeight, queryBodyWeight, k1, b, evidenceWeight, maxBodyChars, recencyWeight, recencyDays, templateSimilarity, templatePenalty } = options;
  const docs: Doc[] = candidates.map((c) => {
    const body = clean(c.body, maxBodyChars);
    const { tf, length } = weightedTerms(c.title, body, titleWeight);
    const text = `${c.title}\n${body}`;
    return { id: c.id, tf, length, evidence: evidenceOf(text), globs: testGlobsOf(text), openedAt: c.openedAt };
  });
  const proximity = (openedAt: number | undefined): number => {
    if (openedAt === undefined || query.openedAt === undefined) return 1;
    const days = Math.max(0, (query.openedAt - openedAt) / 86_400_000);
    return Math.exp(-days / recencyDays);
  };
  if (docs.length === 0) return [];
  const n = docs.length;
  const avgLength = docs.reduce((sum, d) => sum + d.length, 0) / n || 1;
  const df = new Map<string, number>();
  const evidenceDf = new Map<string, number>();
  for (const d of docs) {
    for (const term of d.tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
    for (const item of d.evidence) evidenceDf.set(item, (evidenceDf.get(item) ?? 0) + 1);
  }
  const idf = (count: number) => Math.log(1 + (n - count + 0.5) / (count + 0.5));

  const queryBody = clean(query.body ?? '', maxBodyChars);
  const q = weightedTerms(query.title, queryBody, titleWeight, queryBodyWeight);
  // Query terms weigh by where they stand (title over body), saturated so a pasted log does not drown the title.
  // Terms no older issue has stay in: they weigh in the query's score against itself, so a query
  // whose distinctive words are new cannot look like a match on its one common word.
  const queryWeights = new Map<string, number>();
  for (const [term, count] of q.tf) queryWeights.set(term, count / (count + k1));
  const bm25 = (tf: Map<string, number>, length: number): number => {
    let score = 0;
    for (const [term, weight] of queryWeights) {
      const f = tf.get(term);
      if (!f) continue;
      score += weight * idf(df.get(term) ?? 0) * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * length) / avgLength)));
    }
    return score;
  };
  const self = bm25(q.tf, q.length);

  const queryEvidence = evidenceOf(`${query.title}\n${queryBody}`);
  const evidenceIdf = new Map<string, number>();
  let evidenceTotal = 0;
  for (const item of queryEvidence) {
    // Evidence no older issue has still counts in the total: a new error code the candidates lack.
    const w = idf(evidenceDf.get(item) ?? 0);
    evidenceIdf.set(item, w);
    evidenceTotal += w;
  }
  const useEvidence = evidenceTotal > 0 ? evidenceWeight : 0;
  const template = templatePenalty > 0 ? templateFactor(query.title, candidates.map((c) => c.title), templateSimilarity, templatePenalty) : 1;

  return docs
    .map((d) => {
      const lexical = self > 0 ? Math.min(1, bm25(d.tf, d.length) / self) : 0;
      const shared = [...queryEvidence].filter((item) => d.evidence.has(item) || coveredByGlob(item, d.globs)).sort((x, y) => evidenceIdf.get(y)! - evidenceIdf.get(x)!);
      const evidence = evidenceTotal > 0 ? shared.reduce((sum, item) => sum + evidenceIdf.get(item)!, 0) / evidenceTotal : 0;
      const score = ((1 - useEvidence) * lexical + useEvidence * evidence) * template * (1 - recencyWeight + recencyWeight * proximity(d.openedAt));
      return { id: d.id, score: Math.round(score * 10_000) / 10_000, shared: shared.slice(0, 8).map(describeEvidence) };
    })
    .sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1));
}
