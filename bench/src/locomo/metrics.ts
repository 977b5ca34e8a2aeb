import { round } from '../util/stats';
import { CATEGORY_NAMES, type LocomoQuestion } from './data';

export interface RecallRow {
  n: number;
  recallAt5: number;
  recallAt10: number;
  anyAt5: number;
  anyAt10: number;
}

export interface RecallTable {
  overall: RecallRow;
  byCategory: Record<string, RecallRow>;
}

export interface RankedAnswer {
  question: LocomoQuestion;
  /** Turn ids, best first. */
  ranked: string[];
}

/**
 * Per question: the fraction of its evidence turns found in the top k (recall@k), and whether at
 * least one was (any@k); averaged over questions that have evidence, overall and per category.
 */
export function recallTable(answers: readonly RankedAnswer[]): RecallTable {
  const rowsBy = new Map<string, number[][]>();
  const add = (key: string, values: number[]): void => {
    let list = rowsBy.get(key);
    if (!list) rowsBy.set(key, (list = []));
    list.push(values);
  };
  for (const a of answers) {
    const evidence = a.question.evidence;
    if (evidence.length === 0) continue;
    const top5 = new Set(a.ranked.slice(0, 5));
    const top10 = new Set(a.ranked.slice(0, 10));
    const found5 = evidence.filter((e) => top5.has(e)).length;
    const found10 = evidence.filter((e) => top10.has(e)).length;
    const values = [found5 / evidence.length, found10 / evidence.length, found5 > 0 ? 1 : 0, found10 > 0 ? 1 : 0];
    add('overall', values);
    add(`${a.question.category}`, values);
  }
  const toRow = (list: number[][]): RecallRow => {
    const avg = (i: number): number => round(list.reduce((s, v) => s + v[i]!, 0) / Math.max(1, list.length), 3);
    return { n: list.length, recallAt5: avg(0), recallAt10: avg(1), anyAt5: avg(2), anyAt10: avg(3) };
  };
  const byCategory: Record<string, RecallRow> = {};
  for (const c of Object.keys(CATEGORY_NAMES).sort()) {
    const list = rowsBy.get(c);
    if (list) byCategory[`${c} ${CATEGORY_NAMES[Number(c)]}`] = toRow(list);
  }
  return { overall: toRow(rowsBy.get('overall') ?? []), byCategory };
}
