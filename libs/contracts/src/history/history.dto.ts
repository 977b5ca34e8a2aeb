import { IsBoolean, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { NamespacedRequest, Optional } from '../common.dto';

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
