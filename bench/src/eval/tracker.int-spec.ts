import { startTestLoom, uniqueNamespace, type TestLoom } from '../../../libs/testing/src';
import { evaluateTracker, loadTrackerSet, TrackerTargets, type TrackerFigures } from './tracker-eval';

/**
 * TRACKER-04 regression: the committed set of public ClickHouse issues (bench/src/eval/tracker-set.json,
 * in the repository so a fresh clone runs it) through tracker.duplicate_check on the embedded default.
 */
describe('Tracker duplicate check on public ClickHouse issues [TRACKER-04]', () => {
  let loom: TestLoom;
  let figures: TrackerFigures;
  const set = loadTrackerSet();

  beforeAll(async () => {
    loom = await startTestLoom({ withEmbedder: false, env: { LOOM_TRACKER_ORG: 'ClickHouse' } });
    figures = await evaluateTracker(loom, set, uniqueNamespace());
  }, 120_000);
  afterAll(async () => loom.close());

  it('TRACKER-04: the set is real and whole: every pair and unlinked issue is in it, with its public URL', () => {
    const numbers = new Set(set.issues.map((i) => String(i.number)));
    for (const p of set.pairs) expect([p.issue, numbers.has(p.issue), numbers.has(p.duplicate_of), Number(p.duplicate_of) < Number(p.issue)]).toEqual([p.issue, true, true, true]);
    for (const u of set.unlinked) expect(numbers.has(u)).toBe(true);
    // The held-out split names only pairs and unlinked issues of the set, and no issue is both.
    const pairIssues = new Set(set.pairs.map((p) => p.issue));
    for (const p of set.held_out?.pairs ?? []) expect([p, pairIssues.has(p)]).toEqual([p, true]);
    for (const u of set.held_out?.unlinked ?? []) expect([u, set.unlinked.includes(u)]).toEqual([u, true]);
    const linked = new Set(set.pairs.flatMap((p) => [p.issue, p.duplicate_of]));
    for (const u of set.unlinked) expect([u, linked.has(u)]).toEqual([u, false]);
    for (const i of set.issues) expect(i.url).toBe(`https://github.com/ClickHouse/ClickHouse/issues/${i.number}`);
    expect(figures.duplicates.n).toBe(set.pairs.length);
    expect(figures.unlinked.n).toBe(set.unlinked.length);
  });

  // The floors are the figures measured on this set (bench/results/eval-tracker-2026-12-01T*.md):
  // 7 of 8 ranked first (0.875; the miss, #62742, shares no words with its older issue but
  // "logical error"), 7 of 8 in the top 5, and 0 of 132 unlinked issues called duplicates (the
  // highest unlinked score is 0.49 against the 0.5 threshold). A change that ranks fewer first,
  // or calls any of these unlinked issues a duplicate, fails here.
  it(`TRACKER-04: ranks the recorded older issue first for at least 7 of the 8 recorded duplicates (spec target ${TrackerTargets.rankedFirst}; see bench/results)`, () => {
    process.stdout.write(`tracker set: ${figures.duplicates.rankedFirst}/${figures.duplicates.n} ranked first; ${figures.unlinked.falsePositives}/${figures.unlinked.n} unlinked called duplicates; splits ${JSON.stringify(figures.splits)}; misses ${JSON.stringify(figures.duplicates.misses)}; flagged ${JSON.stringify(figures.unlinked.flagged)}; calibrated ${figures.calibratedThreshold}; pair scores ${JSON.stringify(figures.duplicates.scores)}; unlinked top ${JSON.stringify(figures.unlinked.topScores.slice(0, 6))}\n`);
    expect(figures.duplicates.n).toBe(8);
    expect(figures.duplicates.rankedFirst).toBeGreaterThanOrEqual(7);
    expect(figures.duplicates.rate).toBeGreaterThanOrEqual(TrackerTargets.rankedFirst);
    expect(figures.duplicates.inTop5).toBeGreaterThanOrEqual(7);
  });

  it(`TRACKER-04, TRACKER-05: calls none of the 132 issues with no recorded link a duplicate (measured 0; target at most ${TrackerTargets.falsePositivesPer100} per 100)`, () => {
    expect(figures.unlinked.n).toBe(132);
    expect(figures.unlinked.falsePositives).toBeLessThanOrEqual(0);
    expect(figures.unlinked.per100).toBeLessThanOrEqual(TrackerTargets.falsePositivesPer100);
  });

  it('TRACKER-04: on the held-out split (added after the ranker was tuned) the figures hold too: 1 of 1 ranked first, 0 of 60 called duplicates', () => {
    const held = figures.splits.find((s) => s.name === 'held-out');
    expect(held).toMatchObject({ pairs: 1, unlinked: 60 });
    expect(held!.rankedFirst).toBeGreaterThanOrEqual(1);
    expect(held!.falsePositives).toBeLessThanOrEqual(0);
  });
});
