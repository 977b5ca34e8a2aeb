import { join } from 'node:path';
import { calibrate, issueUrlBase, loadTrackerSet, openedTimes, renderTrackerSummary, setRepository, splitFigures, TrackerSetFiles, wilson, type TrackerFigures, type TrackerSet } from './tracker-eval';

describe('tracker eval helpers [TRACKER-04]', () => {
  it('calibrate: the lowest threshold that flags at most the allowed share of top scores', () => {
    expect(calibrate([0.9, 0.5, 0.3, 0.2], 0.25)).toBe(0.51);
    expect(calibrate([0.9, 0.5, 0.3, 0.2], 0)).toBe(0.91);
    expect(calibrate([], 0.02)).toBe(0.01);
  });

  it('opened times: recorded dates kept, the rest interpolated by issue number, order strict', () => {
    const times = openedTimes([
      { number: 10, url: '', title: '', body: '', opened: '2024-01-01' },
      { number: 20, url: '', title: '', body: '', opened: null },
      { number: 30, url: '', title: '', body: '', opened: '2024-01-21' },
    ]);
    expect(times.get(10)!.slice(0, 10)).toBe('2024-01-01');
    expect(times.get(20)!.slice(0, 10)).toBe('2024-01-11');
    expect(times.get(10)! < times.get(20)! && times.get(20)! < times.get(30)!).toBe(true);
  });

  it('wilson: the 95% interval of a small-sample rate is wide, and narrows with n', () => {
    const [lo, hi] = wilson(7, 8);
    expect(lo).toBeCloseTo(0.529, 2);
    expect(hi).toBeCloseTo(0.978, 2);
    expect(wilson(0, 125)[1]).toBeCloseTo(0.0298, 3);
    expect(wilson(0, 0)).toEqual([0, 1]);
  });

  it('split figures: each split counts only its own pairs and unlinked issues', () => {
    const set = { pairs: [{ issue: '3', duplicate_of: '1' }, { issue: '4', duplicate_of: '2' }], unlinked: ['5', '6'], held_out: { about: '', pairs: ['4'], unlinked: ['6'] } } as unknown as TrackerSet;
    const first = new Map([['3', true], ['4', false]]);
    const top = new Map([['5', { score: 0.2, flagged: false }], ['6', { score: 0.7, flagged: true }]]);
    const top5 = new Map([['3', true], ['4', true]]);
    expect(splitFigures(set, first, top, top5)).toEqual([
      { name: 'tuning', pairs: 1, rankedFirst: 1, inTop5: 1, unlinked: 1, falsePositives: 0, topUnlinkedScore: 0.2 },
      { name: 'held-out', pairs: 1, rankedFirst: 0, inTop5: 1, unlinked: 1, falsePositives: 1, topUnlinkedScore: 0.7 },
    ]);
    expect(splitFigures({ ...set, held_out: undefined }, first, top)).toEqual([]);
  });
});

describe('tracker eval summary [TRACKER-04]', () => {
  const figures = (first: number, n: number, fp: number, u: number) =>
    ({ duplicates: { rankedFirst: first, n, inTop5: n, sameIssueFirst: first, rate: first / n }, unlinked: { falsePositives: fp, n: u }, splits: [{ name: 'held-out', pairs: n, rankedFirst: first, inTop5: n, unlinked: u, falsePositives: fp, topUnlinkedScore: 0 }] }) as unknown as TrackerFigures;

  it('names the repository from the issue URL base', () => {
    expect(setRepository({ source: 'https://github.com/ClickHouse/ClickHouse/issues' })).toBe('ClickHouse/ClickHouse');
    expect(setRepository({ source: 'https://github.com/rust-lang/rust/issues/' })).toBe('rust-lang/rust');
  });

  it('gives each repository its own row and pools them in an all-repositories row', () => {
    const md = renderTrackerSummary([
      { repository: 'a/a', figures: figures(3, 4, 0, 100) },
      { repository: 'b/b', figures: figures(1, 2, 1, 10) },
    ]);
    expect(md).toContain('| a/a | 3 of 4 (0.750;');
    expect(md).toContain('| b/b | 1 of 2 (0.500;');
    expect(md).toContain('| all repositories | 4 of 6 (0.667;');
    expect(md).toContain('1 of 110 (0.9 per 100;');
    // Each row gives the held-out and the tuning split's first, top 5 and unlinked called.
    expect(md).toContain('| 3 of 4; 4 of 4; 0 of 100 | 0 of 0; 0 of 0; 0 of 0 |');
  });
});

describe('committed tracker sets [TRACKER-04]', () => {
  // The int-spec runs these sets through the tracker; this checks their shape without a Loom, so a
  // hand-edited set that breaks a rule fails in the unit run.
  it.each(TrackerSetFiles.map((file) => [file]))('TRACKER-04: %s loads and is whole: pairs point back in time, unlinked issues are unlinked, the held-out split names only its own', (file) => {
    const set = loadTrackerSet(join(__dirname, file));
    const numbers = set.issues.map((i) => i.number);
    expect(new Set(numbers).size).toBe(numbers.length);
    const known = new Set(numbers.map(String));
    const times = openedTimes(set.issues);
    for (const p of set.pairs) {
      // The recorded older issue is in the pool, has the smaller number and is opened first.
      expect([p.issue, known.has(p.issue), known.has(p.duplicate_of), Number(p.duplicate_of) < Number(p.issue)]).toEqual([p.issue, true, true, true]);
      expect([p.issue, times.get(Number(p.duplicate_of))! < times.get(Number(p.issue))!]).toEqual([p.issue, true]);
    }
    const linked = new Set(set.pairs.flatMap((p) => [p.issue, p.duplicate_of]));
    for (const u of set.unlinked) expect([u, known.has(u), linked.has(u)]).toEqual([u, true, false]);
    expect(new Set(set.unlinked).size).toBe(set.unlinked.length);
    const pairIssues = new Set(set.pairs.map((p) => p.issue));
    for (const p of set.held_out?.pairs ?? []) expect([p, pairIssues.has(p)]).toEqual([p, true]);
    for (const u of set.held_out?.unlinked ?? []) expect([u, set.unlinked.includes(u)]).toEqual([u, true]);
    for (const i of set.issues) {
      expect(i.url).toBe(`${issueUrlBase(set)}${i.number}`);
      expect([i.number, i.body.length <= 500, i.opened === null || /^\d{4}-\d{2}-\d{2}$/.test(i.opened)]).toEqual([i.number, true, true]);
    }
    // Sets other than the first ClickHouse one say where each pair's link was recorded.
    if (file !== 'tracker-set.json') for (const p of set.pairs) expect([p.issue, set.evidence?.[`${p.issue} -> ${p.duplicate_of}`] !== undefined]).toEqual([p.issue, true]);
  });
});
