import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { IdField, NAMESPACE_PATTERN, NamespacedRequest } from '../common.dto';
import type { TurnRole } from '../conversations/conversation.dto';

/** Erase one person's data (user_id) in the caller's namespaces, or whole namespaces (namespace_list). */
export class ErasureRequest extends NamespacedRequest {
  @IsOptional() @IdField() user_id?: string;
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsString({ each: true }) @Matches(NAMESPACE_PATTERN, { each: true, message: 'namespace_list holds namespace names' })
  namespace_list?: string[];
  /** With namespace_list only: remove the rows from disk instead of tombstoning them. */
  @IsOptional() @IsBoolean() purge?: boolean;

  static readonly example: ErasureRequest = Object.assign(new ErasureRequest(), { user_id: 'u1' });
}

export interface ErasureResponse {
  erasure_id: string;
  subject: 'user' | 'namespace_list';
  namespaces: string[] | '*';
  /** Rows tombstoned (or removed, with purge) per kind. */
  /** `runs` counts run rows and their usage reports; only a purge removes them (runs carry no person's text). */
  erased: { turns: number; embeddings: number; threads: number; memories: number; evidence: number; briefs: number; runs: number; observations: number };
  purged: boolean;
}

export class ErasureExportRequest extends NamespacedRequest {
  /** One person's turns in the caller's namespaces; without it, every turn of the namespace. */
  @IsOptional() @IdField() user_id?: string;
  /** Tombstoned turns are included unless this is false. */
  @IsOptional() @IsBoolean() include_tombstoned?: boolean;
  @IsOptional() @IsInt() @Min(1) @Max(1_000) limit?: number;
  @IsOptional() @IsString() @MaxLength(2_048) cursor?: string;

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
