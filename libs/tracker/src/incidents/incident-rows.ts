import type { IncidentRefs, IncidentsMapping, IncidentView } from '@loom/contracts';
import { ident } from '../source/source-client';

/** Characters of an incident's summary answered. */
export const MAX_SUMMARY_CHARS = 2_000;
/** The shortest commit prefix an incident's link is matched by (git's own default abbreviation). */
export const MIN_COMMIT_PREFIX = 7;

/**
 * A link column's values as an Array(String) of tokens, whatever the team stored: one value, a
 * list in text ("#12, #13"), or an Array (of numbers or text). `arrayFlatten([c])` is `[c]` for a
 * value and `c` for an Array; NULLs and empty tokens drop out.
 */
function tokens(column: string | undefined): string {
  if (!column) return 'CAST([], \'Array(String)\')';
  return `arrayFilter(v -> v != '', arrayFlatten(arrayMap(x -> splitByRegexp('[,;[:space:]]+', ifNull(toString(x), '')), arrayFlatten([${ident(column)}]))))`;
}

/** PR numbers: the trailing digits of `1234`, `#1234`, `acme/app#1234` or a pull request URL. */
export function prList(column: string | undefined): string {
  return `arrayDistinct(arrayFilter(v -> v != '', arrayMap(v -> extract(v, '([0-9]+)/?$'), ${tokens(column)})))`;
}

/** Commits: the trailing sha (7-64 hex digits) of a sha or a commit URL, in lower case. */
export function commitList(column: string | undefined): string {
  return `arrayDistinct(arrayFilter(v -> length(v) >= ${MIN_COMMIT_PREFIX}, arrayMap(v -> lower(extract(v, '([0-9a-fA-F]{7,64})/?$')), ${tokens(column)})))`;
}

const timeText = (column: string) => `ifNull(toString(toDateTime(${ident(column)}, 'UTC')), '')`;
const text = (column: string) => `ifNull(toString(${ident(column)}), '')`;

/** The columns every incident read selects, by the mapping. */
export function incidentColumns(m: IncidentsMapping): string {
  return [
    `toString(${ident(m.id)}) AS li_id`,
    `${text(m.title)} AS li_title`,
    `${m.severity ? text(m.severity) : "''"} AS li_severity`,
    `${m.status ? text(m.status) : "''"} AS li_status`,
    `${timeText(m.started_at)} AS li_started`,
    `${m.resolved_at ? timeText(m.resolved_at) : "''"} AS li_resolved`,
    `${m.summary ? `substring(${text(m.summary)}, 1, ${MAX_SUMMARY_CHARS})` : "''"} AS li_summary`,
    `${prList(m.caused_by_pr)} AS li_caused_prs`,
    `${commitList(m.caused_by_commit)} AS li_caused_commits`,
    `${prList(m.fixed_by_pr)} AS li_fixed_prs`,
    `${commitList(m.fixed_by_commit)} AS li_fixed_commits`,
  ].join(',\n       ');
}

export interface IncidentRow {
  li_id: string;
  li_title: string;
  li_severity: string;
  li_status: string;
  li_started: string;
  li_resolved: string;
  li_summary: string;
  li_caused_prs: string[];
  li_caused_commits: string[];
  li_fixed_prs: string[];
  li_fixed_commits: string[];
}

/** `YYYY-MM-DD hh:mm:ss` (UTC) from the engine, as ISO 8601; empty stays null. */
function iso(value: string): string | null {
  return value ? `${value.replace(' ', 'T')}Z` : null;
}

function refs(prs: readonly string[], commits: readonly string[]): IncidentRefs {
  return { prs: prs.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0), commits: [...commits] };
}

export function incidentView(row: IncidentRow, withSummary: boolean): IncidentView {
  return {
    id: row.li_id,
    title: row.li_title,
    severity: row.li_severity === '' ? null : row.li_severity,
    status: row.li_status === '' ? null : row.li_status,
    started_at: iso(row.li_started),
    resolved_at: iso(row.li_resolved),
    summary: withSummary ? row.li_summary : null,
    caused_by: refs(row.li_caused_prs, row.li_caused_commits),
    fixed_by: refs(row.li_fixed_prs, row.li_fixed_commits),
  };
}
