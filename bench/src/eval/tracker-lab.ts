import { join } from 'node:path';
import { DefaultRankerOptions, rankDuplicates, resolveDuplicates, type RankerOptions } from '@loom/tracker';
import { loadTrackerSet, openedTimes, type TrackerSet } from './tracker-eval';

/**
 * The ranker on the tracker set in process, without the HTTP plane: the same candidate pool the
 * service reads (every issue of the set opened before the one asked about) and the same ranker, so
 * a ranker change can be tried in a second. The figures that count come from `npm run eval -- --tracker`.
 * `node dist/bench/src/eval/tracker-lab.js [threshold] [set file, e.g. tracker-set-rust.json]`.
 */
export interface LabFigures {
  pairs: number;
  first: number;
  unlinked: number;
  flagged: number;
  misses: string[];
  flags: string[];
  topUnlinked: number[];
}

export function lab(set: TrackerSet, options: RankerOptions, threshold: number, only?: { pairs?: Set<string>; unlinked?: Set<string> }, resolve = true): LabFigures {
  const times = openedTimes(set.issues);
  const at = (n: number) => Date.parse(times.get(n)!);
  const issues = set.issues.map((i) => ({ id: String(i.number), title: i.title, body: i.body, openedAt: at(i.number) }));
  const byId = new Map(issues.map((i) => [i.id, i]));
  // The set's recorded links, as the eval wires them into the tracker table: a candidate (always
  // opened before the issue asked about) that is a recorded duplicate answers with its original.
  const links = new Map(resolve ? set.pairs.map((p) => [p.issue, p.duplicate_of] as const) : []);
  const check = (id: string) => {
    const q = byId.get(id)!;
    const pool = issues.filter((c) => c.openedAt < q.openedAt);
    const inPool = new Set(pool.map((c) => c.id));
    return resolveDuplicates(rankDuplicates({ title: q.title, body: q.body, openedAt: q.openedAt }, pool, options), links, (x) => inPool.has(x));
  };
  const pairs = set.pairs.filter((p) => !only?.pairs || only.pairs.has(p.issue));
  const unlinked = set.unlinked.filter((u) => !only?.unlinked || only.unlinked.has(u));
  let first = 0;
  const misses: string[] = [];
  for (const p of pairs) {
    const ranked = check(p.issue);
    const rank = ranked.findIndex((r) => r.id === p.duplicate_of);
    if (rank === 0) first += 1;
    else misses.push(`${p.issue}->${p.duplicate_of} rank ${rank + 1} (first ${ranked[0]?.id}:${ranked[0]?.score}, expected ${ranked[rank]?.score})`);
  }
  const flags: string[] = [];
  const top: number[] = [];
  for (const u of unlinked) {
    const best = check(u)[0];
    top.push(best?.score ?? 0);
    if (best && best.score >= threshold) flags.push(`${u}->${best.id}:${best.score}`);
  }
  return { pairs: pairs.length, first, unlinked: unlinked.length, flagged: flags.length, misses, flags, topUnlinked: top.sort((a, b) => b - a).slice(0, 8) };
}

if (require.main === module) {
  const threshold = Number(process.argv[2] ?? 0.5);
  const file = process.argv[3] ?? 'tracker-set.json';
  const resolve = process.argv[4] !== 'no-links';
  process.stdout.write(JSON.stringify(lab(loadTrackerSet(join(__dirname, file)), DefaultRankerOptions, threshold, undefined, resolve), null, 1) + '\n');
}
