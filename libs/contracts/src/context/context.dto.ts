import 'reflect-metadata';
import { IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { AgentScopedRequest, IdField, Optional } from '../common.dto';
import { Limits } from '../limits';
import type { SearchHit } from '../conversations/conversation.dto';
import type { MemoryHit, RecallHit } from '../memory/memory.dto';
import type { ObservationView } from '../observe/observe.dto';

/**
 * context.pack: what Loom knows that bears on `query`, for one (user, session) scope, as hits and
 * as one text a model can take as context. What a Session's resume reads.
 */
export class ContextPackRequest extends AgentScopedRequest {
  @IsString() @MinLength(1) @MaxLength(Limits.maxQueryChars) query!: string;
  /** Only this user's facts and evidence. */
  @Optional() @IdField() user_id?: string;
  /** The session: its thread's turns are searched too (the conversation section needs it). */
  @Optional() @IdField() session_id?: string;
  /** Hits per section (default 8). */
  @Optional() @IsInt() @Min(1) @Max(50) limit?: number;
  /** Most characters of `pack` (default 8,000). */
  @Optional() @IsInt() @Min(500) @Max(100_000) max_chars?: number;

  static readonly example: ContextPackRequest = Object.assign(new ContextPackRequest(), { query: 'resume the billing migration', user_id: 'u1', session_id: 'thread-42' });
}

export interface ContextPackResponse {
  query: string;
  scope: { user_id: string | null; session_id: string | null };
  /** Facts (memory.search), best first. */
  memories: MemoryHit[];
  /** The session's own turns (conversation.search in its thread); empty without session_id. */
  conversation: SearchHit[];
  /** Turns extractions read (memory.recall by words). */
  evidence: RecallHit[];
  /** The session's latest tool actions (observe.list), oldest first; empty without session_id. */
  actions: ObservationView[];
  /** The sections as one text, cut at a line to `max_chars`. */
  pack: string;
  truncated: boolean;
  /** Sections left empty because a dependency was down (e.g. `memories` without the embedder). */
  unavailable: string[];
}
