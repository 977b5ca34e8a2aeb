import { readFileSync, writeFileSync } from 'node:fs';
import { openedTimes, type TrackerSet } from './tracker-eval';

/**
 * Converts a project of the GitBugs dataset (Avinash Patil, "GitBugs: Bug Reports for Duplicate
 * Detection, Retrieval Augmented Generation, Triage, and More", arXiv:2504.09651; CC BY 4.0;
 * github.com/av9ash/gitbugs) into a tracker set: real issues of a public tracker (Apache Jira for
 * Hadoop, Mozilla Bugzilla for SeaMonkey) with the duplicate links the tracker recorded.
 *
 * Inputs are the dataset's two files of a project: `<project>_bugs.csv` (Summary, Issue id,
 * Resolution, Created, Description, ...) and `<project>_bugs-combined.csv` (Issue id, Duplicate
 * id: the tracker's duplicate links, listed from both ends).
 *
 * - A pair is a recorded link between two issues of the file whose later-opened issue the
 *   tracker resolved as a duplicate: the later issue asks, the earlier one is expected first.
 *   Links whose earlier issue was the one resolved as the duplicate (the older report closed in
 *   favour of the newer), or where neither was, are left out and counted in `excluded`.
 * - Unlinked: issues with no recorded duplicate link, not resolved as a duplicate (of an issue
 *   outside the file), and whose title does not repeat an earlier issue's word for word (filed
 *   twice: a near-certain duplicate nobody recorded); optionally a seeded sample of them.
 * - The pool is every issue of the file; issues resolved as duplicates of an issue outside the
 *   file stay in the pool only.
 *
 * The dataset is third-party material: it is not copied into this repository. The converter
 * reads it from where it was put (see USAGE) and writes the set where it is told; `npm run eval --
 * --tracker --tracker-sets <file,...>` then runs it beside the committed sets.
 */

export interface GitbugsProject {
  /** Display name of the tracker, e.g. "Apache Jira: HADOOP". */
  repository: string;
  /** URL of one issue: the base with the issue id appended. */
  urlBase: string;
  /** The Resolution value that marks a duplicate ("Duplicate" in Jira, "DUPLICATE" in Bugzilla). */
  duplicateResolution: string;
}

export const GitbugsProjects: Record<string, GitbugsProject> = {
  hadoop: { repository: 'Apache Jira: Hadoop (GitBugs)', urlBase: 'https://issues.apache.org/jira/secure/ViewIssue.jspa?id=', duplicateResolution: 'Duplicate' },
  seamonkey: { repository: 'Mozilla Bugzilla: SeaMonkey (GitBugs)', urlBase: 'https://bugzilla.mozilla.org/show_bug.cgi?id=', duplicateResolution: 'DUPLICATE' },
};

/** RFC 4180 CSV: quoted fields may hold commas, newlines and doubled quotes. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

function records(text: string): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h.trim(), r[i] ?? ''])));
}

const MONTHS: Record<string, string> = { Jan: '01', Feb: '02', Mar: '03', Apr: '04', May: '05', Jun: '06', Jul: '07', Aug: '08', Sep: '09', Oct: '10', Nov: '11', Dec: '12' };

/** Jira's "30/Sep/21 17:20" or Bugzilla's "2020-01-02 17:14:21+00:00", as a UTC instant. */
export function parseCreated(value: string): Date {
  const v = value.trim();
  const jira = /^(\d{1,2})\/([A-Z][a-z]{2})\/(\d{2}) (\d{2}):(\d{2})$/.exec(v);
  if (jira && MONTHS[jira[2]!]) return new Date(`20${jira[3]}-${MONTHS[jira[2]!]}-${jira[1]!.padStart(2, '0')}T${jira[4]}:${jira[5]}:00Z`);
  const iso = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})([+-]\d{2}:\d{2})?$/.exec(v);
  if (iso) return new Date(`${iso[1]}T${iso[2]}${iso[3] ?? 'Z'}`);
  throw new Error(`unrecognised Created value "${value}"`);
}

/** A seeded sample (mulberry32), so a rerun of the converter builds the same set. */
export function sample<T>(items: readonly T[], n: number, seed: number): T[] {
  if (n >= items.length) return [...items];
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

export interface ConvertOptions {
  /** Longest body kept, in characters (descriptions hold long logs). */
  maxBody: number;
  /** Unlinked issues asked about: all when undefined. */
  unlinked?: number;
  seed: number;
  /** Where the dataset came from, for `about`. */
  origin: string;
}

export function convertGitbugs(project: GitbugsProject, bugsCsv: string, linksCsv: string, options: ConvertOptions): TrackerSet {
  const issues = new Map<number, { title: string; body: string; created: Date; resolution: string }>();
  for (const r of records(bugsCsv)) {
    const id = Number((r['Issue id'] ?? '').trim());
    if (!Number.isInteger(id) || id <= 0) continue;
    issues.set(id, {
      title: (r['Summary'] ?? '').trim(),
      body: (r['Description'] ?? '').replace(/\r/g, '').trim().slice(0, options.maxBody),
      created: parseCreated(r['Created'] ?? ''),
      resolution: (r['Resolution'] ?? '').trim(),
    });
  }
  // Each link once, from either end; ids the file does not hold are kept to know who is linked.
  const links = new Set<string>();
  const linked = new Set<number>();
  for (const r of records(linksCsv)) {
    const a = Number((r['Issue id'] ?? '').trim());
    for (const part of (r['Duplicate id'] ?? '').split(/[,\s]+/)) {
      const b = Number(part);
      if (!Number.isInteger(a) || !Number.isInteger(b) || a <= 0 || b <= 0 || a === b) continue;
      linked.add(a);
      linked.add(b);
      links.add(a < b ? `${a}:${b}` : `${b}:${a}`);
    }
  }
  const isDuplicate = (id: number) => issues.get(id)?.resolution === project.duplicateResolution;
  const pairs: TrackerSet['pairs'] = [];
  const evidence: Record<string, string> = {};
  let olderResolved = 0;
  let neitherResolved = 0;
  let outside = 0;
  for (const link of [...links].sort()) {
    const [a, b] = link.split(':').map(Number) as [number, number];
    const ia = issues.get(a);
    const ib = issues.get(b);
    if (!ia || !ib) {
      outside += 1;
      continue;
    }
    const [newer, older] = ia.created.getTime() > ib.created.getTime() ? [a, b] : [b, a];
    if (isDuplicate(newer)) {
      pairs.push({ issue: String(newer), duplicate_of: String(older) });
      evidence[`${newer} -> ${older}`] = `tracker duplicate link between the two; #${newer} resolved ${project.duplicateResolution}`;
    } else if (isDuplicate(older)) olderResolved += 1;
    else neitherResolved += 1;
  }
  // One pair per asking issue: the earliest older issue it was linked to.
  const byIssue = new Map<string, TrackerSet['pairs'][number]>();
  for (const p of pairs) {
    const prior = byIssue.get(p.issue);
    if (!prior || Number(p.duplicate_of) < Number(prior.duplicate_of)) byIssue.set(p.issue, p);
  }
  const kept = [...byIssue.values()].sort((x, y) => Number(x.issue) - Number(y.issue));
  const inPairs = new Set(kept.flatMap((p) => [p.issue, p.duplicate_of]));
  // An issue whose title repeats an earlier issue's word for word is a near-certain duplicate the
  // tracker did not record (filed twice): pool only, as the hand-built sets do.
  const normal = (t: string) => t.toLowerCase().replace(/\s+/g, ' ').trim();
  const firstWithTitle = new Map<string, number>();
  for (const id of [...issues.keys()].sort((x, y) => issues.get(x)!.created.getTime() - issues.get(y)!.created.getTime() || x - y)) {
    const t = normal(issues.get(id)!.title);
    if (!firstWithTitle.has(t)) firstWithTitle.set(t, id);
  }
  const repeatsTitle = (id: number) => firstWithTitle.get(normal(issues.get(id)!.title)) !== id;
  const unlinkedAll = [...issues.keys()].filter((id) => !linked.has(id) && !isDuplicate(id) && !inPairs.has(String(id)));
  const candidates = unlinkedAll.filter((id) => !repeatsTitle(id)).sort((x, y) => x - y);
  const unlinked = (options.unlinked === undefined ? candidates : sample(candidates, options.unlinked, options.seed)).sort((x, y) => x - y).map(String);

  const setIssues: TrackerSet['issues'] = [...issues.entries()]
    .sort(([x], [y]) => x - y)
    .map(([number, i]) => ({ number, url: `${project.urlBase}${number}`, title: i.title, body: i.body, opened: i.created.toISOString().slice(0, 10) }));
  // The eval orders issues by (date, id); a pair it would order the wrong way is left out.
  const times = openedTimes(setIssues);
  const ordered = kept.filter((p) => times.get(Number(p.duplicate_of))! < times.get(Number(p.issue))!);
  const misordered = kept.length - ordered.length;
  const dupNoPair = [...issues.keys()].filter((id) => isDuplicate(id) && !inPairs.has(String(id))).length;
  return {
    about: `${project.repository}: real issues with the duplicate links their tracker recorded, converted by bench/src/eval/tracker-set-gitbugs.ts from the GitBugs dataset (${options.origin}; Avinash Patil, arXiv:2504.09651; licence CC BY 4.0). Titles are the issues' summaries; bodies their descriptions, cut at ${options.maxBody} characters. Opening dates are the recorded creation dates. A pair is a recorded link whose later-opened issue the tracker resolved as a duplicate. ${options.unlinked === undefined ? 'Unlinked: every issue with no recorded link that was not resolved as a duplicate and does not repeat an earlier title word for word.' : `Unlinked: a seeded sample (seed ${options.seed}) of ${unlinked.length} of the ${candidates.length} issues with no recorded link that were not resolved as duplicates and do not repeat an earlier title word for word.`} The pool is every issue of the file. Nothing here was seen when the ranker was tuned: all held-out.`,
    source: project.urlBase,
    repository: project.repository,
    excluded: {
      'older issue resolved as the duplicate': `${olderResolved} links whose earlier issue was closed in favour of the later one: no older issue to find`,
      'neither resolved as a duplicate': `${neitherResolved} links where neither issue was resolved as a duplicate`,
      'other end outside the file': `${outside} links to an issue the file does not hold`,
      'resolved as a duplicate with no pair here': `${dupNoPair} issues (duplicates of issues outside the file, or left out above): pool only`,
      'ordered wrongly by the eval': `${misordered} pairs whose two issues the eval's (date, id) order would swap`,
      'same title as an earlier issue, no recorded link': `${unlinkedAll.length - candidates.length} issues whose title repeats an earlier issue's word for word (near-certain unrecorded duplicates): pool only, not unlinked`,
    },
    evidence,
    pairs: ordered,
    unlinked,
    held_out: { about: 'Converted from a published dataset after the ranker was last tuned, with no ranker change since: every pair and unlinked issue is held out.', pairs: ordered.map((p) => p.issue), unlinked },
    issues: setIssues,
  };
}

const USAGE = `usage: node dist/bench/src/eval/tracker-set-gitbugs.js <project> <bugs.csv> <combined.csv> <out.json> [--max-body N] [--unlinked N] [--seed N] [--origin TEXT]
  project: ${Object.keys(GitbugsProjects).join(', ')}
  The CSVs are the GitBugs dataset's <project>/<Project>_bugs.csv and <Project>_bugs-combined.csv
  (github.com/av9ash/gitbugs). Write out.json outside the repository: the data is third-party.`;

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const [name, bugs, combined, out] = argv;
  const project = name ? GitbugsProjects[name] : undefined;
  if (!project || !bugs || !combined || !out) {
    process.stderr.write(USAGE + '\n');
    process.exit(2);
  }
  const unlinked = flag(argv, 'unlinked');
  const set = convertGitbugs(project, readFileSync(bugs, 'utf8'), readFileSync(combined, 'utf8'), {
    maxBody: Number(flag(argv, 'max-body') ?? 2000),
    unlinked: unlinked === undefined ? undefined : Number(unlinked),
    seed: Number(flag(argv, 'seed') ?? 13),
    origin: flag(argv, 'origin') ?? 'github.com/av9ash/gitbugs',
  });
  writeFileSync(out, JSON.stringify(set, null, 1) + '\n');
  process.stdout.write(`${out}: ${set.pairs.length} pairs, ${set.unlinked.length} unlinked, ${set.issues.length} issues; excluded ${JSON.stringify(set.excluded)}\n`);
}
