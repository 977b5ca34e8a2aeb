import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { AgentScopedRequest, IdField, NAMESPACE_PATTERN, NamespacedRequest, JsonObjectField, Optional } from '../common.dto';
import type { ErrorCode, FieldError } from '../errors';
import { Defaults, Limits } from '../limits';

export const TurnRoles = ['user', 'assistant', 'system', 'tool'] as const;
export type TurnRole = (typeof TurnRoles)[number];
/** The roles search can filter on: `system` matches compaction summaries, the only indexed system turns. */
export const SearchableRoles = ['user', 'assistant', 'system'] as const;
export type SearchableRole = (typeof SearchableRoles)[number];
export const SortOrders = ['asc', 'desc'] as const;
export type SortOrder = (typeof SortOrders)[number];
export const NamespaceScopes = ['all_mine', 'namespace'] as const;
export type NamespaceScope = (typeof NamespaceScopes)[number];

export type JsonObject = Record<string, unknown>;

// ---- conversation.append -------------------------------------------------------------------

/** Appends one turn to a thread. `msg_id` makes retries idempotent (without one it is derived from thread, role and content); a turn sent again answers `stored: false, reason: "duplicate"`. */
export class AppendTurnRequest extends AgentScopedRequest {
  @IdField() thread_id!: string;
  @IsIn(TurnRoles, { message: `role must be one of ${TurnRoles.join(', ')}` }) role!: TurnRole;
  /** Up to 1 MiB; larger content is refused with 413 before validation. */
  @IsString() content!: string;
  @Optional() @IdField() msg_id?: string;
  @Optional() @IsString() reasoning?: string;
  @Optional() @IdField() user_id?: string;
  @Optional() @IdField() run_id?: string;
  @Optional() @JsonObjectField() metadata?: JsonObject;
  /** Stored as UInt32. */
  @Optional() @IsInt() @Min(0) @Max(Limits.maxUInt32) tokens?: number;

  static readonly example: AppendTurnRequest = Object.assign(new AppendTurnRequest(), {
    namespace: 'acme',
    thread_id: 'thread-42',
    role: 'user',
    content: 'We moved invoices to the new ledger.',
    user_id: 'u1',
    run_id: 'run-7',
    metadata: { client: 'claude-code' },
    tokens: 12,
  });
}

export type AppendReason = 'logging_disabled' | 'duplicate' | 'deleted';
export interface AppendTurnResponse {
  stored: boolean;
  reason?: AppendReason;
  thread_id: string;
  msg_id: string;
}

// ---- conversation.create / update ----------------------------------------------------------

/** Creates a thread (its id generated when omitted), with a title and metadata; 409 when it exists. */
export class CreateThreadRequest extends AgentScopedRequest {
  /** Generated when omitted. */
  @Optional() @IdField() thread_id?: string;
  @Optional() @IsString() @MaxLength(500) title?: string;
  @Optional() @JsonObjectField() metadata?: JsonObject;
  @Optional() @IdField() run_id?: string;

  static readonly example: CreateThreadRequest = Object.assign(new CreateThreadRequest(), {
    thread_id: 'thread-42',
    title: 'Ledger migration',
    run_id: 'run-7',
  });
}
export interface CreateThreadResponse {
  created: boolean;
  reason?: 'logging_disabled';
  thread_id: string;
}

/** Changes a thread's title, metadata or run; answers the thread. */
export class UpdateThreadRequest extends AgentScopedRequest {
  @IdField() thread_id!: string;
  @Optional() @IsString() @MaxLength(500) title?: string;
  /** Replaces the thread's metadata as a whole (and with it any `title_refused` mark). */
  @Optional() @JsonObjectField() metadata?: JsonObject;
  @Optional() @IsString() @MaxLength(Limits.maxIdLength) run_id?: string;

  static readonly example: UpdateThreadRequest = Object.assign(new UpdateThreadRequest(), {
    thread_id: 'thread-42',
    title: 'Ledger migration, phase 2',
  });
}

// ---- conversation.get / list / threads -----------------------------------------------------

/** Reads a thread, and with `include_messages` a page of its turns (follow `next_cursor`). */
export class GetThreadRequest extends AgentScopedRequest {
  @IdField() thread_id!: string;
  @Optional() @IsBoolean() include_messages?: boolean;
  @Optional() @IsIn(SortOrders) order?: SortOrder;
  @Optional() @IsInt() @Min(1) @Max(Limits.maxPageSize) limit?: number;
  @Optional() @IsString() @MaxLength(1024) cursor?: string;

  static readonly example: GetThreadRequest = Object.assign(new GetThreadRequest(), {
    thread_id: 'thread-42',
    include_messages: true,
    order: 'desc',
    limit: 20,
  });
}

/** A page of a thread's turns, oldest first unless `order` is `desc`; follow `next_cursor` for the rest. */
export class ListTurnsRequest extends AgentScopedRequest {
  @IdField() thread_id!: string;
  @Optional() @IdField() run_id?: string;
  @Optional() @IsIn(SortOrders) order?: SortOrder;
  @Optional() @IsInt() @Min(1) @Max(Limits.maxPageSize) limit?: number;
  @Optional() @IsString() @MaxLength(1024) cursor?: string;

  static readonly example: ListTurnsRequest = Object.assign(new ListTurnsRequest(), {
    thread_id: 'thread-42',
    run_id: 'run-7',
    limit: 50,
  });
}

/** The threads active in the last `window_days`, most recent first, each with its last turn's excerpt. */
export class ListThreadsRequest extends AgentScopedRequest {
  @Optional() @IsInt() @Min(1) @Max(3650) window_days?: number;
  @Optional() @IsInt() @Min(1) @Max(Limits.maxPageSize) limit?: number;
  @Optional() @IsInt() @Min(0) @Max(Limits.maxThreadsOffset) offset?: number;

  static readonly example: ListThreadsRequest = Object.assign(new ListThreadsRequest(), {
    window_days: Defaults.threadsWindowDays,
    limit: 20,
    offset: 0,
    agent: '*',
  });
}

export interface TurnView {
  thread_id: string;
  msg_id: string;
  agent: string;
  role: TurnRole;
  content: string;
  reasoning: string;
  user_id: string | null;
  run_id: string | null;
  metadata: JsonObject;
  tokens: number | null;
  ts: string;
  is_saved: boolean;
  saved_at: string | null;
}

export interface ThreadView {
  namespace: string;
  thread_id: string;
  title: string | null;
  metadata: JsonObject;
  run_id: string | null;
  created_at: string | null;
  last_activity_at: string | null;
  turn_count: number;
}

export interface GetThreadResponse {
  thread: ThreadView;
  messages?: TurnView[];
  next_cursor?: string | null;
}

export interface ListTurnsResponse {
  messages: TurnView[];
  next_cursor: string | null;
}

export interface ThreadSummaryView {
  thread_id: string;
  agents: string[];
  title: string;
  excerpt: string;
  last_role: TurnRole | null;
  last_activity_at: string;
  turn_count: number;
  run_id: string | null;
  metadata: JsonObject;
}
export interface ListThreadsResponse {
  threads: ThreadSummaryView[];
}

// ---- conversation.compact ------------------------------------------------------------------

/** Has the configured LLM summarise the oldest turns of the calling agent's thread into one `system` turn, keeping the last `keep_recent` turns. */
export class CompactThreadRequest extends AgentScopedRequest {
  @IdField() thread_id!: string;
  /** The newest turns never summarised (default 10). */
  @Optional() @IsInt() @Min(0) @Max(10_000) keep_recent?: number;
  /** Fewer new turns than this in the window: nothing is done (default 4). */
  @Optional() @IsInt() @Min(1) @Max(10_000) min_to_compact?: number;

  static readonly example: CompactThreadRequest = Object.assign(new CompactThreadRequest(), {
    thread_id: 'thread-42',
    keep_recent: 10,
  });
}

/** Why a compaction compacted nothing (spec strings: hyphens, unlike save_message's reasons). */
export const CompactReasons = ['embed-failed', 'summary-high-sensitivity', 'nothing-to-compact'] as const;
export type CompactReason = (typeof CompactReasons)[number];

export interface CompactThreadResponse {
  thread_id: string;
  compacted: boolean;
  /** Turns the summary replaced, earlier summaries not counted. */
  messages_summarized: number;
  /** The new summary turn (a `system` turn with `metadata.compacted_from`). */
  summary_msg_id?: string;
  reason?: CompactReason;
}

/**
 * `loom.compact.run.v1`: one conversation.compact, from the gateway that took the op to a
 * compactor. The gateway has already authenticated the caller and resolved the writing agent.
 */
export class CompactRunRequest {
  @IsString() @Matches(NAMESPACE_PATTERN, { message: 'namespace is a namespace name' }) namespace!: string;
  @IsString() @MaxLength(200) agent!: string;
  @IsObject() request!: CompactThreadRequest;

  static readonly example: CompactRunRequest = Object.assign(new CompactRunRequest(), { namespace: 'acme', agent: 'default', request: { thread_id: 'thread-42', keep_recent: 10 } });
}

/** The answer on `loom.compact.run.v1`: the op's response, or the error the op would have answered. */
export type CompactRunReply = { ok: true; response: CompactThreadResponse } | { ok: false; error: { code: ErrorCode; message: string; fields?: FieldError[] } };

// ---- conversation.delete -------------------------------------------------------------------

/** Deletes the calling agent's turns of a thread (tombstoned, gone from search); `confirm_thread_id` must repeat `thread_id`. */
export class DeleteThreadRequest extends AgentScopedRequest {
  @IdField() thread_id!: string;
  /** Must equal `thread_id`: a delete names its thread twice. */
  @IdField() confirm_thread_id!: string;

  static readonly example: DeleteThreadRequest = Object.assign(new DeleteThreadRequest(), {
    thread_id: 'thread-42',
    confirm_thread_id: 'thread-42',
  });
}

export interface DeleteThreadResponse {
  thread_id: string;
  deleted: boolean;
  /** The calling agent's turns tombstoned. */
  turns_deleted: number;
  /** Shared embedding rows handed to another agent's live copy instead of tombstoned. */
  embeddings_kept: number;
}

// ---- conversation.search -------------------------------------------------------------------

/**
 * `hybrid` fuses the vector and BM25 legs by their scaled scores (and gives the turns next to the
 * best hits a share); `vector` is cosine ranking alone
 * (with the substring fallback); `lexical` is BM25 alone. The default is the live setting
 * `conversation_search_default_mode`.
 */
export const SearchModes = ['hybrid', 'vector', 'lexical'] as const;
export type SearchMode = (typeof SearchModes)[number];

/** Searches turns by meaning and by words (`hybrid`, the default), or one of them (`vector`, `lexical`), over every namespace the token can read unless `namespace_scope` is `namespace`. */
export class SearchTurnsRequest extends AgentScopedRequest {
  @IsString() @MinLength(1) @MaxLength(Limits.maxQueryChars, { message: `query must be at most ${Limits.maxQueryChars} characters` }) query!: string;
  // The value is quoted back only when it reads as a mode name ("fuzzy"): a refusal never sends back a pasted secret or 4,000 characters.
  @Optional() @IsIn(SearchModes, { message: (args) => `search_mode ${typeof args.value === 'string' && /^[A-Za-z][A-Za-z_-]{0,31}$/.test(args.value) ? `${JSON.stringify(args.value)} ` : ''}is not one of ${SearchModes.join(', ')}` })
  search_mode?: SearchMode;
  /** The BM25 leg's share in hybrid mode, 0-1 (default 0.8); 0 ranks by the vector leg alone, 1 by BM25 alone. */
  @Optional() @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'lexical_weight must be a number from 0 to 1' })
  @Min(0, { message: 'lexical_weight must be from 0 to 1' })
  @Max(1, { message: 'lexical_weight must be from 0 to 1' })
  lexical_weight?: number;
  @Optional() @IdField() thread_id?: string;
  @Optional() @IdField() run_id?: string;
  @Optional() @IsIn(SearchableRoles, { message: `role must be one of ${SearchableRoles.join(', ')}` })
  role?: SearchableRole;
  @Optional() @IsInt() @Min(1) @Max(100) limit?: number;
  /** `all_mine` (default) spans every namespace the token can read; `namespace` only the one named. */
  @Optional() @IsIn(NamespaceScopes) namespace_scope?: NamespaceScope;

  static readonly example: SearchTurnsRequest = Object.assign(new SearchTurnsRequest(), {
    query: 'which ledger do invoices use',
    thread_id: 'thread-42',
    role: 'user',
    limit: 5,
  });
}

export interface SearchHit {
  namespace: string;
  thread_id: string;
  msg_id: string;
  agent: string;
  role: TurnRole;
  run_id: string | null;
  user_id: string | null;
  ts: string;
  /**
   * Cosine similarity in vector mode, BM25 in lexical mode, the reciprocal-rank-fused score in
   * hybrid mode; null in the substring fallback.
   */
  score: number | null;
  /** The first characters of the turn, or (a hit found by its words) the text around the first matched term. */
  excerpt: string;
}
export interface SearchTurnsResponse {
  hits: SearchHit[];
  /**
   * What ran: `hybrid`, `vector` or `lexical` as asked; `lexical` for a hybrid search the
   * embedder could not serve; `substring` for a vector search it could not serve.
   */
  mode: SearchMode | 'substring';
}

// ---- conversation.set_logging --------------------------------------------------------------

/** Switches the namespace's recording of conversations on or off (the owner's switch). Off: appends are accepted and answer `stored: false, reason: "logging_disabled"`. */
export class SetLoggingRequest extends NamespacedRequest {
  @IsBoolean() enabled!: boolean;

  static readonly example: SetLoggingRequest = Object.assign(new SetLoggingRequest(), {
    namespace: 'acme',
    enabled: true,
  });
}
/** The recording switch as it stands (the dashboard's "Record conversations" switch reads it). */
export class GetLoggingRequest extends NamespacedRequest {
  static readonly example: GetLoggingRequest = Object.assign(new GetLoggingRequest(), { namespace: 'acme' });
}

export interface SetLoggingResponse {
  namespace: string;
  conversation_logging_enabled: boolean;
}
