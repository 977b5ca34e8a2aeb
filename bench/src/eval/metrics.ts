import { round } from '../util/stats';
import type { EvalQuestion, Rankings } from './types';

export interface ScoreRow {
  n: number;
  recallAt1: number;
  recallAt5: number;
  recallAt10: number;
  /** Mean reciprocal rank of the first relevant doc within the top 10 (0 when none is). */
  mrr: number;
}

/** Rows by group: `overall` first, then each group in first-seen order. */
export type ScoreTable = Record<string, ScoreRow>;

/**
 * recall@k: the share of a question's relevant docs found in its top k, averaged over questions
 * (with one answer turn, the share of questions answered in the top k). MRR: 1 / rank of the
 * first relevant doc, 0 past rank 10. A question missing from `rankings` counts as answered with
 * nothing.
 */
export function scoreTable(questions: readonly EvalQuestion[], rankings: Rankings): ScoreTable {
  const sums = new Map<string, number[]>();
  const add = (group: string, v: number[]): void => {
    const s = sums.get(group) ?? [0, 0, 0, 0, 0];
    for (let i = 0; i < v.length; i += 1) s[i + 1] = (s[i + 1] ?? 0) + v[i]!;
    s[0] = (s[0] ?? 0) + 1;
    sums.set(group, s);
  };
  sums.set('overall', [0, 0, 0, 0, 0]);
  for (const q of questions) {
    if (q.relevant.length === 0) continue;
    const ranked = (rankings.get(q.id) ?? []).slice(0, 10);
    const relevant = new Set(q.relevant);
    const found = (k: number): number => ranked.slice(0, k).filter((key) => relevant.has(key)).length / relevant.size;
    const first = ranked.findIndex((key) => relevant.has(key));
    const v = [found(1), found(5), found(10), first < 0 ? 0 : 1 / (first + 1)];
    add('overall', v);
    for (const g of q.groups) add(g, v);
  }
  const table: ScoreTable = {};
  for (const [group, s] of sums) {
    const n = s[0]!;
    const avg = (i: number): number => (n === 0 ? 0 : round(s[i]! / n, 3));
    table[group] = { n, recallAt1: avg(1), recallAt5: avg(2), recallAt10: avg(3), mrr: avg(4) };
  }
  return table;
}
