import { queryTerms } from '@loom/conversations';
import type { IncidentLinkView, IncidentLookup, IncidentPrRef, IncidentQuery, IncidentRepository, IncidentView } from '@loom/contracts';

export type { IncidentLookup, IncidentQuery, IncidentRepository } from '@loom/contracts';
import type { Ranked } from '../similarity/rankers';

export type IncidentSource = (namespace: string, query: IncidentQuery) => Promise<IncidentLookup>;

/** Said when this process has no tracker plane to ask (a CodeHistory built without one). */
export const NO_TRACKER = 'incidents come from the tracker plane, which this process does not run';

/** The shortest commit prefix an incident's link is matched by. */
const MIN_COMMIT_PREFIX = 7;

function namesCommit(links: readonly string[], sha: string): boolean {
  const full = sha.toLowerCase();
  return links.some((link) => link.length >= MIN_COMMIT_PREFIX && full.startsWith(link));
}

/**
 * Whether a PR ref names this repository's PR: a ref that names a repository only when it names
 * this one (its Loom name, or its GitHub owner/repo in any case); a bare number in every repository.
 */
export function namesRepository(ref: IncidentPrRef, repository: IncidentRepository): boolean {
  if (ref.repository === null) return true;
  return ref.repository === repository.name || (repository.github !== null && ref.repository.toLowerCase() === repository.github.toLowerCase());
}

/** The ref by which an incident names this repository's PR `number`, if it does (one naming the repository first). */
export function namingRef(refs: readonly IncidentPrRef[], number: number, repository: IncidentRepository): IncidentPrRef | undefined {
  const named = refs.filter((r) => r.number === number && namesRepository(r, repository));
  return named.find((r) => r.repository !== null) ?? named[0];
}

/**
 * The incidents that name this commit or its PR as their cause or fix, one entry per incident
 * and role (by commit when both match), oldest start first.
 */
export function incidentLinks(incidents: readonly IncidentView[], item: { sha: string; pr_number: number | null }, repository: IncidentRepository): IncidentLinkView[] {
  const out: IncidentLinkView[] = [];
  for (const incident of incidents) {
    for (const role of ['caused', 'fixed'] as const) {
      const refs = role === 'caused' ? incident.caused_by : incident.fixed_by;
      const via = item.sha !== '' && namesCommit(refs.commits, item.sha) ? 'commit' : item.pr_number !== null && namingRef(refs.pr_refs, item.pr_number, repository) ? 'pr' : null;
      if (via === null) continue;
      out.push({ id: incident.id, title: incident.title, severity: incident.severity, status: incident.status, started_at: incident.started_at, resolved_at: incident.resolved_at, role, via });
    }
  }
  return out;
}

/** Fills each item's `incidents` from one lookup of all their PRs and commits (in this repository); answers the lookup's reason. */
export async function attachIncidents(
  source: IncidentSource | undefined,
  namespace: string,
  repository: { name: string; github: () => Promise<string | null> },
  items: { sha: string; pr_number: number | null; incidents: IncidentLinkView[] }[],
): Promise<string | null> {
  if (!source) return NO_TRACKER;
  const prs = items.map((i) => i.pr_number).filter((n): n is number => n !== null);
  const shas = items.map((i) => i.sha).filter((s) => s !== '');
  // Its GitHub owner/repo matters only to PR refs: no PR, no read.
  const names: IncidentRepository = { name: repository.name, github: prs.length > 0 ? await repository.github() : null };
  const lookup = await source(namespace, { repository: names, prs, shas });
  for (const item of items) item.incidents = incidentLinks(lookup.incidents, item, names);
  return lookup.reason;
}

/** How much the incident evidence weighs beside the text, code, area, hint and size signals (which sum to 1). */
export const INCIDENT_WEIGHT = 0.6;
/** An incident that started within this long after a commit landed is evidence against it. */
export const INCIDENT_AFTER_MS = 24 * 3_600_000;

/**
 * Bisect evidence from incidents (PRHIST-02 with PRHIST-03): an incident that names a commit (or
 * its PR) as its cause is strong evidence, full when its title shares words with the regression's
 * description and half otherwise; an incident that started within 24 hours after a commit landed
 * is weaker, by how soon (up to 0.3, plus 0.2 when its title shares words). Each adds a reason;
 * the scores are renormalised so a range with no incident keeps its order.
 */
export function weighIncidents(ranked: Ranked[], incidents: readonly IncidentView[], description: string, repository: IncidentRepository): Ranked[] {
  if (incidents.length === 0) return ranked;
  const terms = new Set(queryTerms(description));
  const shared = (title: string) => [...new Set(queryTerms(title))].filter((t) => terms.has(t) && t.length >= 3);
  const quote = (i: IncidentView) => `incident ${i.id} ("${i.title.slice(0, 80)}"${i.severity ? `, ${i.severity}` : ''})`;
  for (const r of ranked) {
    let evidence = 0;
    const reasons: string[] = [];
    for (const incident of incidents) {
      const words = shared(incident.title);
      const also = words.length > 0 ? `; it mentions ${words.slice(0, 5).map((w) => `"${w}"`).join(', ')}` : '';
      const byCommit = namesCommit(incident.caused_by.commits, r.doc.sha);
      const byPr = r.doc.pr_number > 0 ? namingRef(incident.caused_by.pr_refs, r.doc.pr_number, repository) : undefined;
      if (byCommit || byPr) {
        evidence = Math.max(evidence, words.length > 0 ? 1 : 0.5);
        reasons.push(`${quote(incident)} names ${byCommit ? 'this commit' : prNamed(byPr!)} as its cause${also}`);
        continue;
      }
      // Its start time is evidence only in the repositories it is of (a bare PR number names none).
      if (incident.started_at === null || !ofRepository(incident, repository)) continue;
      const gap = Date.parse(incident.started_at) - Date.parse(r.doc.committed_at);
      if (!(gap >= 0 && gap <= INCIDENT_AFTER_MS)) continue;
      evidence = Math.max(evidence, 0.3 * (1 - gap / INCIDENT_AFTER_MS) + (words.length > 0 ? 0.2 : 0));
      reasons.push(`${quote(incident)} started ${duration(gap)} after it landed${also}`);
    }
    r.score = (r.score + INCIDENT_WEIGHT * evidence) / (1 + INCIDENT_WEIGHT);
    if (reasons.length > 0) r.reasons.unshift(...reasons);
  }
  return ranked.sort((a, b) => b.score - a.score || b.doc.seq - a.doc.seq);
}

/**
 * Whether an incident is of this repository: its `repo` column or one of its PR refs names it, or
 * it names no repository at all.
 */
export function ofRepository(incident: IncidentView, repository: IncidentRepository): boolean {
  const named = [incident.repository, ...incident.caused_by.pr_refs.map((r) => r.repository), ...incident.fixed_by.pr_refs.map((r) => r.repository)].filter(
    (r): r is string => r !== null && r !== '',
  );
  // Case-insensitive, as the tracker's read of the window compares them.
  const names = [repository.name, repository.github].filter((n): n is string => n !== null).map((n) => n.toLowerCase());
  return named.length === 0 || named.some((r) => names.includes(r.toLowerCase()));
}

/** How a reason says which PR an incident named: with its repository, or that a bare number names it in every repository. */
function prNamed(ref: IncidentPrRef): string {
  return ref.repository === null ? `PR #${ref.number} (by number alone, which names #${ref.number} in every repository of the namespace)` : `PR ${ref.repository}#${ref.number}`;
}

function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}
