import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { NamespacedRequest, Optional } from '../common.dto';

/** A quarantined row's id: 32 hex characters (derived from its table and its row). */
const QUARANTINE_ID = /^[0-9a-f]{32}$/;

/**
 * Rows of the append path that storage refused on their own (poison rows), set aside so that
 * the rows written with them were stored. Deployment-wide: an every-namespace admin token.
 */
export class QuarantineListRequest extends NamespacedRequest {
  @Optional() @IsInt() @Min(1) @Max(1000) limit?: number;
  /** Include each row as JSON text (it holds the turn's text). */
  @Optional() @IsBoolean() include_rows?: boolean;

  static readonly example: QuarantineListRequest = Object.assign(new QuarantineListRequest(), { limit: 100 });
}

export class QuarantineIdsRequest extends NamespacedRequest {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsString({ each: true }) @Matches(QUARANTINE_ID, { each: true, message: 'ids are 32 hex characters, as quarantine.list shows them' })
  ids!: string[];
}

/** Insert each row again; one the engine takes is stored and leaves the quarantine. */
export class QuarantineRetryRequest extends QuarantineIdsRequest {
  static readonly example: QuarantineRetryRequest = Object.assign(new QuarantineRetryRequest(), { ids: ['0123456789abcdef0123456789abcdef'] });
}

/** Remove each row from the quarantine without storing it. */
export class QuarantineDropRequest extends QuarantineIdsRequest {
  static readonly example: QuarantineDropRequest = Object.assign(new QuarantineDropRequest(), { ids: ['0123456789abcdef0123456789abcdef'] });
}

export interface QuarantinedRow {
  id: string;
  /** The table the row was bound for. */
  table: string;
  /** The row's key columns as JSON (namespace, thread, agent, msg_id, version…), never its text. */
  key: string;
  /** What the engine answered the last time it refused the row. */
  error: string;
  attempts: number;
  quarantined_at: string;
  /** With include_rows: the row as JSON text. */
  row?: string;
}

export interface QuarantineListResponse {
  rows: QuarantinedRow[];
}

export interface QuarantineRetryResponse {
  results: Array<{ id: string; outcome: 'stored' } | { id: string; outcome: 'refused'; error: string } | { id: string; outcome: 'not_found' }>;
}

export interface QuarantineDropResponse {
  results: Array<{ id: string; outcome: 'dropped' | 'not_found' }>;
}
