import { Bm25Index } from '../locomo/bm25';
import { scoreTable, type ScoreTable } from './metrics';
import type { EvalSet, Rankings } from './types';

/**
 * The in-process BM25 reference (bench/src/locomo/bm25.ts: k1 1.2, b 0.75, lower-case
 * [a-z0-9]+ tokens, a small stop-word list) over exactly the turns ingested, searched over the
 * same pool as Loom is asked: the question's thread when it names one, otherwise the whole set.
 */
export function bm25Baseline(set: EvalSet): { rankings: Rankings; table: ScoreTable } {
  const pools = new Map<string, Bm25Index>();
  const poolFor = (thread: string | undefined): Bm25Index => {
    const id = thread ?? '*';
    let index = pools.get(id);
    if (!index) {
      const docs = set.docs.filter((d) => thread === undefined || d.thread === thread);
      index = new Bm25Index(
        docs.map((d) => d.key),
        docs.map((d) => d.content),
      );
      pools.set(id, index);
    }
    return index;
  };
  const rankings: Rankings = new Map();
  for (const q of set.questions) rankings.set(q.id, poolFor(q.thread).search(q.query, 10));
  return { rankings, table: scoreTable(set.questions, rankings) };
}
