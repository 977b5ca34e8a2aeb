import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { AgentScopedRequest, HTTP_URL_PATTERN, IdField, IsoTime, Optional } from '../common.dto';

export const RunStatuses = ['running', 'succeeded', 'failed', 'abandoned', 'ended', 'idle_closed'] as const;
export type RunStatus = (typeof RunStatuses)[number];
/**
 * What run.complete may set: every status but the two Loom sets itself. `ended` is a session that
 * finished with no verdict (what a capture hook knows when the client's session ends).
 */
export const CompletedRunStatuses = ['succeeded', 'failed', 'abandoned', 'ended'] as const;
/** Where a run began: run.begin, an MCP session, or a capture hook's usage report. */
export const RunSources = ['api', 'mcp', 'capture'] as const;
export type RunSource = (typeof RunSources)[number];

/** Begins a run: a piece of work with a goal, which turns, memories and usage can be linked to. */
export class RunBeginRequest extends AgentScopedRequest {
  @IsString() @MinLength(1) @MaxLength(4_000) goal!: string;
  /** The client's own id for the run; generated when absent. */
  @Optional() @IdField() run_id?: string;

  static readonly example: RunBeginRequest = Object.assign(new RunBeginRequest(), { goal: 'Move invoices to the new ledger' });
}

/**
 * A pull request a run opened or wrote to. `repository` is the repository's name in Loom's code
 * index (`loom code add --name`), so history answers can link the PR back to the run; without
 * it the PR number matches in any repository of the namespace.
 */
export class RunPullRequest {
  @IsInt() @Min(1) @Max(2_147_483_647) number!: number;
  @Optional() @IsString() @Matches(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, { message: 'repository must be a repository name as code.add takes it (letters, digits, _ . -; up to 128)' }) repository?: string;
  @Optional() @IsString() @Matches(HTTP_URL_PATTERN, { message: 'url must be an http(s) URL without credentials (user:password@)' }) @MaxLength(2_000) url?: string;
}

/** Completes a run with its status and outcome. */
export class RunCompleteRequest extends AgentScopedRequest {
  @IdField() run_id!: string;
  @IsIn(CompletedRunStatuses, { message: `status must be one of ${CompletedRunStatuses.join(', ')}` }) status!: (typeof CompletedRunStatuses)[number];
  @Optional() @IsString() @MaxLength(8_000) outcome?: string;
  /** The memories the agent relied on (memory ids). */
  @Optional() @IsArray() @ArrayMaxSize(500) @IsString({ each: true }) memories_used?: string[];
  /** What the agent wrote: files, PRs, memories, briefs (free-form references). */
  @Optional() @IsArray() @ArrayMaxSize(500) @IsString({ each: true }) wrote?: string[];
  /** The pull requests the run opened or wrote to (history answers link them back to the run). */
  @Optional() @IsArray() @ArrayMaxSize(100) @ValidateNested({ each: true }) @Type(() => RunPullRequest) pull_requests?: RunPullRequest[];

  static readonly example: RunCompleteRequest = Object.assign(new RunCompleteRequest(), { run_id: 'run_1', status: 'succeeded', outcome: 'Export job moved', wrote: ['apps/billing/export.ts'] });
}

/** Reads a run, with its model cost. */
export class RunGetRequest extends AgentScopedRequest {
  @IdField() run_id!: string;

  static readonly example: RunGetRequest = Object.assign(new RunGetRequest(), { run_id: 'run_1' });
}

export interface RunView {
  run_id: string;
  agent: string;
  goal: string;
  status: RunStatus;
  outcome: string | null;
  memories_used: string[];
  wrote: string[];
  /** The pull requests it named on completion. */
  pull_requests: RunPullRequestView[];
  /** `api` (run.begin), `mcp` (an MCP session's implicit run) or `capture` (a capture hook's usage report). */
  source: RunSource;
  started_at: string;
  last_activity_at: string;
  ended_at: string | null;
  /** The model usage the client reported, priced; null when none was reported (reporting off). */
  model_cost: RunModelCost | null;
}

export interface RunPullRequestView {
  number: number;
  repository: string | null;
  url: string | null;
}

export interface RunResponse {
  run: RunView;
}

/** The largest token count one report may carry: far above any single model call. */
const MAX_TOKENS = 1_000_000_000;

/**
 * One model call's token usage, as a client reports it (the Claude Code plugin, from the
 * session transcript). `usage_id` is the client's id for the call: a report sent again replaces
 * the earlier one and is never counted twice.
 */
export class UsageReport {
  @IdField() usage_id!: string;
  @IsString() @MinLength(1) @MaxLength(200) model!: string;
  /** When the call was made (ISO 8601); the report's arrival when absent. */
  @Optional() @IsoTime() ts?: string;
  /** Input tokens read from neither cache. */
  @IsInt() @Min(0) @Max(MAX_TOKENS) input_tokens!: number;
  @IsInt() @Min(0) @Max(MAX_TOKENS) output_tokens!: number;
  /** Input tokens written to the 5-minute prompt cache. */
  @Optional() @IsInt() @Min(0) @Max(MAX_TOKENS) cache_write_tokens?: number;
  /** Input tokens written to the 1-hour prompt cache (priced higher). */
  @Optional() @IsInt() @Min(0) @Max(MAX_TOKENS) cache_write_1h_tokens?: number;
  @Optional() @IsInt() @Min(0) @Max(MAX_TOKENS) cache_read_tokens?: number;
}

/** Reports the model calls made for a run (each counted once by `usage_id`); they give the run its cost. */
export class RunReportUsageRequest extends AgentScopedRequest {
  @IdField() run_id!: string;
  @IsArray()
  @ArrayMinSize(1, { message: 'reports must hold at least one usage report' })
  @ArrayMaxSize(2_000, { message: 'reports holds at most 2,000 reports per call' })
  @ValidateNested({ each: true })
  @Type(() => UsageReport)
  reports!: UsageReport[];
  /** Begins the run (source `capture`) with this goal when it does not exist yet; without it an unknown run is a 404. */
  @Optional() @IsString() @MinLength(1) @MaxLength(4_000) goal?: string;

  static readonly example: RunReportUsageRequest = Object.assign(new RunReportUsageRequest(), {
    run_id: 'run_1',
    reports: [{ usage_id: 'msg_01', model: 'claude-sonnet-4-5', input_tokens: 12, output_tokens: 340, cache_write_tokens: 8_000, cache_read_tokens: 20_000 }],
  });
}

export interface RunReportUsageResponse {
  run_id: string;
  /** Reports taken in this call (a report sent again counts here, and once in the totals). */
  accepted: number;
  /** Whether this call began the run. */
  began: boolean;
  model_cost: RunModelCost;
}

/** The runs of an agent (`*`: all), newest first, with the page's model cost. */
export class RunListRequest extends AgentScopedRequest {
  @Optional() @IsIn(RunStatuses, { message: `status must be one of ${RunStatuses.join(', ')}` }) status?: RunStatus;
  /** Only runs begun at or after this instant (ISO 8601). */
  @Optional() @IsoTime() since?: string;
  /** Only runs that named this pull request (with `repository`: in that repository, or in none named). */
  @Optional() @IsInt() @Min(1) @Max(2_147_483_647) pull_request?: number;
  @Optional() @IsString() @MaxLength(128) repository?: string;
  @Optional() @IsInt() @Min(1) @Max(200) limit?: number;
  @Optional() @IsInt() @Min(0) @Max(100_000) offset?: number;

  static readonly example: RunListRequest = Object.assign(new RunListRequest(), { agent: '*', limit: 20 });
}

export interface RunListResponse {
  runs: RunView[];
  /** Summed over the listed runs. */
  model_cost: RunModelCost | null;
}

/** Token counts of one or more reports. */
export interface UsageTotals {
  reports: number;
  input_tokens: number;
  output_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  cache_read_tokens: number;
  /** In US dollars at the prices Loom had when each report arrived; null when no report could be priced. */
  cost_usd: number | null;
}

export interface RunModelCost extends UsageTotals {
  /** Models with no price: their tokens are counted and their cost is left out of cost_usd. */
  unpriced_models: string[];
  by_model: Array<UsageTotals & { model: string }>;
}
