import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsObject, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { HTTP_URL_PATTERN, IsoTime, NamespacedRequest, Optional } from '../common.dto';

/**
 * A name Loom puts into SQL: a database, table or column of the team's own ClickHouse. Only plain
 * identifiers are taken, so a mapping can never carry SQL; values always travel as parameters.
 */
export const TRACKER_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const IDENTIFIER_MESSAGE = '$property must be a plain identifier (a letter or _, then letters, digits or _; at most 64)';

function Identifier(): PropertyDecorator {
  return (target, key) => {
    IsString()(target, key);
    Matches(TRACKER_IDENTIFIER, { message: IDENTIFIER_MESSAGE })(target, key);
  };
}

/**
 * The score from which tracker.duplicate_check calls an older issue a duplicate, unless
 * LOOM_TRACKER_DUPLICATE_THRESHOLD or the live setting says otherwise. On the public issue set in
 * bench/src/eval/tracker-set.json it calls 2 of the 285 unlinked issues a duplicate (0 of the 72
 * it was settled on); a lower one fitted on part of that set over-calls on the rest
 * (docs/spec-decisions.md, TRACKER-04).
 */
export const TRACKER_DEFAULT_DUPLICATE_THRESHOLD = 0.5;

/** `embedded`: Loom's own engine (tests, one-box trials); else a ClickHouse server's HTTP(S) URL. */
export const TRACKER_EMBEDDED = 'embedded';

export class TrackerConnection {
  @IsString()
  @MaxLength(2_048)
  @Matches(new RegExp(`^embedded$|${HTTP_URL_PATTERN.source}`), { message: 'url must be "embedded" (Loom\'s own engine) or an http(s) URL of a ClickHouse server, without credentials (give them as user and password)' })
  url!: string;
  @Optional() @IsString() @MaxLength(256) user?: string;
  /** Stored to connect; never logged and never answered. */
  @Optional() @IsString() @MaxLength(1_024) password?: string;
  /** The database holding the mapped tables. */
  @Identifier() database!: string;
}

/** The issues table: one row per issue. */
export class IssuesMapping {
  @Identifier() table!: string;
  @Identifier() id!: string;
  @Identifier() title!: string;
  @Identifier() body!: string;
  @Identifier() created_at!: string;
  @Optional() @Identifier() state?: string;
  @Optional() @Identifier() closed_at?: string;
  /** The issue this one was closed as a duplicate of (empty or null when none). */
  @Optional() @Identifier() duplicate_of?: string;
}

/** The tracker's own link table: one row per (issue, pull request) link. */
export class PrLinksMapping {
  @Identifier() table!: string;
  @Identifier() issue!: string;
  @Identifier() pr!: string;
}

/**
 * The tracker's own duplicate links, when they live in a table of their own (a "marked as
 * duplicate" event log, an issue-link table): one row per (duplicate, original). With `linked_at`
 * a check sees only links recorded before the new issue was opened.
 */
export class DuplicateLinksMapping {
  @Identifier() table!: string;
  /** The issue closed as a duplicate. */
  @Identifier() issue!: string;
  /** The issue it duplicates (its original). */
  @Identifier() duplicate_of!: string;
  @Optional() @Identifier() linked_at?: string;
}

/** Pull requests whose bodies may say "Fixes #N". */
export class PullRequestsMapping {
  @Identifier() table!: string;
  @Identifier() number!: string;
  @Identifier() body!: string;
  @Optional() @Identifier() title?: string;
  @Optional() @Identifier() merged_at?: string;
}

/** Commits whose messages may say "Fixes #N". */
export class CommitsMapping {
  @Identifier() table!: string;
  @Identifier() sha!: string;
  @Identifier() message!: string;
  @Optional() @Identifier() committed_at?: string;
}

/** CI runs: one row per test result. */
export class CiRunsMapping {
  @Identifier() table!: string;
  @Identifier() test!: string;
  @Identifier() commit!: string;
  @Identifier() status!: string;
  @Identifier() run_at!: string;
  /** Status values that mean failed (compared case-insensitively); default fail, failed, failure, error. */
  @Optional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(20) @IsString({ each: true }) @MaxLength(64, { each: true }) fail_values?: string[];
  /** Status values that mean passed; default pass, passed, success, ok. */
  @Optional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(20) @IsString({ each: true }) @MaxLength(64, { each: true }) pass_values?: string[];
}

/**
 * Incidents: one row per incident, with the PRs and commits that caused or fixed it. A link
 * column may hold one value (`1234`, `#1234`, `acme/app#1234`, a PR or commit URL, a sha or a
 * prefix of at least 7 hex digits), several separated by commas or spaces, or an Array of them.
 */
export class IncidentsMapping {
  @Identifier() table!: string;
  @Identifier() id!: string;
  @Identifier() title!: string;
  @Identifier() started_at!: string;
  @Optional() @Identifier() resolved_at?: string;
  @Optional() @Identifier() severity?: string;
  @Optional() @Identifier() status?: string;
  /** A text column: what happened (the post-mortem's summary). */
  @Optional() @Identifier() summary?: string;
  @Optional() @Identifier() caused_by_pr?: string;
  @Optional() @Identifier() caused_by_commit?: string;
  @Optional() @Identifier() fixed_by_pr?: string;
  @Optional() @Identifier() fixed_by_commit?: string;
  /**
   * A text column: the repository a row's incident is about (`acme/app` or a Loom repository
   * name). It scopes the row's bare PR numbers (`1234`, `#1234`) to that repository; a PR ref that
   * names its own repository keeps it. Without it, a bare number names that PR in every repository.
   */
  @Optional() @Identifier() repo?: string;
}

export class TrackerMapping {
  @IsObject() @ValidateNested() @Type(() => IssuesMapping) issues!: IssuesMapping;
  @Optional() @IsObject() @ValidateNested() @Type(() => PrLinksMapping) pr_links?: PrLinksMapping;
  @Optional() @IsObject() @ValidateNested() @Type(() => PullRequestsMapping) pull_requests?: PullRequestsMapping;
  @Optional() @IsObject() @ValidateNested() @Type(() => CommitsMapping) commits?: CommitsMapping;
  @Optional() @IsObject() @ValidateNested() @Type(() => CiRunsMapping) ci_runs?: CiRunsMapping;
  /** Where recorded duplicate links live besides `issues.duplicate_of` (either, both or neither). */
  @Optional() @IsObject() @ValidateNested() @Type(() => DuplicateLinksMapping) duplicate_links?: DuplicateLinksMapping;
  @Optional() @IsObject() @ValidateNested() @Type(() => IncidentsMapping) incidents?: IncidentsMapping;
}

export class TrackerSourceRegisterRequest extends NamespacedRequest {
  @IsObject() @ValidateNested() @Type(() => TrackerConnection) connection!: TrackerConnection;
  @IsObject() @ValidateNested() @Type(() => TrackerMapping) mapping!: TrackerMapping;
  /** Base URL of the tracker's issue pages, for links in answers (e.g. https://github.com/acme/app/issues/). */
  @Optional() @IsString() @MaxLength(512) @Matches(HTTP_URL_PATTERN, { message: 'issue_url_base must be an http(s) URL without credentials (user:password@)' }) issue_url_base?: string;

  static readonly example: TrackerSourceRegisterRequest = Object.assign(new TrackerSourceRegisterRequest(), {
    connection: { url: 'https://clickhouse.acme.internal:8443', user: 'loom_reader', password: 'reader-secret', database: 'tracker' },
    mapping: {
      issues: { table: 'issues', id: 'number', title: 'title', body: 'body', created_at: 'created_at', state: 'state', closed_at: 'closed_at', duplicate_of: 'duplicate_of' },
      pr_links: { table: 'issue_pr_links', issue: 'issue_number', pr: 'pr_number' },
      pull_requests: { table: 'pull_requests', number: 'number', body: 'body', title: 'title', merged_at: 'merged_at' },
      ci_runs: { table: 'ci_test_runs', test: 'test_name', commit: 'commit_sha', status: 'result', run_at: 'finished_at' },
      incidents: { table: 'incidents', id: 'incident_id', title: 'title', started_at: 'started_at', resolved_at: 'resolved_at', severity: 'severity', status: 'status', caused_by_pr: 'cause_prs', fixed_by_commit: 'fix_commits' },
    },
  });
}

export class TrackerStatusRequest extends NamespacedRequest {
  static readonly example: TrackerStatusRequest = new TrackerStatusRequest();
}

export class TrackerDuplicateCheckRequest extends NamespacedRequest {
  /** The new issue's title; required unless `issue` names one already in the tracker. */
  @Optional() @IsString() @MinLength(1) @MaxLength(1_000) title?: string;
  @Optional() @IsString() @MaxLength(100_000) body?: string;
  /** An issue already in the tracker, checked against the issues opened before it (its title and body are read from the source). */
  @Optional() @IsString() @MinLength(1) @MaxLength(128) @Matches(/^#?[A-Za-z0-9_.:-]+$/, { message: 'issue must be an issue id such as 1234' }) issue?: string;
  /** Only issues opened before this instant are candidates (the new issue's own time); default: all. */
  @Optional() @IsoTime() created_before?: string;
  @Optional() @IsInt() @Min(1) @Max(50) limit?: number;

  static readonly example: TrackerDuplicateCheckRequest = Object.assign(new TrackerDuplicateCheckRequest(), {
    title: 'Logical error: Not-ready Set is passed',
    body: 'Code: 49. DB::Exception: Not-ready Set is passed as the second argument for function in. (LOGICAL_ERROR)',
    limit: 5,
  });
}

export class TrackerIssueLinksRequest extends NamespacedRequest {
  /** The issue's id as the tracker writes it (e.g. "1234"). */
  @IsString() @MinLength(1) @MaxLength(128) @Matches(/^#?[A-Za-z0-9_.:-]+$/, { message: 'issue must be an issue id such as 1234' }) issue!: string;
  @Optional() @IsInt() @Min(1) @Max(500) limit?: number;

  static readonly example: TrackerIssueLinksRequest = Object.assign(new TrackerIssueLinksRequest(), { issue: '1234' });
}

export class TrackerFlakyTestsRequest extends NamespacedRequest {
  /** Only runs at or after this instant. */
  @Optional() @IsoTime() since?: string;
  /** Only this test. */
  @Optional() @IsString() @MinLength(1) @MaxLength(1_000) test?: string;
  @Optional() @IsInt() @Min(1) @Max(200) limit?: number;
  @Optional() @IsInt() @Min(0) @Max(100_000) offset?: number;
  /** Latest runs shown per test. */
  @Optional() @IsInt() @Min(1) @Max(50) runs?: number;

  static readonly example: TrackerFlakyTestsRequest = Object.assign(new TrackerFlakyTestsRequest(), { since: '2026-11-01', limit: 20 });
}

/** A repository as an incident filter names it: a Loom repository name, or GitHub's owner/name. */
const INCIDENT_REPOSITORY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}(?:\/[A-Za-z0-9_.-]{1,100})?$/;

export class TrackerIncidentsRequest extends NamespacedRequest {
  /** Only incidents that started at or after this instant. */
  @Optional() @IsoTime() since?: string;
  /** Only incidents that started at or before this instant. */
  @Optional() @IsoTime() until?: string;
  /** Only incidents linked (caused or fixed) to this pull request. */
  @Optional() @IsInt() @Min(1) @Max(2_147_483_647) pr?: number;
  /**
   * Only incidents of this repository (`acme/app` or a Loom repository name, compared
   * case-insensitively): those whose `repo` column or PR refs name it, and those that name no
   * repository at all (a bare PR number names that PR in every repository). With `pr`, the PR ref
   * must name this repository or none.
   */
  @Optional() @IsString() @Matches(INCIDENT_REPOSITORY, { message: 'repository must be a repository name (app) or owner/name (acme/app)' }) repository?: string;
  /** Only incidents linked to this commit (a sha or a prefix of at least 7 hex digits). */
  @Optional() @IsString() @Matches(/^[0-9a-fA-F]{7,64}$/, { message: 'commit must be a commit sha or a prefix of one (7-64 hex digits)' }) commit?: string;
  /** Only this severity or status (compared case-insensitively). */
  @Optional() @IsString() @MinLength(1) @MaxLength(128) severity?: string;
  @Optional() @IsString() @MinLength(1) @MaxLength(128) status?: string;
  @Optional() @IsInt() @Min(1) @Max(200) limit?: number;
  @Optional() @IsInt() @Min(0) @Max(100_000) offset?: number;

  static readonly example: TrackerIncidentsRequest = Object.assign(new TrackerIncidentsRequest(), { since: '2026-11-01', limit: 20 });
}

/** The registered source as answered: never the password. */
export interface TrackerSourceView {
  connection: { url: string; user: string | null; database: string; password_set: boolean };
  /** The column mapping as registered: per table (`issues`, `pr_links`, …), its table and column names. */
  mapping: Record<string, Record<string, string>>;
  issue_url_base: string | null;
  registered_at: string;
}

export interface TrackerStatusResponse {
  enabled: boolean;
  /** LOOM_TRACKER_ORG, or null when unset. */
  org: string | null;
  source_registered: boolean;
  /** Why the plane is off and how to turn it on; null when on. */
  reason: string | null;
  source: TrackerSourceView | null;
}

export interface TrackerSourceRegisterResponse {
  registered: true;
  enabled: boolean;
  source: TrackerSourceView;
  /** Rows in the issues table when registered (a reachability and mapping check). */
  issues: number;
}

export interface DuplicateCandidate {
  id: string;
  title: string;
  state: string | null;
  created_at: string | null;
  url: string | null;
  /** 0..1: how likely this older issue is the one the new issue duplicates. */
  score: number;
  /** Whether the score reaches the live threshold (`tracker_duplicate_threshold`). */
  duplicate: boolean;
  /** Code-like evidence both issues share (error codes, exception names, stack frames). */
  shared: string[];
  /**
   * The issue the new one matched when the tracker records that issue as a duplicate of this one
   * (its `issues.duplicate_of` or `duplicate_links`): the original answers in the known
   * duplicate's place, with its score and shared evidence. Null when this issue matched on its own.
   */
  via: string | null;
  /** Why this issue stands where the new one matched another; null when it matched on its own. */
  reason: string | null;
}

export interface TrackerDuplicateCheckResponse {
  candidates: DuplicateCandidate[];
  threshold: number;
  /** Older issues read from the source and ranked. */
  considered: number;
}

export type IssueLinkSource = 'link_table' | 'pr_body' | 'commit_message';

export interface IssueLink {
  /** A pull request number, or a commit sha for commit messages. */
  pr: string | null;
  sha: string | null;
  source: IssueLinkSource;
  /** The phrase that made the link ("Fixes #12"); null for the link table. */
  phrase: string | null;
}

export interface TrackerIssueLinksResponse {
  issue: string;
  links: IssueLink[];
}

export interface FlakyRun {
  commit: string;
  status: string;
  run_at: string;
}

export interface FlakyTest {
  test: string;
  /** Commits on which the test both failed and passed. */
  flaky_commits: number;
  failures: number;
  passes: number;
  last_seen: string;
  latest_runs: FlakyRun[];
}

export interface TrackerFlakyTestsResponse {
  tests: FlakyTest[];
  /** Pass as offset for the next page; null when this page is the last. */
  next_offset: number | null;
}

/** A pull request an incident names, with the repository it names when it names one. */
export interface IncidentPrRef {
  /**
   * The repository as the incident named it (`acme/app` from `acme/app#1234` or a pull request
   * URL, or a Loom repository name from `app#1234`), or the row's `repo` column (when the mapping
   * names one) for a bare number. Null for a bare `1234`/`#1234` with no `repo` column: that names
   * PR 1234 in every repository of the namespace.
   */
  repository: string | null;
  number: number;
}

/** The PRs and commits an incident names, normalised: PR numbers, and commit shas (or prefixes) in lower case. */
export interface IncidentRefs {
  /** Every PR number named, whatever its repository (`pr_refs` says which). */
  prs: number[];
  /** Each PR named, with its repository when the incident named one. */
  pr_refs: IncidentPrRef[];
  commits: string[];
}

export interface IncidentView {
  id: string;
  title: string;
  severity: string | null;
  status: string | null;
  /** Null only when the source's start column holds NULL. */
  started_at: string | null;
  resolved_at: string | null;
  /** The summary column, cut to 2,000 characters; null when none is mapped. */
  summary: string | null;
  /**
   * The row's `repo` column (`mapping.incidents.repo`) as the team wrote it, without a URL's
   * scheme and host or a trailing `.git`; null when none is mapped or the cell is empty. With it, or
   * with PR refs that name their repositories, an incident is of those repositories only: bisect
   * counts its start time as evidence only there.
   */
  repository: string | null;
  caused_by: IncidentRefs;
  fixed_by: IncidentRefs;
}

/** The repository a history answer is about, by the names an incident may call it. */
export interface IncidentRepository {
  /** Its Loom name (`loom code add <path> --name`). */
  name: string;
  /** Its GitHub owner/repo when it has a GitHub source (`loom code github`); null otherwise. */
  github: string | null;
}

/** What a history answer asks of the tracker's incidents: those naming these PRs or commits, and those started in a window. */
export interface IncidentQuery {
  /**
   * Whose PRs `prs` are: a PR ref naming a repository matches only when it names this one (its
   * Loom name, or its GitHub owner/repo in any case); a bare number matches in every repository.
   */
  repository: IncidentRepository;
  prs: readonly number[];
  /** Full commit shas. */
  shas: readonly string[];
  /** Also incidents that started in this window (ISO 8601), linked or not. */
  started?: { from: string; to: string };
}

/** Incidents for a history answer, or why there are none: never an error (the history answers either way). */
export interface IncidentLookup {
  incidents: IncidentView[];
  /** Null when the incidents were read; else why not (plane off, no incidents mapping, source unreadable). */
  reason: string | null;
}

export interface TrackerIncidentsResponse {
  /** Newest start first. */
  incidents: IncidentView[];
  /** Pass as offset for the next page; null when this page is the last. */
  next_offset: number | null;
}

/** An incident as a history answer carries it: linked to that commit or its PR. */
export interface IncidentLinkView {
  id: string;
  title: string;
  severity: string | null;
  status: string | null;
  started_at: string | null;
  resolved_at: string | null;
  /** `caused`: the incident names this commit or PR as its cause; `fixed`: as its fix. */
  role: 'caused' | 'fixed';
  /** What matched: the commit's sha or its PR number. */
  via: 'commit' | 'pr';
}
