import { join } from 'node:path';
import { startTestLoom, uniqueNamespace, type TestLoom } from '../../../libs/testing/src';
import { DefaultRankerOptions } from '@loom/tracker';
import { lab } from './tracker-lab';
import { evaluateTracker, loadTrackerSet, setRepository, TrackerSetFiles, TrackerTargets, type TrackerFigures, type TrackerSet } from './tracker-eval';

/**
 * TRACKER-04 regression: the committed sets of public issues (TrackerSetFiles: ClickHouse, the
 * spec's tracker, then nineteen other large public repositories; in the repository so a fresh clone
 * runs them) through tracker.duplicate_check on the embedded default, one namespace per set. The
 * set's recorded pairs are also the tracker's duplicate-link table, each link dated when its
 * duplicate was opened, so a check sees only links older than the issue asked about (ADR 0034).
 *
 * The floors are the figures measured on these sets (bench/results/eval-tracker-2026-12-02T11-01-48Z.md,
 * after ADR 0036's templated-title penalty, recency share 0.35 and query body weight 2). ADR 0036
 * tuned the ranker on the ClickHouse, vscode and flutter sets and holds out the other six; eleven
 * more (round 5) were collected after it and never tuned on. A change that ranks fewer first, or calls more unlinked
 * issues duplicates, fails here.
 */
describe('Tracker duplicate check on public issue sets [TRACKER-04]', () => {
  let loom: TestLoom;
  const sets = new Map<string, TrackerSet>(TrackerSetFiles.map((file) => {
    const set = loadTrackerSet(join(__dirname, file));
    return [setRepository(set), set] as const;
  }));
  const figures = new Map<string, TrackerFigures>();
  const of = (repository: string): TrackerFigures => figures.get(repository)!;
  const pooled = (repositories: readonly string[]) =>
    repositories.map(of).reduce(
      (sum, f) => ({ pairs: sum.pairs + f.duplicates.n, first: sum.first + f.duplicates.rankedFirst, top5: sum.top5 + f.duplicates.inTop5, unlinked: sum.unlinked + f.unlinked.n, called: sum.called + f.unlinked.falsePositives }),
      { pairs: 0, first: 0, top5: 0, unlinked: 0, called: 0 },
    );
  const HeldOut = ['rust-lang/rust', 'golang/go', 'microsoft/TypeScript', 'denoland/deno', 'kubernetes/kubernetes', 'nodejs/node'];
  const RoundFive = ['electron/electron', 'godotengine/godot', 'elastic/elasticsearch', 'grafana/grafana', 'dotnet/runtime', 'hashicorp/terraform', 'python/cpython', 'facebook/react', 'sveltejs/svelte', 'angular/angular', 'vercel/next.js'];

  beforeAll(async () => {
    loom = await startTestLoom({ withEmbedder: false, env: { LOOM_TRACKER_ORG: 'ClickHouse' } });
    for (const [repository, set] of sets) figures.set(repository, await evaluateTracker(loom, set, uniqueNamespace()));
  }, 600_000);
  afterAll(async () => loom.close());

  it.each([...TrackerSetFiles])('TRACKER-04: the set %s is real and whole: every pair and unlinked issue is in it, with its public URL', (file) => {
    const set = loadTrackerSet(join(__dirname, file));
    const numbers = new Set(set.issues.map((i) => String(i.number)));
    for (const p of set.pairs) expect([p.issue, numbers.has(p.issue), numbers.has(p.duplicate_of)]).toEqual([p.issue, true, true]);
    for (const u of set.unlinked) expect([u, numbers.has(u)]).toEqual([u, true]);
    // The held-out split names only pairs and unlinked issues of the set, and no issue is both.
    const pairIssues = new Set(set.pairs.map((p) => p.issue));
    for (const p of set.held_out?.pairs ?? []) expect([p, pairIssues.has(p)]).toEqual([p, true]);
    for (const u of set.held_out?.unlinked ?? []) expect([u, set.unlinked.includes(u)]).toEqual([u, true]);
    const linked = new Set(set.pairs.flatMap((p) => [p.issue, p.duplicate_of]));
    for (const u of set.unlinked) expect([u, linked.has(u)]).toEqual([u, false]);
    for (const i of set.issues) expect(i.url).toBe(`${set.source.replace(/\/$/, '')}/${i.number}`);
    const f = of(setRepository(set));
    expect([f.duplicates.n, f.unlinked.n]).toEqual([set.pairs.length, set.unlinked.length]);
  });

  it('TRACKER-04: every pair of the sets beside ClickHouse names where its link was recorded', () => {
    for (const [repository, set] of sets) {
      if (repository === 'ClickHouse/ClickHouse') continue;
      for (const p of set.pairs) expect([repository, p.issue, set.evidence?.[`${p.issue} -> ${p.duplicate_of}`] !== undefined]).toEqual([repository, p.issue, true]);
    }
  });

  // ClickHouse (42 pairs, 437 unlinked; tuning since ADR 0036): 33 of 42 ranked first (0.786,
  // interval 0.64-0.88: still below the spec's 0.875), 38 in the top 5; 1 of 437 unlinked called
  // duplicates (#23577 -> #21829 at 0.63).
  it(`TRACKER-04: ClickHouse: ranks the recorded older issue first for at least 33 of 42 (measured 0.786, under the spec target ${TrackerTargets.rankedFirst}), in the top 5 for 38; at most 1 of 437 unlinked called duplicates`, () => {
    const f = of('ClickHouse/ClickHouse');
    process.stdout.write(`tracker sets: ${[...figures].map(([r, x]) => `${r} ${x.duplicates.rankedFirst}/${x.duplicates.n} first, ${x.unlinked.falsePositives}/${x.unlinked.n} called`).join('; ')}\n`);
    expect(f.links).toBe(true);
    expect([f.duplicates.n, f.unlinked.n]).toEqual([42, 437]);
    expect(f.duplicates.rankedFirst).toBeGreaterThanOrEqual(33);
    expect(f.duplicates.inTop5).toBeGreaterThanOrEqual(38);
    expect(f.unlinked.falsePositives).toBeLessThanOrEqual(1);
    expect(f.unlinked.per100).toBeLessThanOrEqual(TrackerTargets.falsePositivesPer100);
  });

  // The ranker alone (no duplicate links; in process, the same pool and ranker as the service):
  // ClickHouse 30 of 42 first, 1 of 437 called. It holds the ranker itself.
  it("TRACKER-04: ClickHouse, the ranker alone without the tracker's duplicate links: at least 30 of 42 first, at most 1 of 437 called", () => {
    const alone = lab(sets.get('ClickHouse/ClickHouse')!, DefaultRankerOptions, of('ClickHouse/ClickHouse').threshold, undefined, false);
    expect([alone.pairs, alone.unlinked]).toEqual([42, 437]);
    expect(alone.first).toBeGreaterThanOrEqual(30);
    expect(alone.flagged).toBeLessThanOrEqual(1);
  }, 120_000);

  // Every repository (168 pairs, 890 unlinked; bench/results/eval-tracker-2026-12-02T11-01-48Z.md):
  // 113 first (0.673), 157 in the top 5, 4 called (0.4 per 100, under the spec's 2; flutter's
  // templated crash reports give 2 of them). Before the query body weight 2 (ADR 0036, addendum 3):
  // 111, 156 and 7.
  it('TRACKER-04, TRACKER-05: all twenty repositories: at least 113 of 168 ranked first, 157 in the top 5, at most 4 of 890 unlinked called duplicates (under 2 per 100)', () => {
    const all = pooled([...sets.keys()]);
    expect([all.pairs, all.unlinked]).toEqual([168, 890]);
    expect(all.first).toBeGreaterThanOrEqual(113);
    expect(all.top5).toBeGreaterThanOrEqual(157);
    expect(all.called).toBeLessThanOrEqual(4);
    expect((100 * all.called) / all.unlinked).toBeLessThanOrEqual(TrackerTargets.falsePositivesPer100);
  });

  // Round 5 (ADR 0036 addendum): eleven repositories collected after the tuning, never tuned on
  // (61 pairs, 228 unlinked): 38 first (0.623; 36 before the query body weight 2), 57 in the top 5,
  // 1 called (angular). Per repository: electron 8/8, godot 6/7, elasticsearch 6/6, grafana 3/6,
  // dotnet/runtime 4/4, terraform 1/5, cpython 2/4, react 0/3, svelte 2/5, angular 6/12, next.js 0/1.
  it('TRACKER-04: the round-5 held-out repositories (eleven, never tuned on): at least 38 of 61 ranked first, 57 in the top 5, at most 1 of 228 unlinked called duplicates', () => {
    const held = pooled(RoundFive);
    expect([held.pairs, held.unlinked]).toEqual([61, 228]);
    expect(held.first).toBeGreaterThanOrEqual(38);
    expect(held.top5).toBeGreaterThanOrEqual(57);
    expect(held.called).toBeLessThanOrEqual(1);
  });

  // The six repositories ADR 0036 held out (35 pairs, 149 unlinked): 25 first (0.714), 32 in the top
  // 5, none called. Per repository: rust 6/9, go 2/4, TypeScript 4/6, deno 10/13, kubernetes 2/2, node 1/1.
  it('TRACKER-04: the held-out repositories (rust, go, TypeScript, deno, kubernetes, node): at least 25 of 35 ranked first, 32 in the top 5, none of 149 unlinked called duplicates', () => {
    const held = pooled(HeldOut);
    expect([held.pairs, held.unlinked]).toEqual([35, 149]);
    expect(held.first).toBeGreaterThanOrEqual(25);
    expect(held.top5).toBeGreaterThanOrEqual(32);
    expect(held.called).toBe(0);
    const floors: Record<string, number> = { 'rust-lang/rust': 6, 'golang/go': 2, 'microsoft/TypeScript': 4, 'denoland/deno': 10, 'kubernetes/kubernetes': 2, 'nodejs/node': 1 };
    for (const [repository, first] of Object.entries(floors)) expect([repository, of(repository).duplicates.rankedFirst >= first]).toEqual([repository, true]);
  });

  // The other tuning sets: vscode 9 of 15 first (15 in the top 5: several reports of one terminal
  // bug rank each other first), 0 of 29 called; flutter 8 of 15 (15 in the top 5), 2 of 47 called.
  it('TRACKER-04: microsoft/vscode and flutter/flutter: at least 9 and 8 of 15 ranked first, all 15 in the top 5; at most 0 of 29 and 2 of 47 called', () => {
    const vscode = of('microsoft/vscode');
    const flutter = of('flutter/flutter');
    expect([vscode.duplicates.n, flutter.duplicates.n]).toEqual([15, 15]);
    expect(vscode.duplicates.rankedFirst).toBeGreaterThanOrEqual(9);
    expect(flutter.duplicates.rankedFirst).toBeGreaterThanOrEqual(8);
    expect([vscode.duplicates.inTop5, flutter.duplicates.inTop5]).toEqual([15, 15]);
    expect(vscode.unlinked.falsePositives).toBe(0);
    expect(flutter.unlinked.falsePositives).toBeLessThanOrEqual(2);
  });
});
