import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsoTime, NamespacedRequest, Optional } from '../common.dto';

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
  @Optional() @IsString() @MinLength(1) @MaxLength(256) @Matches(/^[^\s~^:?*[\\]+$/, { message: 'ref must be a branch, tag or commit name' }) ref?: string;
  /** Wait for the ingest to finish before answering (the CLI polls code.list instead). */
  @Optional() @IsBoolean() wait?: boolean;

  static readonly example: CodeAddRequest = Object.assign(new CodeAddRequest(), { path: '/src/clickhouse-js', name: 'clickhouse-js' });
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

export type RepositoryState = 'ingesting' | 'ready' | 'failed';

export interface RepositoryView {
  name: string;
  path: string;
  ref: string;
  state: RepositoryState;
  /** Why the last ingest failed; null otherwise. */
  error: string | null;
  commits_indexed: number;
  commits_total: number;
  head: string | null;
  updated_at: string;
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
  /** The runs that named its PR on completion (run.complete pull_requests), oldest first. */
  runs: string[];
}

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
}

export interface RankedChangeView extends CommitView {
  /** 0-1: higher is more likely. */
  score: number;
  /** Why it is here, in words: shared terms, files, symbols. */
  reasons: string[];
  files_in_common: string[];
  symbols_in_common: string[];
}

export interface HistoryDuplicateCheckResponse {
  repository: string;
  /** Best first. Each is a merged change (mainline commit), with its PR number when it names one. */
  candidates: RankedChangeView[];
}

export interface HistoryBisectResponse {
  repository: string;
  /** The commits ranked: after `from` (excluded) up to `to` (included). */
  range: { from: string | null; to: string; commits: number };
  /** Most likely first. */
  candidates: RankedChangeView[];
}

export interface ReviewFileView {
  path: string;
  change: 'added' | 'modified' | 'deleted' | 'renamed';
  additions: number;
  deletions: number;
}

export interface ReviewCommentView {
  author: string;
  path: string | null;
  body: string;
  /** Whether a later commit of the PR changed the commented lines; null when unknown. */
  resolved: boolean | null;
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
  /** From the GitHub source, when one was synced; else empty. */
  review_comments: ReviewCommentView[];
  /** Issues it names with Fixes/Closes/Resolves #N. */
  linked_issues: number[];
  /** `model` when the LLM provider condensed it, `builder` otherwise. */
  written_by: 'model' | 'builder';
  /** Paragraphs or comments that read as high: never sent to a model nor shown. */
  withheld: number;
  /** The runs that named this PR on completion (run.complete pull_requests), oldest first. */
  runs: string[];
}
