import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { IdField, NAMESPACE_PATTERN, NamespacedRequest, Optional } from '../common.dto';
import type { TurnRole } from '../conversations/conversation.dto';

/** Erase one person's data (user_id) in the caller's namespaces, or whole namespaces (namespace_list). */
export class ErasureRequest extends NamespacedRequest {
  @Optional() @IdField() user_id?: string;
  @Optional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsString({ each: true }) @Matches(NAMESPACE_PATTERN, { each: true, message: 'namespace_list holds namespace names' })
  namespace_list?: string[];
  /** With namespace_list only: remove the rows from disk instead of tombstoning them. */
  @Optional() @IsBoolean() purge?: boolean;
  /**
   * true (the default): answer when the erasure is done. false: answer `pending` once the
   * request is stored, and let `erasure.status` tell when it is done. Either way the request is
   * stored first, so a crash part-way does not lose it: any replica finishes it.
   */
  @Optional() @IsBoolean() wait?: boolean;

  static readonly example: ErasureRequest = Object.assign(new ErasureRequest(), { user_id: 'u1' });
}

/** Rows tombstoned (or removed, with purge) per kind. `runs` counts run rows and their usage reports; only a purge removes them (runs carry no person's text). */
export interface ErasedCounts {
  turns: number;
  embeddings: number;
  threads: number;
  memories: number;
  evidence: number;
  briefs: number;
  runs: number;
  observations: number;
}

export type ErasureStatus = 'pending' | 'done' | 'failed';

export interface ErasureResponse {
  erasure_id: string;
  /** `pending` until every row is erased (retried after a failure or a crash); `failed` after the last attempt. */
  status: ErasureStatus;
  subject: 'user' | 'namespace_list';
  namespaces: string[] | '*';
  /** The counts of the attempt that finished it; null until then. */
  erased: ErasedCounts | null;
  purged: boolean;
  attempts: number;
  /** The last attempt's error, '' when none. */
  last_error: string;
  created_at: string;
  updated_at: string;
}

/** Where an erasure request stands. */
export class ErasureStatusRequest extends NamespacedRequest {
  @IdField() erasure_id!: string;

  static readonly example: ErasureStatusRequest = Object.assign(new ErasureStatusRequest(), { erasure_id: 'era_1' });
}

/** Exports a person's (or the namespace's) transcript turns, a page at a time. */
export class ErasureExportRequest extends NamespacedRequest {
  /** One person's turns in the caller's namespaces; without it, every turn of the namespace. */
  @Optional() @IdField() user_id?: string;
  /** Tombstoned turns are included unless this is false. */
  @Optional() @IsBoolean() include_tombstoned?: boolean;
  @Optional() @IsInt() @Min(1) @Max(1_000) limit?: number;
  @Optional() @IsString() @MaxLength(2_048) cursor?: string;

  static readonly example: ErasureExportRequest = Object.assign(new ErasureExportRequest(), { user_id: 'u1' });
}

export interface ExportedTurn {
  namespace: string;
  thread_id: string;
  agent: string;
  msg_id: string;
  role: TurnRole;
  content: string;
  reasoning: string;
  user_id: string | null;
  run_id: string | null;
  ts: string;
  is_saved: boolean;
  deleted: boolean;
  deleted_at: string | null;
}

export interface ErasureExportResponse {
  /** Transcript turns only: embedding rows are never exported. */
  turns: ExportedTurn[];
  next_cursor: string | null;
}

/** The payload of `loom.erasure.requested.v1`: which stored request to look at. */
export class ErasureRequestedEvent {
  @IsString() @Matches(NAMESPACE_PATTERN, { message: 'namespace is a namespace name' }) namespace!: string;
  @IdField() erasure_id!: string;

  static readonly example: ErasureRequestedEvent = Object.assign(new ErasureRequestedEvent(), { namespace: 'acme', erasure_id: 'era_1' });
}
