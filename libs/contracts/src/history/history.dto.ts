import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { HTTP_URL_NO_QUERY_PATTERN, IsoTime, NamespacedRequest, Optional } from '../common.dto';
import type { IncidentLinkView } from '../tracker/tracker.dto';

/** A repository's name in Loom: what history ops name it by. */
const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const REPO_NAME_MESSAGE = 'repository must be 1-128 characters of letters, digits, _ . - (starting with a letter or digit)';
/** A commit sha or an unambiguous prefix of one (at least 4 hex digits). */
const SHA_PREFIX = /^[0-9a-fA-F]{4,64}$/;

export class CodeAddRequest extends NamespacedRequest {
  /** A clone on the machine that runs the gateway (a bare clone will do). */
  @IsString() @MinLength(1) @MaxLength(4_096) path!: string;
  /** Defaults to the last part of the path. */
  @Optional() @IsString() @Matches(REPO_NAME, { message: REPO_NAME_MESSAGE }) name?: string;
  /** The branch, tag or commit to index up to; HEAD when omitted. */
  @Optional() @IsString() @MinLength(1) @MaxLength(256) @Matches(/^(?!-)[^\s~^:?*[\\]+$/, { message: 'ref must be a branch, tag or commit name (not starting with -, which git would read as an option)' }) ref?: string;
  /** Wait for the ingest to finish before answering (the CLI polls code.list instead). */
  @Optional() @IsBoolean() wait?: boolean;

  static readonly example: CodeAddRequest = Object.assign(new CodeAddRequest(), { path: '/src/clickhouse-js', name: 'clickhouse-js' });
}

/** owner/name on GitHub (an owner is 1-39 letters, digits or -; a name 1-100 of letters, digits, _ . -). */
const GITHUB_REPO = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9_.-]{1,100}$/;

/**
 * `code.github_sync`: the GitHub source of a repository already added with `code.add`: its
 * merged (and open) pull requests, their reviews and review comments, and its issues, through
 * GitHub's REST API. Rerun it to take what is new, or to resume a paused sync.
 */
export class CodeGithubSyncRequest extends NamespacedRequest {
  /** The repository's name in Loom (as `code.add` named it). */
  @IsString() @Matches(REPO_NAME, { message: REPO_NAME_MESSAGE }) repository!: string;
  /** The repository on GitHub, `owner/name`. */
  @IsString() @Matches(GITHUB_REPO, { message: 'github must be owner/name of a GitHub repository, e.g. ClickHouse/clickhouse-js' }) github!: string;
  /**
   * A token that can read the repository (a fine-grained token needs read access to Pull
   * requests, Issues and Metadata). Held in the syncing gateway's memory while the sync runs and
   * never stored, logged or answered. Without it the gateway's LOOM_GITHUB_TOKEN is used (only
   * towards LOOM_GITHUB_API_URL), else none (public repositories, 60 requests an hour).
   */
  @Optional() @IsString() @MinLength(1) @MaxLength(1_024) @Matches(/^[\x21-\x7e]+$/, { message: 'token must be a GitHub token (printable characters, no spaces)' }) token?: string;
  /** GitHub Enterprise Server's API (`https://github.example.com/api/v3`); default LOOM_GITHUB_API_URL. Only LOOM_GITHUB_API_URL and the APIs in the gateway's LOOM_GITHUB_API_URLS are called: any other answers 400 naming api_url. */
  @Optional() @IsString() @MaxLength(2_048) @Matches(HTTP_URL_NO_QUERY_PATTERN, { message: 'api_url must be an http(s) URL without query or credentials (user:password@), e.g. https://api.github.com' }) api_url?: string;
  /** Wait for the sync to finish (or pause) before answering. */
  @Optional() @IsBoolean() wait?: boolean;

  static readonly example: CodeGithubSyncRequest = Object.assign(new CodeGithubSyncRequest(), { repository: 'clickhouse-js', github: 'ClickHouse/clickhouse-js' });
}

export class CodeListRequest extends NamespacedRequest {
  static readonly example: CodeListRequest = new CodeListRequest();
}

class RepositoryScoped extends NamespacedRequest {
  @IsString() @Matches(REPO_NAME, { message: REPO_NAME_MESSAGE }) repository!: string;
  @Optional() @IsInt() @Min(1) @Max(500) limit?: number;
}

export class HistoryPathRequest extends RepositoryScoped {
  /** A file (renames followed back) or a directory (its files' changes). */
  @IsString() @MinLength(1) @MaxLength(4_096) path!: string;

  static readonly example: HistoryPathRequest = Object.assign(new HistoryPathRequest(), { repository: 'clickhouse-js', path: 'packages/client-common/src/client.ts' });
}

export class HistorySymbolRequest extends RepositoryScoped {
  /** `query`, or qualified: `ClickHouseClient.query`. */
  @IsString() @MinLength(1) @MaxLength(512) symbol!: string;
  /** Only changes to files under this path. */
  @Optional() @IsString() @MinLength(1) @MaxLength(4_096) path?: string;

  static readonly example: HistorySymbolRequest = Object.assign(new HistorySymbolRequest(), { repository: 'clickhouse-js', symbol: 'ClickHouseClient.query' });
}

export class HistoryLineRequest extends RepositoryScoped {
  @IsString() @MinLength(1) @MaxLength(4_096) path!: string;
  /** 1-based, in the file as of `ref`. */
  @IsInt() @Min(1) @Max(10_000_000) line!: number;
  /** A commit of the indexed history (sha or prefix); the newest indexed commit when omitted. */
  @Optional() @IsString() @Matches(SHA_PREFIX, { message: 'ref must be a commit sha or a prefix of one (4-64 hex digits)' }) ref?: string;

  static readonly example: HistoryLineRequest = Object.assign(new HistoryLineRequest(), { repository: 'clickhouse-js', path: 'packages/client-common/src/client.ts', line: 120 });
}

export class HistoryDuplicateCheckRequest extends RepositoryScoped {
  /** At least one of title, description and diff. */
  @Optional() @IsString() @MaxLength(1_000) title?: string;
  @Optional() @IsString() @MaxLength(64_000) description?: string;
  /** A unified diff (`git diff` output) of the proposed change. */
  @Optional() @IsString() @MaxLength(2_000_000) diff?: string;
  /** Only changes older than this indexed commit (sha or prefix): "was this done before then?". */
  @Optional() @IsString() @Matches(SHA_PREFIX, { message: 'before must be a commit sha or a prefix of one (4-64 hex digits)' }) before?: string;

  static readonly example: HistoryDuplicateCheckRequest = Object.assign(new HistoryDuplicateCheckRequest(), { repository: 'clickhouse-js', title: 'chore(deps-dev): bump nanoid from 3.3.12 to 3.3.18' });
}

export class HistoryBisectRequest extends RepositoryScoped {
  /** The regression, as a person would report it. */
  @IsString() @MinLength(1) @MaxLength(16_000) description!: string;
  /** The last commit known good (excluded) and the first known bad (included), sha or prefix. */
  @Optional() @IsString() @Matches(SHA_PREFIX, { message: 'good must be a commit sha or a prefix of one (4-64 hex digits)' }) good?: string;
  @Optional() @IsString() @Matches(SHA_PREFIX, { message: 'bad must be a commit sha or a prefix of one (4-64 hex digits)' }) bad?: string;
  /** Or a time window of commit times. */
  @Optional() @IsoTime() since?: string;
  @Optional() @IsoTime() until?: string;
  /** Paths (files or directories) and symbols the caller suspects. */
  @Optional() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) @MaxLength(4_096, { each: true }) paths?: string[];
  @Optional() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) @MaxLength(512, { each: true }) symbols?: string[];

  static readonly example: HistoryBisectRequest = Object.assign(new HistoryBisectRequest(), { repository: 'clickhouse-js', description: 'socket hang up on keep-alive connections since last week', paths: ['packages/client-node/'] });
}

export class HistoryReviewBriefRequest extends RepositoryScoped {
  @IsInt() @Min(1) @Max(2_147_483_647) pr_number!: number;

  static readonly example: HistoryReviewBriefRequest = Object.assign(new HistoryReviewBriefRequest(), { repository: 'clickhouse-js', pr_number: 950 });
}

/**
 * `interrupted`: the stored state says `ingesting`, but no gateway holds the ingest's lease any
 * more (the one running it was killed, and nobody took it over): nothing runs until someone
 * resumes it with `resume`. Never stored; `code.list` works it out (ADR 0031).
 */
export type RepositoryState = 'ingesting' | 'ready' | 'failed' | 'interrupted';

export interface RepositoryView {
  name: string;
  path: string;
  ref: string;
  state: RepositoryState;
  /** Why the last ingest failed or was interrupted, and what to do; null otherwise. */
  error: string | null;
  /** The command that resumes a failed or interrupted ingest from its checkpoint; null otherwise. */
  resume: string | null;
  commits_indexed: number;
  commits_total: number;
  head: string | null;
  updated_at: string;
  /** Its GitHub source (`code.github_sync`), or null when it has none. */
  github: GithubSourceView | null;
}

/**
 * `paused`: a rate limit (until `resume_at`) or a refused token; `reason` says what to do.
 * `interrupted`: stored as `syncing` (or waiting out a rate limit), but no gateway holds the
 * sync's lease any more (the one running it was killed); never stored (ADR 0031).
 */
export type GithubSourceState = 'syncing' | 'ready' | 'paused' | 'failed' | 'interrupted';

export interface GithubSourceView {
  /** owner/name on GitHub. */
  github: string;
  api_url: string;
  state: GithubSourceState;
  /** Why it paused, failed or was interrupted, and what to do; null otherwise. */
  reason: string | null;
  /** The command that resumes a sync that is not running (paused, failed, interrupted); null otherwise. */
  resume: string | null;
  /** When a rate limit ends and the sync goes on by itself; null when it is not waiting. */
  resume_at: string | null;
  /** Which token the last sync used: the op's (`request`), LOOM_GITHUB_TOKEN (`config`) or none. Never the token. */
  token: 'request' | 'config' | 'none';
  pull_requests: number;
  review_comments: number;
  issues: number;
  /** API requests the last sync made. */
  requests: number;
  /** When a sync last finished. */
  synced_at: string | null;
  updated_at: string;
}

export interface CodeGithubSyncResponse {
  repository: string;
  source: GithubSourceView;
}

export interface CodeAddResponse {
  repository: RepositoryView;
}

export interface CodeListResponse {
  /** Whether LOOM_CODE_INGEST_ENABLED is on for this deployment. */
  enabled: boolean;
  repositories: RepositoryView[];
}

/** A mainline commit as history ops show it. */
export interface CommitView {
  sha: string;
  /** The pull request it landed (squash "(#N)" or "Merge pull request #N"), else null. */
  pr_number: number | null;
  subject: string;
  author: string;
  committed_at: string;
  /** The PR's title, from the GitHub source; null without one. */
  pr_title: string | null;
  /** The runs that named its PR on completion (run.complete pull_requests), oldest first. */
  runs: string[];
  /** Incidents of the tracker source that name this commit or its PR as their cause or fix (PRHIST-02), oldest start first. */
  incidents: IncidentLinkView[];
}

/**
 * Why a history answer carries no incidents: the tracker plane is off for the namespace, its
 * source maps no incidents table, or the source could not be read (the history still answers).
 * Null when the incidents were read.
 */
export type IncidentsReason = string | null;

export interface PathChangeView extends CommitView {
  path: string;
  /** Set when the commit renamed the file to `path`. */
  old_path: string | null;
  change: 'added' | 'modified' | 'deleted' | 'renamed';
  additions: number;
  deletions: number;
}

export interface HistoryPathResponse {
  repository: string;
  path: string;
  /** Newest first. */
  changes: PathChangeView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: IncidentsReason;
}

export interface SymbolChangeView extends CommitView {
  symbol: string;
  path: string;
  lines_added: number;
  lines_removed: number;
  /** `parser` (a grammar's definition) or `header` (git's hunk header, for files no grammar reads). */
  source: 'parser' | 'header';
}

export interface HistorySymbolResponse {
  repository: string;
  symbol: string;
  /** Newest first. */
  changes: SymbolChangeView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: IncidentsReason;
}

export interface LineChangeView extends CommitView {
  path: string;
  /** The line's number in the file after this commit. */
  line: number;
  /** True for the commit that first wrote the line. */
  origin: boolean;
}

export interface HistoryLineResponse {
  repository: string;
  path: string;
  line: number;
  /** The commit the line number refers to. */
  ref: string;
  /** The chain of commits that wrote this line, newest first, ending at its origin when indexed. */
  changes: LineChangeView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: IncidentsReason;
}

export interface RankedChangeView extends CommitView {
  /** `merged`: on the mainline (or a merged PR); `open`: an open PR from the GitHub source (sha is its head). */
  state: 'merged' | 'open';
  /** 0-1: higher is more likely. */
  score: number;
  /** Why it is here, in words: shared terms, files, symbols. */
  reasons: string[];
  files_in_common: string[];
  symbols_in_common: string[];
}

export interface HistoryDuplicateCheckResponse {
  repository: string;
  /** Best first: merged changes (mainline commits, with their PR when one is known) and, with a GitHub source, open PRs. */
  candidates: RankedChangeView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: IncidentsReason;
}

export interface HistoryBisectResponse {
  repository: string;
  /** The commits ranked: after `from` (excluded) up to `to` (included). */
  range: { from: string | null; to: string; commits: number };
  /** Most likely first. */
  candidates: RankedChangeView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: IncidentsReason;
}

export interface ReviewFileView {
  path: string;
  change: 'added' | 'modified' | 'deleted' | 'renamed';
  additions: number;
  deletions: number;
}

export interface ReviewCommentView {
  /** `review`: a review's verdict and summary; `comment`: a comment on lines of the diff. */
  kind: 'review' | 'comment';
  id: number;
  author: string;
  path: string | null;
  /** The commented line in the PR's last version; null for reviews and outdated comments. */
  line: number | null;
  body: string;
  /** A review's verdict: APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED; null for comments. */
  state: string | null;
  /** The comment this one answers (a thread's reply); null otherwise. */
  in_reply_to: number | null;
  created_at: string;
  /** Whether a later commit of the PR changed the commented lines; null when unknown. */
  resolved: boolean | null;
  /** How it ended, in words. */
  resolution: string;
}

export interface LinkedIssueView {
  number: number;
  /** Null when the issue is not in the GitHub source (or its title reads as high). */
  title: string | null;
  state: 'open' | 'closed' | null;
  /** completed, not_planned, duplicate, reopened; null when GitHub gives none. */
  state_reason: string | null;
  closed_at: string | null;
}

export interface HistoryReviewBriefResponse {
  repository: string;
  pr_number: number;
  sha: string;
  title: string;
  /** What the change did, in a few sentences. */
  what_changed: string;
  /** Why, from its description (or the model's reading of it). */
  why: string;
  files: ReviewFileView[];
  symbols: string[];
  /** From the GitHub source, when one was synced; else empty. Oldest first. */
  review_comments: ReviewCommentView[];
  /** Issues it names with Fixes/Closes/Resolves #N (commit message and PR description). */
  linked_issues: number[];
  /** Those issues as the GitHub source knows them (title, state, how they closed). */
  issues: LinkedIssueView[];
  /** `model` when the LLM provider condensed it, `builder` otherwise. */
  written_by: 'model' | 'builder';
  /** Paragraphs or comments that read as high: never sent to a model nor shown. */
  withheld: number;
  /** The runs that named this PR on completion (run.complete pull_requests), oldest first. */
  runs: string[];
  /** Incidents that name this PR or its commit as their cause or fix (PRHIST-02). */
  incidents: IncidentLinkView[];
  /** Why no incidents are attached; null when the tracker source's incidents were read. */
  incidents_reason: IncidentsReason;
}
