// @Type (nested validation) reads design-time metadata.
import 'reflect-metadata';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { NamespacedRequest, IdField, IsoTime, NAMESPACE_PATTERN, Optional } from '../common.dto';
import { Limits } from '../limits';
import { TurnRoles, type TurnRole } from '../conversations/conversation.dto';

// The memory plane: durable facts, apart from the transcript. A recorded turn never becomes a
// memory on its own; facts come only from memory.set and memory.set_from_messages.

/** Stores one fact (never a text that reads as high). */
export class SetMemoryRequest extends NamespacedRequest {
  @IsString() @MinLength(1) @MaxLength(8_192) text!: string;
  @Optional() @IdField() user_id?: string;

  static readonly example: SetMemoryRequest = Object.assign(new SetMemoryRequest(), { text: 'Invoices live in ledger_v2.', user_id: 'u1' });
}
export interface SetMemoryResponse {
  memory_id: string | null;
  stored: boolean;
  /** `high_sensitivity`: a fact that reads as high is never stored. */
  reason?: 'high_sensitivity';
}

export class MessageInput {
  @IsIn(TurnRoles, { message: `role must be one of ${TurnRoles.join(', ')}` }) role!: TurnRole;
  @IsString() @MaxLength(Limits.maxContentBytes) content!: string;
}

/** Turns a conversation's messages into facts (kept as evidence); with `defer`, in the background. */
export class SetFromMessagesRequest extends NamespacedRequest {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(4_000) @ValidateNested({ each: true }) @Type(() => MessageInput) messages!: MessageInput[];
  @Optional() @IdField() user_id?: string;
  /** The client's session (a Claude Code session id): kept with the evidence. */
  @Optional() @IdField() session_id?: string;
  /** Answer at once and extract in the background (the plugins at session end). */
  @Optional() @IsBoolean() defer?: boolean;

  static readonly example: SetFromMessagesRequest = Object.assign(new SetFromMessagesRequest(), {
    messages: [Object.assign(new MessageInput(), { role: 'user', content: 'We moved invoices to ledger_v2.' })],
    user_id: 'u1',
    defer: true,
  });
}
export interface SetFromMessagesResponse {
  extraction_id: string;
  /** True when extraction runs in the background (defer). */
  deferred: boolean;
  /** Messages kept as evidence (high ones never are). */
  evidence: number;
  skipped_high: number;
  /** Facts extracted (absent while deferred); 0 with the fake LLM. */
  facts?: number;
}

/** Where a deferred extraction stands: pending, done or failed. */
export class ExtractionStatusRequest extends NamespacedRequest {
  @IdField() extraction_id!: string;

  static readonly example: ExtractionStatusRequest = Object.assign(new ExtractionStatusRequest(), { extraction_id: 'ext_1' });
}

export interface ExtractionStatusResponse {
  extraction_id: string;
  /** pending (waiting or retrying), done, or failed (every attempt failed; the evidence is kept). */
  status: 'pending' | 'done' | 'failed';
  /** Facts stored; null until done. */
  facts: number | null;
  attempts: number;
  /** What the last failed attempt said (the provider's error; never the messages). */
  last_error: string | null;
  /** When a pending extraction is next tried. */
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Searches facts by meaning. */
export class SearchMemoryRequest extends NamespacedRequest {
  @IsString() @MinLength(1) @MaxLength(Limits.maxQueryChars) query!: string;
  @Optional() @IdField() user_id?: string;
  @Optional() @IsInt() @Min(1) @Max(100) limit?: number;

  static readonly example: SearchMemoryRequest = Object.assign(new SearchMemoryRequest(), { query: 'where do invoices live' });
}
export interface MemoryHit {
  memory_id: string;
  text: string;
  user_id: string | null;
  source: string;
  score: number;
  created_at: string;
}
export interface SearchMemoryResponse {
  hits: MemoryHit[];
}

/** The evidence kept from conversations, by time and query. */
export class RecallRequest extends NamespacedRequest {
  /** Words to find (lexical, BM25); without it, the newest evidence in the window. */
  @Optional() @IsString() @MaxLength(Limits.maxQueryChars) query?: string;
  /** ISO 8601 bounds of the time window. */
  @Optional() @IsoTime() since?: string;
  @Optional() @IsoTime() until?: string;
  @Optional() @IdField() user_id?: string;
  @Optional() @IsInt() @Min(1) @Max(200) limit?: number;

  static readonly example: RecallRequest = Object.assign(new RecallRequest(), { query: 'ledger_v2' });
}
export interface RecallHit {
  extraction_id: string;
  session_id: string | null;
  user_id: string | null;
  role: TurnRole;
  ts: string;
  excerpt: string;
  score: number | null;
}
export interface RecallResponse {
  hits: RecallHit[];
}

/**
 * `loom.memory.extraction-requested.v1` (durable work): a deferred extraction a gateway stored,
 * for the brief condenser to run. The stored row (`memory_extractions`) is the record; this is
 * the delivery.
 */
export class MemoryExtractionRequestedEvent {
  @IsString() @Matches(NAMESPACE_PATTERN, { message: 'namespace is a namespace name' }) namespace!: string;
  @IdField() extraction_id!: string;

  static readonly example: MemoryExtractionRequestedEvent = Object.assign(new MemoryExtractionRequestedEvent(), { namespace: 'acme', extraction_id: 'ext_1' });
}
