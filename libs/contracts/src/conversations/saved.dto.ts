import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsNumber, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { AgentScopedRequest, IdField, Optional } from '../common.dto';
import { Limits } from '../limits';
import { TurnRoles, type TurnRole } from './conversation.dto';

/** The saved-message ops act for one user: the body's `user_id`, or the user a token is pinned to. */
class UserScopedRequest extends AgentScopedRequest {
  /** Required unless the token is pinned to one user (`--read-user-id`), which it then must equal. */
  @Optional() @IdField() user_id?: string;
}

// ---- conversation.save_message ----------------------------------------------------------

/** Saves a message for a user (indexed for saved-message search), storing it first when it is not yet in the transcript. */
export class SaveMessageRequest extends UserScopedRequest {
  /** The thread the message belongs to. */
  @IdField() conversation_id!: string;
  /** The message's `msg_id` in that thread. */
  @IdField() message_id!: string;
  /** For a message the transcript does not hold yet: its role and text. */
  @Optional() @IsIn(TurnRoles, { message: `role must be one of ${TurnRoles.join(', ')}` }) role?: TurnRole;
  /** Up to 1 MiB, like an append. */
  @Optional() @IsString() content?: string;
  @Optional() @IdField() run_id?: string;

  static readonly example: SaveMessageRequest = Object.assign(new SaveMessageRequest(), {
    user_id: 'u1',
    conversation_id: 'thread-42',
    message_id: 'a-7',
    role: 'assistant',
    content: 'Run the PROJ-1234 backfill against ledger_v2 after the export.',
  });
}

/** Why a save did not index the message (underscores, unlike compaction's reasons). */
export const SaveReasons = ['owner_mismatch', 'deleted', 'unsupported_role', 'high_sensitivity', 'embed_failed'] as const;
export type SaveReason = (typeof SaveReasons)[number];

export interface SaveMessageResponse {
  /** True when the message is saved and has its vector. */
  indexed: boolean;
  reason?: SaveReason;
  /** True when the message is stored and flagged saved (also with `embed_failed`). */
  saved: boolean;
  conversation_id: string;
  message_id: string;
  /** When the user saved it (ISO 8601). */
  saved_at?: string;
}

// ---- conversation.unsave_message --------------------------------------------------------

/** Removes a message from a user's saved messages; doing it again changes nothing. */
export class UnsaveMessageRequest extends UserScopedRequest {
  @IdField() conversation_id!: string;
  @IdField() message_id!: string;

  static readonly example: UnsaveMessageRequest = Object.assign(new UnsaveMessageRequest(), {
    user_id: 'u1',
    conversation_id: 'thread-42',
    message_id: 'a-7',
  });
}

export interface UnsaveMessageResponse {
  /** False when this user has no saved message by that id (never saved, or another user's). */
  found: boolean;
  /** True when the namespace does not record, so the message left the transcript too. */
  removed?: boolean;
  conversation_id: string;
  message_id: string;
}

// ---- conversation.search_saved_messages -------------------------------------------------

export const SavedSearchModes = ['hybrid', 'semantic', 'lexical'] as const;
export type SavedSearchMode = (typeof SavedSearchModes)[number];

/** Searches a user's saved messages by meaning and by words. */
export class SearchSavedMessagesRequest extends UserScopedRequest {
  @IsString() @MinLength(1) @MaxLength(Limits.maxQueryChars) query!: string;
  @Optional() @IsIn(SavedSearchModes, { message: `search_mode must be one of ${SavedSearchModes.join(', ')}` }) search_mode?: SavedSearchMode;
  /** The BM25 leg's share in hybrid mode, 0-1 (default 0.5). */
  @Optional() @IsNumber() @Min(0) @Max(1) lexical_weight?: number;
  @Optional() @IdField() conversation_id?: string;
  @Optional() @IsInt() @Min(1) @Max(100) limit?: number;

  static readonly example: SearchSavedMessagesRequest = Object.assign(new SearchSavedMessagesRequest(), {
    user_id: 'u1',
    query: 'PROJ-1234 backfill',
    search_mode: 'hybrid',
  });
}

/** A hit is a listed saved message with its score and the legs that found it. */
export interface SavedMessageHit extends SavedMessageItem {
  /** Reciprocal-rank-fused score in hybrid mode; cosine in semantic; BM25 in lexical. */
  score: number;
  /** Which legs found it. */
  matched: Array<'semantic' | 'lexical'>;
}

export interface SearchSavedMessagesResponse {
  hits: SavedMessageHit[];
  /** The mode that answered: `lexical` when the embedder was unavailable for a hybrid or semantic call. */
  mode: SavedSearchMode;
}

// ---- conversation.list_saved_messages ---------------------------------------------------

/** A user's saved messages, newest saved first. */
export class ListSavedMessagesRequest extends UserScopedRequest {
  @Optional() @IdField() conversation_id?: string;
  /** Default 50, at most 200. */
  @Optional() @IsInt() @Min(1) @Max(Limits.maxPageSize) limit?: number;
  @Optional() @IsString() @MaxLength(1024) cursor?: string;

  static readonly example: ListSavedMessagesRequest = Object.assign(new ListSavedMessagesRequest(), { user_id: 'u1', limit: 20 });
}

export interface SavedMessageItem {
  conversation_id: string;
  message_id: string;
  agent: string;
  role: TurnRole;
  /** When the user saved it (the message time for rows an earlier build saved without one). */
  ts: string;
  /** The message's own time in the transcript. */
  message_ts: string;
  excerpt: string;
}

export interface ListSavedMessagesResponse {
  messages: SavedMessageItem[];
  next_cursor: string | null;
}

// ---- conversation.saved_status ----------------------------------------------------------

/** Which of up to 500 messages of a conversation a user has saved. */
export class SavedStatusRequest extends UserScopedRequest {
  @IdField() conversation_id!: string;
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(500, { message: 'message_ids holds at most 500 ids' }) @IsString({ each: true }) @MinLength(1, { each: true }) @MaxLength(Limits.maxIdLength, { each: true })
  message_ids!: string[];

  static readonly example: SavedStatusRequest = Object.assign(new SavedStatusRequest(), {
    user_id: 'u1',
    conversation_id: 'thread-42',
    message_ids: ['u-1', 'a-7'],
  });
}

export interface SavedStatusResponse {
  conversation_id: string;
  /** Every requested id: true when this user has it saved. */
  saved: Record<string, boolean>;
}
