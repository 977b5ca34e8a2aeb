import type { IncidentPrRef, IncidentRefs, IncidentsMapping, IncidentView } from '@loom/contracts';
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

/**
 * A repository as a team's table may write it (`acme/app`, `https://github.com/acme/app.git`, a
 * Loom name): trimmed, without a URL's scheme and host, a trailing `.git` or slash.
 */
function repoText(column: string | undefined): string {
  if (!column) return "''";
  return `replaceRegexpOne(trim(ifNull(toString(${ident(column)}), '')), '^(?:[a-zA-Z][a-zA-Z0-9+.-]*://[^/]+/)?(.*?)(?:\\.git)?/?$', '\\1')`;
}

/**
 * PRs as `repo#N`, keeping the repository a ref names: `acme/app#1234` as it is, a pull request
 * URL (`…/acme/app/pull/1234`) as `acme/app#1234`; a bare `1234` or `#1234` (or any token's
 * trailing digits) as `#1234`, or `<repo>#1234` with the row's `repo` column when the mapping
 * names one. Distinct; tokens without a number drop out.
 */
export function prList(column: string | undefined, repo?: string): string {
  const ref = `multiIf(
      match(v, '[^/#?[:space:]]+/[^/#?[:space:]]+/pulls?/[0-9]+'), concat(extract(v, '([^/#?[:space:]]+/[^/#?[:space:]]+)/pulls?/[0-9]+'), '#', extract(v, '/pulls?/([0-9]+)')),
      match(v, '^[^#]+#[0-9]+$'), v,
      concat(${repoText(repo)}, '#', extract(v, '([0-9]+)/?$')))`;
  return `arrayDistinct(arrayFilter(v -> match(v, '#[0-9]+$'), arrayMap(v -> ${ref}, ${tokens(column)})))`;
}

/** The number of a `repo#N` ref, as text. */
export const refNumber = (ref: string) => `extract(${ref}, '#([0-9]+)$')`;
/** The repository of a `repo#N` ref; empty for a bare number. */
export const refRepo = (ref: string) => `extract(${ref}, '^(.*)#[0-9]+$')`;

/**
 * Whether an incident row (its columns as `incidentColumns` names them) is of a repository that one
 * of the named String parameters holds (an empty one names none), compared case-insensitively: it
 * names that repository (its `repo` column or a PR ref), or it names no repository at all, as a
 * bare PR number names that PR in every repository.
 */
export function incidentOfRepository(params: readonly string[]): string {
  const named = `arrayMap(x -> lower(x), arrayFilter(x -> x != '', arrayConcat([li_repo], arrayMap(r -> ${refRepo('r')}, arrayConcat(li_caused_prs, li_fixed_prs)))))`;
  return `(empty(${named}) OR ${params.map((p) => `has(${named}, lower({${p}:String}))`).join(' OR ')})`;
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
    `${repoText(m.repo)} AS li_repo`,
    `${prList(m.caused_by_pr, m.repo)} AS li_caused_prs`,
    `${commitList(m.caused_by_commit)} AS li_caused_commits`,
    `${prList(m.fixed_by_pr, m.repo)} AS li_fixed_prs`,
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
  li_repo: string;
  li_caused_prs: string[];
  li_caused_commits: string[];
  li_fixed_prs: string[];
  li_fixed_commits: string[];
}

/** `YYYY-MM-DD hh:mm:ss` (UTC) from the engine, as ISO 8601; empty stays null. */
function iso(value: string): string | null {
  return value ? `${value.replace(' ', 'T')}Z` : null;
}

/** A `repo#N` ref from the engine as the repository (null for a bare number) and the number. */
export function prRef(ref: string): IncidentPrRef | null {
  const at = ref.lastIndexOf('#');
  const number = Number(ref.slice(at + 1));
  if (at < 0 || !Number.isSafeInteger(number) || number <= 0) return null;
  return { repository: at === 0 ? null : ref.slice(0, at), number };
}

function refs(prs: readonly string[], commits: readonly string[]): IncidentRefs {
  const pr_refs = prs.map(prRef).filter((r): r is IncidentPrRef => r !== null);
  return { prs: [...new Set(pr_refs.map((r) => r.number))], pr_refs, commits: [...commits] };
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
    repository: row.li_repo === '' ? null : row.li_repo,
    caused_by: refs(row.li_caused_prs, row.li_caused_commits),
    fixed_by: refs(row.li_fixed_prs, row.li_fixed_commits),
  };
}
