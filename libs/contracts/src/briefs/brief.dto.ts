// @Type (nested validation) reads design-time metadata.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { AgentScopedRequest, IdField, NAMESPACE_PATTERN, Optional } from '../common.dto';
import type { ErrorCode, FieldError } from '../errors';
import { Limits } from '../limits';

/** Keys a client sends; a namespace-wide token may also name the stored `~user~…` form. */
export const BRIEF_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,159}$/;
/**
 * The stored form of a bounded token's key: `~<user>~<key>` or `~<user>~<session>~<key>`, each id
 * escaped (see principal-key.ts), so up to three times its 256 characters.
 */
export const STORED_BRIEF_KEY_PATTERN = /^(~[^~]{1,768}~([^~]{1,768}~)?)?[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,159}$/;

export const BriefEventKinds = ['user', 'assistant', 'edit', 'command', 'error', 'read', 'search', 'tool', 'note', 'summary'] as const;
export type BriefEventKind = (typeof BriefEventKinds)[number];

/** The sections of a brief: two state texts, and lists. */
export const BriefTextSections = ['goal', 'status'] as const;
export const BriefListSections = ['decisions', 'dead_ends', 'done', 'open_questions', 'next_steps', 'key_files', 'constraints', 'pointers'] as const;
export type BriefListSection = (typeof BriefListSections)[number];
/** Lists that build up across revisions; every other section is replaced by each revision. */
export const AccumulatingSections: readonly BriefListSection[] = ['decisions', 'dead_ends', 'done'];

export interface BriefSections {
  goal: string;
  status: string;
  decisions: string[];
  dead_ends: string[];
  done: string[];
  open_questions: string[];
  next_steps: string[];
  key_files: string[];
  constraints: string[];
  pointers: string[];
}

export class BriefEvent {
  @IsIn(BriefEventKinds, { message: `kind must be one of ${BriefEventKinds.join(', ')}` }) kind!: BriefEventKind;
  @IsString() @MaxLength(100_000) text!: string;
  /** A file the event touched (edit, read). */
  @Optional() @IsString() @MaxLength(1_024) path?: string;
}

export class BriefSectionsInput {
  @Optional() @IsString() @MaxLength(4_000) goal?: string;
  @Optional() @IsString() @MaxLength(4_000) status?: string;
  @Optional() @IsArray() @IsString({ each: true }) @ArrayMaxSize(200) decisions?: string[];
  @Optional() @IsArray() @IsString({ each: true }) @ArrayMaxSize(200) dead_ends?: string[];
  @Optional() @IsArray() @IsString({ each: true }) @ArrayMaxSize(200) done?: string[];
  @Optional() @IsArray() @IsString({ each: true }) @ArrayMaxSize(200) open_questions?: string[];
  @Optional() @IsArray() @IsString({ each: true }) @ArrayMaxSize(200) next_steps?: string[];
  @Optional() @IsArray() @IsString({ each: true }) @ArrayMaxSize(200) key_files?: string[];
  @Optional() @IsArray() @IsString({ each: true }) @ArrayMaxSize(200) constraints?: string[];
  @Optional() @IsArray() @IsString({ each: true }) @ArrayMaxSize(200) pointers?: string[];
}

/** Saves a session brief: sections written by the agent, or events condensed on the server (by the LLM, else the deterministic builder). */
export class BriefSaveRequest extends AgentScopedRequest {
  /** Empty: `auto/<project>/<branch>` when both are known, else `session/<session_id>`. */
  @Optional() @IsString() @MaxLength(700) brief_key?: string;
  @Optional() @IsString() @MaxLength(200) project?: string;
  @Optional() @IsString() @MaxLength(200) branch?: string;
  @Optional() @IdField() session_id?: string;
  /** What happened since the last save, condensed on the server. */
  @Optional() @IsArray() @ArrayMaxSize(4_000, { message: 'events holds at most 4,000 events per save' }) @ValidateNested({ each: true }) @Type(() => BriefEvent)
  events?: BriefEvent[];
  /** Sections the calling agent wrote itself. */
  @Optional() @IsObject() @ValidateNested() @Type(() => BriefSectionsInput) sections?: BriefSectionsInput;
  /** The client's position in its event stream: a save repeating the last (session, cursor) is a retry. */
  @Optional() @IsString() @MaxLength(200) event_cursor?: string;
  /** Compare-and-set: applied only when the brief is at this revision (0: it does not exist yet). */
  @Optional() @IsInt() @Min(0) @Max(Limits.maxUInt32) if_revision?: number;
  /** false: never call a model for the events. */
  @Optional() @IsBoolean() use_llm?: boolean;

  static readonly example: BriefSaveRequest = Object.assign(new BriefSaveRequest(), {
    project: 'billing',
    branch: 'ledger-move',
    session_id: 'sess-1',
    sections: Object.assign(new BriefSectionsInput(), { goal: 'Move invoices to the new ledger', next_steps: ['Update the export job'] }),
  });
}

export type BriefAuthor = 'llm' | 'deterministic' | 'model';

export interface BriefSaveResponse {
  brief_key: string;
  changed: boolean;
  revision: number;
  author?: BriefAuthor;
  /** `not-revised`: an events-only save with no model to call. */
  reason?: 'not-revised' | 'retry';
  /**
   * Event windows the model revised; those whose call failed, did not parse or was held because
   * the switch could not be read (skipped); and those not sent because the org's model calls
   * were switched off during the save.
   */
  windows?: { revised: number; failed: number; switched_off: number };
  /** Events, texts and items held back because they read as high (never sent, never stored); absent when none. */
  skipped_high?: number;
}

/** Reads a session brief by key, by session, or the project's latest; `revision` for an earlier one. */
export class BriefGetRequest extends AgentScopedRequest {
  @Optional() @IsString() @Matches(STORED_BRIEF_KEY_PATTERN, { message: 'brief_key is not a valid key' }) brief_key?: string;
  @Optional() @IdField() from_session?: string;
  @Optional() @IsString() @MaxLength(200) project?: string;
  @Optional() @IsInt() @Min(1) @Max(Limits.maxUInt32) revision?: number;
  /** Also the client's own last compaction summary, verbatim, below the brief. */
  @Optional() @IsBoolean() full?: boolean;

  static readonly example: BriefGetRequest = Object.assign(new BriefGetRequest(), { brief_key: 'auto/billing/ledger-move' });
}

export interface BriefView {
  brief_key: string;
  project: string | null;
  branch: string | null;
  revision: number;
  author: BriefAuthor;
  session_id: string | null;
  updated_at: string;
  sections: BriefSections;
  /** The brief as text, under about 12,000 characters. */
  rendered: string;
  /** With `full`: the client's last compaction summary, verbatim. */
  client_summary?: string | null;
}

export interface BriefGetResponse {
  brief: BriefView;
}

/** The namespace's briefs (or the caller's own), newest first, one line each. */
export class BriefListRequest extends AgentScopedRequest {
  @Optional() @IsBoolean() mine_only?: boolean;
  @Optional() @IsInt() @Min(1) @Max(200) limit?: number;

  static readonly example: BriefListRequest = Object.assign(new BriefListRequest(), { mine_only: true });
}

export interface BriefListItem {
  brief_key: string;
  project: string | null;
  branch: string | null;
  revision: number;
  updated_at: string;
  /** One line: the goal, else the status. */
  line: string;
}

export interface BriefListResponse {
  briefs: BriefListItem[];
}

/** Deletes a session brief. */
export class BriefDeleteRequest extends AgentScopedRequest {
  @IsString() @Matches(STORED_BRIEF_KEY_PATTERN, { message: 'brief_key is not a valid key' }) brief_key!: string;

  static readonly example: BriefDeleteRequest = Object.assign(new BriefDeleteRequest(), { brief_key: 'auto/billing/ledger-move' });
}

export interface BriefDeleteResponse {
  brief_key: string;
  deleted: boolean;
}

// ---- loom.brief.revise.v1 ------------------------------------------------------------------

/** Whose briefs a save may touch: every key of the namespace, or those under one principal's prefix. */
export class BriefScopeWire {
  @IsBoolean() bounded!: boolean;
  @Optional() @IsString() @MaxLength(2000) prefix?: string;
}

/**
 * `loom.brief.revise.v1`: one session.brief_save, from the gateway that took the op to a brief
 * condenser. The gateway has authenticated the caller, validated the op, resolved the writing
 * agent and the token's brief scope.
 */
export class BriefReviseRequest {
  @IsString() @Matches(NAMESPACE_PATTERN, { message: 'namespace is a namespace name' }) namespace!: string;
  @IsString() @MaxLength(200) agent!: string;
  @IsObject() @ValidateNested() @Type(() => BriefScopeWire) scope!: BriefScopeWire;
  @IsObject() request!: BriefSaveRequest;

  static readonly example: BriefReviseRequest = Object.assign(new BriefReviseRequest(), {
    namespace: 'acme',
    agent: 'default',
    scope: { bounded: false },
    request: { brief_key: 'loom/main', events: [{ kind: 'user', text: 'move invoices to the ledger' }] },
  });
}

/** The answer on `loom.brief.revise.v1`: the op's response, or the error the op would have answered. */
export type BriefReviseReply = { ok: true; response: BriefSaveResponse } | { ok: false; error: { code: ErrorCode; message: string; fields?: FieldError[] } };
