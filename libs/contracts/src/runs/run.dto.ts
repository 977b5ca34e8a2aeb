import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { AgentScopedRequest, IdField } from '../common.dto';

export const RunStatuses = ['running', 'succeeded', 'failed', 'abandoned', 'idle_closed'] as const;
export type RunStatus = (typeof RunStatuses)[number];
/** What run.complete may set: every status but the two Loom sets itself. */
export const CompletedRunStatuses = ['succeeded', 'failed', 'abandoned'] as const;

export class RunBeginRequest extends AgentScopedRequest {
  @IsString() @MinLength(1) @MaxLength(4_000) goal!: string;
  /** The client's own id for the run; generated when absent. */
  @IsOptional() @IdField() run_id?: string;

  static readonly example: RunBeginRequest = Object.assign(new RunBeginRequest(), { goal: 'Move invoices to the new ledger' });
}

export class RunCompleteRequest extends AgentScopedRequest {
  @IdField() run_id!: string;
  @IsIn(CompletedRunStatuses, { message: `status must be one of ${CompletedRunStatuses.join(', ')}` }) status!: (typeof CompletedRunStatuses)[number];
  @IsOptional() @IsString() @MaxLength(8_000) outcome?: string;
  /** The memories the agent relied on (memory ids). */
  @IsOptional() @IsArray() @ArrayMaxSize(500) @IsString({ each: true }) memories_used?: string[];
  /** What the agent wrote: files, PRs, memories, briefs (free-form references). */
  @IsOptional() @IsArray() @ArrayMaxSize(500) @IsString({ each: true }) wrote?: string[];

  static readonly example: RunCompleteRequest = Object.assign(new RunCompleteRequest(), { run_id: 'run_1', status: 'succeeded', outcome: 'Export job moved', wrote: ['apps/billing/export.ts'] });
}

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
  /** `api` (run.begin) or `mcp` (an MCP session's implicit run). */
  source: 'api' | 'mcp';
  started_at: string;
  last_activity_at: string;
  ended_at: string | null;
}

export interface RunResponse {
  run: RunView;
}
