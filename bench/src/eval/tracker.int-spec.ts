import { join } from 'node:path';
import { startTestLoom, uniqueNamespace, type TestLoom } from '../../../libs/testing/src';
import { DefaultRankerOptions } from '@loom/tracker';
import { lab } from './tracker-lab';
import { evaluateTracker, loadTrackerSet, TrackerTargets, type TrackerFigures, type TrackerSet } from './tracker-eval';

/**
 * TRACKER-04 regression: the committed sets of public issues (bench/src/eval/tracker-set.json for
 * ClickHouse, tracker-set-rust.json for rust-lang/rust, tracker-set-vscode.json for
 * microsoft/vscode, tracker-set-go.json for golang/go; in the repository so a fresh clone runs
 * them) through tracker.duplicate_check on the embedded default, one namespace per repository.
 * The set's recorded pairs are also the tracker's duplicate-link table, each link dated when its
 * duplicate was opened, so a check sees only links older than the issue asked about (ADR 0034).
 */
describe('Tracker duplicate check on public issue sets [TRACKER-04]', () => {
  let loom: TestLoom;
  let clickhouse: TrackerFigures;
  let rust: TrackerFigures;
  let vscode: TrackerFigures;
  let go: TrackerFigures;
  const sets = {
    clickhouse: loadTrackerSet(),
    rust: loadTrackerSet(join(__dirname, 'tracker-set-rust.json')),
    vscode: loadTrackerSet(join(__dirname, 'tracker-set-vscode.json')),
    go: loadTrackerSet(join(__dirname, 'tracker-set-go.json')),
  };

  beforeAll(async () => {
    loom = await startTestLoom({ withEmbedder: false, env: { LOOM_TRACKER_ORG: 'ClickHouse' } });
    clickhouse = await evaluateTracker(loom, sets.clickhouse, uniqueNamespace());
    rust = await evaluateTracker(loom, sets.rust, uniqueNamespace());
    vscode = await evaluateTracker(loom, sets.vscode, uniqueNamespace());
    go = await evaluateTracker(loom, sets.go, uniqueNamespace());
  }, 180_000);
  afterAll(async () => loom.close());

  const whole = (set: TrackerSet, figures: () => TrackerFigures) => () => {
    const numbers = new Set(set.issues.map((i) => String(i.number)));
    for (const p of set.pairs) expect([p.issue, numbers.has(p.issue), numbers.has(p.duplicate_of), Number(p.duplicate_of) < Number(p.issue)]).toEqual([p.issue, true, true, true]);
    for (const u of set.unlinked) expect(numbers.has(u)).toBe(true);
    // The held-out split names only pairs and unlinked issues of the set, and no issue is both.
    const pairIssues = new Set(set.pairs.map((p) => p.issue));
    for (const p of set.held_out?.pairs ?? []) expect([p, pairIssues.has(p)]).toEqual([p, true]);
    for (const u of set.held_out?.unlinked ?? []) expect([u, set.unlinked.includes(u)]).toEqual([u, true]);
    const linked = new Set(set.pairs.flatMap((p) => [p.issue, p.duplicate_of]));
    for (const u of set.unlinked) expect([u, linked.has(u)]).toEqual([u, false]);
    for (const i of set.issues) expect(i.url).toBe(`${set.source.replace(/\/$/, '')}/${i.number}`);
    expect(figures().duplicates.n).toBe(set.pairs.length);
    expect(figures().unlinked.n).toBe(set.unlinked.length);
  };

  it('TRACKER-04: the ClickHouse set is real and whole: every pair and unlinked issue is in it, with its public URL', whole(sets.clickhouse, () => clickhouse));
  it('TRACKER-04: the rust-lang/rust set is real and whole too', whole(sets.rust, () => rust));
  it('TRACKER-04: the microsoft/vscode set is real and whole too', whole(sets.vscode, () => vscode));
  it('TRACKER-04: the golang/go set is real and whole too', whole(sets.go, () => go));
  it('TRACKER-04: every pair of every committed set names where its link was recorded', () => {
    for (const set of [sets.rust, sets.vscode, sets.go]) {
      for (const p of set.pairs) expect([p.issue, set.evidence?.[`${p.issue} -> ${p.duplicate_of}`] !== undefined]).toEqual([p.issue, true]);
    }
  });

  // The floors are the figures measured on these sets (bench/results/eval-tracker-2026-12-02T00-34-28Z.md,
  // commit 402d341, load ~24-27 on 2 cores). ClickHouse: 17 of 21 ranked first (0.810, interval
  // 0.60-0.92: still below the spec's 0.875), 19 of 21 in the top 5. The ranker alone ranked 14 of 21
  // first; the other 3 (#51998, #31077, #39448, all held out) ranked an older recorded duplicate of
  // #8655 first, which now answers with #8655 itself. Still missed: #59912 and #51895 (rank 3 and 2;
  // #44351 first for both), #62742 (shares no words with #51819 but
  // "logical error") and #66919 ("clickhouse restart", whose stack trace is only an image). 2 of 285
  // unlinked issues are called duplicates, both held out: #20102 -> #8636 (0.5257) and #101916 ->
  // #75593 (0.6841: the same "Bad cast" logical error class, casts in opposite directions, no
  // recorded link). A change that ranks fewer first, or calls more of these unlinked issues
  // duplicates, fails here.
  it(`TRACKER-04: ClickHouse: ranks the recorded older issue first for at least 17 of 21 (measured 0.810, under the spec target ${TrackerTargets.rankedFirst}), in the top 5 for 19`, () => {
    process.stdout.write(`tracker sets: clickhouse ${clickhouse.duplicates.rankedFirst}/${clickhouse.duplicates.n} first, ${clickhouse.unlinked.falsePositives}/${clickhouse.unlinked.n} unlinked called; rust ${rust.duplicates.rankedFirst}/${rust.duplicates.n}, ${rust.unlinked.falsePositives}/${rust.unlinked.n}; splits ${JSON.stringify(clickhouse.splits)}; misses ${JSON.stringify(clickhouse.duplicates.misses.map((m) => m.issue))}; unlinked called ${JSON.stringify(clickhouse.unlinked.flagged)}\n`);
    expect(clickhouse.links).toBe(true);
    expect(clickhouse.duplicates.n).toBe(21);
    expect(clickhouse.duplicates.rankedFirst).toBeGreaterThanOrEqual(17);
    expect(clickhouse.duplicates.inTop5).toBeGreaterThanOrEqual(19);
    expect(clickhouse.duplicates.sameIssueFirst).toBeGreaterThanOrEqual(17);
  });

  // The ranker alone (no duplicate links; in process, the same pool and ranker as the service):
  // 14 of 21 first, 2 of 285 called; held-out 8 of 14, tuning 6 of 7. It holds the ranker itself.
  it('TRACKER-04: ClickHouse, the ranker alone without the tracker\'s duplicate links: at least 14 of 21 first, at most 2 of 285 called', () => {
    const alone = lab(sets.clickhouse, DefaultRankerOptions, clickhouse.threshold, undefined, false);
    expect([alone.pairs, alone.unlinked]).toEqual([21, 285]);
    expect(alone.first).toBeGreaterThanOrEqual(14);
    expect(alone.flagged).toBeLessThanOrEqual(2);
    const held = sets.clickhouse.held_out!.pairs;
    const heldMissed = held.filter((id) => alone.misses.some((m) => m.startsWith(`${id}->`)));
    expect(held.length - heldMissed.length).toBeGreaterThanOrEqual(8);
  }, 120_000);

  it(`TRACKER-04, TRACKER-05: ClickHouse: calls at most 2 of the 285 issues with no recorded link a duplicate (measured 2, 0.7 per 100; target at most ${TrackerTargets.falsePositivesPer100} per 100)`, () => {
    expect(clickhouse.unlinked.n).toBe(285);
    expect(clickhouse.unlinked.falsePositives).toBeLessThanOrEqual(2);
    expect(clickhouse.unlinked.per100).toBeLessThanOrEqual(TrackerTargets.falsePositivesPer100);
  });

  // Held out (added after the ranker's knobs were settled, none changed since): 11 of 14 ranked
  // first (8 by the ranker alone), 13 of 14 in the top 5, 2 of 213 unlinked called duplicates. The
  // answering with originals has no knob but was prompted by misses seen on the whole set, held-out
  // pairs included. The tuning split stays at 6 of 7 and 0 of 72.
  it('TRACKER-04: ClickHouse held-out split (added after the ranker was tuned): 11 of 14 ranked first, 13 in the top 5, at most 2 of 213 called duplicates; tuning split 6 of 7, 0 of 72', () => {
    const held = clickhouse.splits.find((s) => s.name === 'held-out');
    expect(held).toMatchObject({ pairs: 14, unlinked: 213 });
    expect(held!.rankedFirst).toBeGreaterThanOrEqual(11);
    expect(held!.inTop5).toBeGreaterThanOrEqual(13);
    expect(held!.falsePositives).toBeLessThanOrEqual(2);
    const tuning = clickhouse.splits.find((s) => s.name === 'tuning');
    expect(tuning).toMatchObject({ pairs: 7, unlinked: 72 });
    expect(tuning!.rankedFirst).toBeGreaterThanOrEqual(6);
    expect(tuning!.falsePositives).toBeLessThanOrEqual(0);
  });

  // rust-lang/rust (all held out): 4 of 5 first, 5 of 5 in the top 5; 1 of 9 unlinked called a
  // duplicate (#95021 -> #59609 at 0.5026: two generic "rustc panicked at Box<Any>" titles).
  it('TRACKER-04: rust-lang/rust: at least 4 of 5 ranked first and 5 of 5 in the top 5; at most 1 of 9 unlinked called duplicates', () => {
    expect(rust.duplicates.n).toBe(5);
    expect(rust.duplicates.rankedFirst).toBeGreaterThanOrEqual(4);
    expect(rust.duplicates.inTop5).toBeGreaterThanOrEqual(5);
    expect(rust.unlinked.n).toBe(9);
    expect(rust.unlinked.falsePositives).toBeLessThanOrEqual(1);
  });

  // microsoft/vscode and golang/go (bench/results/eval-tracker-2026-12-02T00-*.md, load ~21 on 2
  // cores; all held out): vscode 1 of 2 ranked first (#171246 "Same terminal appears replicated on
  // another workspace window" ranks #133542 "Reattached to the wrong terminal" 7th), 0 of 12
  // unlinked called duplicates (highest 0.31); go 1 of 1 first, 0 of 8 unlinked called (highest
  // 0.30). Two and one pairs say little on their own; the floors catch a change that loses them.
  it('TRACKER-04: microsoft/vscode: at least 1 of 2 ranked first; none of 12 unlinked called duplicates', () => {
    expect(vscode.duplicates.n).toBe(2);
    expect(vscode.duplicates.rankedFirst).toBeGreaterThanOrEqual(1);
    expect(vscode.unlinked.n).toBe(12);
    expect(vscode.unlinked.falsePositives).toBeLessThanOrEqual(0);
  });

  it('TRACKER-04: golang/go: 1 of 1 ranked first; none of 8 unlinked called duplicates', () => {
    expect(go.duplicates.n).toBe(1);
    expect(go.duplicates.rankedFirst).toBeGreaterThanOrEqual(1);
    expect(go.unlinked.n).toBe(8);
    expect(go.unlinked.falsePositives).toBeLessThanOrEqual(0);
  });
});
