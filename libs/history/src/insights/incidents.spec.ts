import type { IncidentRefs, IncidentView } from '@loom/contracts';
import type { ChangeDoc } from '../similarity/change-corpus';
import type { Ranked } from '../similarity/rankers';
import { incidentLinks, ofRepository, weighIncidents } from './incidents';

const SHA = 'abcdef0123456789abcdef0123456789abcdef01';

/** This repository's names: its Loom name and its GitHub owner/repo. */
const REPO = { name: 'app', github: 'acme/app' };

/** Refs as the tracker answers them, from `7` (bare) or `acme/app#7`. */
function refs(prs: (number | string)[] = [], commits: string[] = []): IncidentRefs {
  const pr_refs = prs.map((p) => (typeof p === 'number' ? { repository: null, number: p } : { repository: p.slice(0, p.lastIndexOf('#')), number: Number(p.slice(p.lastIndexOf('#') + 1)) }));
  return { prs: [...new Set(pr_refs.map((r) => r.number))], pr_refs, commits };
}

function incident(over: Partial<IncidentView> & { id: string }): IncidentView {
  return { title: 'Something broke', severity: null, status: null, started_at: '2026-01-01T12:00:00Z', resolved_at: null, summary: null, repository: null, caused_by: refs(), fixed_by: refs(), ...over };
}

function ranked(score: number, sha: string, pr: number, committedAt: string): Ranked {
  const doc = { sha, seq: score * 100, pr_number: pr, committed_at: committedAt } as unknown as ChangeDoc;
  return { doc, score, reasons: ['+1 -1 lines in 1 file'], terms: [], files: [], symbols: [] };
}

describe('incidents in history answers [issue 13: incidents] PRHIST-02', () => {
  it('PRHIST-02: a commit is named by its full sha or a prefix of at least 7 digits, a PR by its number; the commit wins when both match', () => {
    const incidents = [
      incident({ id: 'A', caused_by: refs([7], [SHA.slice(0, 7)]) }),
      incident({ id: 'B', caused_by: refs([], [SHA.slice(0, 6)]), fixed_by: refs([7], []) }),
      incident({ id: 'C', caused_by: refs([8], ['abcdef0999']) }),
    ];
    expect(incidentLinks(incidents, { sha: SHA, pr_number: 7 }, REPO).map((l) => `${l.id}:${l.role}:${l.via}`)).toEqual(['A:caused:commit', 'B:fixed:pr']);
    expect(incidentLinks(incidents, { sha: SHA, pr_number: null }, REPO)).toEqual([expect.objectContaining({ id: 'A', role: 'caused', via: 'commit' })]);
  });

  it('PRHIST-02, PRHIST-03: bisect keeps its order without incidents; a named cause whose title shares the description\'s words moves a commit up, and a start soon after landing adds a weaker reason', () => {
    const list = () => [ranked(0.5, 'a'.repeat(40), 1, '2026-01-01T09:00:00Z'), ranked(0.3, SHA, 2, '2026-01-01T10:00:00Z'), ranked(0.1, 'c'.repeat(40), 3, '2026-01-01T11:50:00Z')];
    expect(weighIncidents(list(), [], 'pool exhausted', REPO).map((r) => r.score)).toEqual([0.5, 0.3, 0.1]);
    const named = weighIncidents(list(), [incident({ id: 'INC-1', title: 'Connection pool exhausted', started_at: '2026-01-03T00:00:00Z', caused_by: refs([2], []) })], 'the pool is exhausted', REPO);
    expect(named[0]!.doc.sha).toBe(SHA);
    expect(named[0]!.reasons[0]).toMatch(/^incident INC-1 \("Connection pool exhausted"\) names PR #2 \(by number alone, which names #2 in every repository of the namespace\) as its cause; it mentions "/);
    // A title that shares no word with the description: half the evidence (here still enough to pass 0.5 against 0.3).
    const unrelated = weighIncidents(list(), [incident({ id: 'INC-2', title: 'Disk full', started_at: '2026-01-03T00:00:00Z', caused_by: refs([2], []) })], 'the pool is exhausted', REPO);
    expect(unrelated[0]!.doc.sha).toBe(SHA);
    expect(unrelated[0]!.score).toBeCloseTo((0.3 + 0.6 * 0.5) / 1.6, 6);
    // Started 10 minutes after the last commit landed: that commit gains the most, earlier ones less, a commit landed after it none.
    const soon = weighIncidents(list(), [incident({ id: 'INC-3', title: 'Disk full', started_at: '2026-01-01T12:00:00Z' })], 'the pool is exhausted', REPO);
    const bySha = new Map(soon.map((r) => [r.doc.sha, r]));
    expect(bySha.get('c'.repeat(40))!.reasons[0]).toBe('incident INC-3 ("Disk full") started 10 min after it landed');
    expect(bySha.get('c'.repeat(40))!.score).toBeCloseTo((0.1 + 0.6 * 0.3 * (1 - 10 / 1440)) / 1.6, 6);
    expect(bySha.get(SHA)!.reasons[0]).toBe('incident INC-3 ("Disk full") started 2 h after it landed');
    const later = weighIncidents(list(), [incident({ id: 'INC-4', started_at: '2026-01-01T09:30:00Z' })], 'x', REPO);
    expect(later.find((r) => r.doc.sha === SHA)!.reasons.some((r) => r.startsWith('incident'))).toBe(false);
  });

  it('PRHIST-02: a PR ref that names a repository names only that one (by its GitHub owner/repo in any case, or its Loom name); a bare number names the PR in every repository', () => {
    const incidents = [
      incident({ id: 'SLUG', caused_by: refs(['Acme/App#7']) }),
      incident({ id: 'NAME', caused_by: refs(['app#7']) }),
      incident({ id: 'OTHER', caused_by: refs(['acme/other#7']), fixed_by: refs(['other#7']) }),
      incident({ id: 'BARE', fixed_by: refs([7]) }),
    ];
    const links = (repository: { name: string; github: string | null }) => incidentLinks(incidents, { sha: SHA, pr_number: 7 }, repository).map((l) => `${l.id}:${l.role}`);
    expect(links(REPO)).toEqual(['SLUG:caused', 'NAME:caused', 'BARE:fixed']);
    expect(links({ name: 'other', github: null })).toEqual(['OTHER:fixed', 'BARE:fixed']);
    expect(links({ name: 'third', github: 'acme/third' })).toEqual(['BARE:fixed']);
    // Bisect: a cause in another repository is no evidence here; one naming this repository says so.
    const list = () => [ranked(0.5, 'a'.repeat(40), 1, '2026-01-01T09:00:00Z'), ranked(0.3, SHA, 2, '2026-01-01T10:00:00Z')];
    const elsewhere = weighIncidents(list(), [incident({ id: 'INC-5', title: 'Pool exhausted', started_at: '2026-01-03T00:00:00Z', caused_by: refs(['acme/other#2']) })], 'the pool is exhausted', REPO);
    expect(elsewhere.map((r) => r.score)).toEqual([0.5 / 1.6, 0.3 / 1.6]);
    const here = weighIncidents(list(), [incident({ id: 'INC-6', title: 'Pool exhausted', started_at: '2026-01-03T00:00:00Z', caused_by: refs(['acme/app#2']) })], 'the pool is exhausted', REPO);
    expect(here[0]!.reasons[0]).toMatch(/^incident INC-6 \("Pool exhausted"\) names PR acme\/app#2 as its cause; it mentions "/);
  });

  it('PRHIST-02, PRHIST-03: an incident that names only other repositories (its repo column or its PR refs) is no evidence by its start time here; one naming this repository, or none, is', () => {
    const list = () => [ranked(0.5, 'a'.repeat(40), 1, '2026-01-01T09:00:00Z'), ranked(0.3, SHA, 2, '2026-01-01T11:00:00Z')];
    const started = { title: 'Disk full', started_at: '2026-01-01T11:30:00Z' };
    const byColumn = incident({ id: 'COL', ...started, repository: 'acme/other' });
    const byRef = incident({ id: 'REF', ...started, fixed_by: refs(['other#9']) });
    const mine = incident({ id: 'MINE', ...started, repository: 'Acme/App' });
    const anywhere = incident({ id: 'ANY', ...started, fixed_by: refs([9]) });
    expect([byColumn, byRef, mine, anywhere].map((i) => ofRepository(i, REPO))).toEqual([false, false, true, true]);
    // Named by both this repository and another (a fix in each): of both.
    expect(ofRepository(incident({ id: 'BOTH', repository: 'acme/other', fixed_by: refs(['app#3']) }), REPO)).toBe(true);
    expect(weighIncidents(list(), [byColumn, byRef], 'x', REPO).map((r) => r.score)).toEqual([0.5 / 1.6, 0.3 / 1.6]);
    const near = new Map(weighIncidents(list(), [mine, anywhere], 'x', REPO).map((r) => [r.doc.sha, r]));
    expect(near.get(SHA)!.reasons.slice(0, 2)).toEqual(['incident MINE ("Disk full") started 30 min after it landed', 'incident ANY ("Disk full") started 30 min after it landed']);
    expect(near.get(SHA)!.score).toBeCloseTo((0.3 + 0.6 * 0.3 * (1 - 30 / 1440)) / 1.6, 6);
  });
});
