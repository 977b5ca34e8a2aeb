import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsString, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { AgentScopedRequest, IdField, IsoTime, Optional } from '../common.dto';

export const ObservationOutcomes = ['ok', 'error', 'unknown'] as const;
export type ObservationOutcome = (typeof ObservationOutcomes)[number];

/**
 * One tool action of a session, as an episodic observation: which tool, a one-line summary of
 * what it was asked to do (a command, a file, a query), and whether it failed. Never the tool's
 * output. `obs_id` is the client's id for the action (Claude Code's tool_use id): recording it
 * again changes nothing.
 */
export class ObservationInput {
  @IdField() obs_id!: string;
  @IsString() @MinLength(1) @MaxLength(100) tool!: string;
  @IsString() @MinLength(1) @MaxLength(1_000) summary!: string;
  /** The file the action touched, when it names one. */
  @Optional() @IsString() @MaxLength(1_024) path?: string;
  @Optional() @IsIn(ObservationOutcomes, { message: `outcome must be one of ${ObservationOutcomes.join(', ')}` }) outcome?: ObservationOutcome;
  @Optional() @IsoTime() ts?: string;
}

/** Records a session's tool observations (a command, a file read, an error); ones that read as high are skipped. */
export class ObserveRecordRequest extends AgentScopedRequest {
  @IdField() session_id!: string;
  @IsArray()
  @ArrayMinSize(1, { message: 'observations must hold at least one observation' })
  @ArrayMaxSize(2_000, { message: 'observations holds at most 2,000 per call' })
  @ValidateNested({ each: true })
  @Type(() => ObservationInput)
  observations!: ObservationInput[];
  @Optional() @IdField() user_id?: string;

  static readonly example: ObserveRecordRequest = Object.assign(new ObserveRecordRequest(), {
    session_id: 'sess-1',
    observations: [Object.assign(new ObservationInput(), { obs_id: 'toolu_1', tool: 'Bash', summary: 'Bash: npm test', outcome: 'error' })],
  });
}

export interface ObserveRecordResponse {
  session_id: string;
  /** Observations kept (one sent again counts here and is stored once). */
  recorded: number;
  /** Observations whose summary or path reads as high: never stored. */
  skipped_high: number;
}

/** A session's observations, newest first. */
export class ObserveListRequest extends AgentScopedRequest {
  @Optional() @IdField() session_id?: string;
  @Optional() @IdField() user_id?: string;
  /** Only actions that failed (`error`) or succeeded (`ok`). */
  @Optional() @IsIn(ObservationOutcomes, { message: `outcome must be one of ${ObservationOutcomes.join(', ')}` }) outcome?: ObservationOutcome;
  @Optional() @IsoTime() since?: string;
  @Optional() @IsInt() @Min(1) @Max(1_000) limit?: number;

  static readonly example: ObserveListRequest = Object.assign(new ObserveListRequest(), { session_id: 'sess-1', limit: 50 });
}

export interface ObservationView {
  session_id: string;
  obs_id: string;
  agent: string;
  user_id: string | null;
  tool: string;
  summary: string;
  path: string | null;
  outcome: ObservationOutcome;
  ts: string;
  /** When the observation went into a crystallization (memory extraction); null before. */
  crystallized_at: string | null;
}

export interface ObserveListResponse {
  observations: ObservationView[];
}

/** Turns a session's observations into facts. */
export class ObserveCrystallizeRequest extends AgentScopedRequest {
  @IdField() session_id!: string;
  @Optional() @IdField() user_id?: string;
  /** Answer at once and extract in the background (as memory.set_from_messages defer). */
  @Optional() @IsBoolean() defer?: boolean;

  static readonly example: ObserveCrystallizeRequest = Object.assign(new ObserveCrystallizeRequest(), { session_id: 'sess-1', defer: true });
}

export interface ObserveCrystallizeResponse {
  session_id: string;
  /** Observations handed to extraction (those not crystallized before). */
  observations: number;
  /** The memory extraction that reads them; null when there was nothing new. */
  extraction_id: string | null;
  deferred: boolean;
  facts?: number;
}
