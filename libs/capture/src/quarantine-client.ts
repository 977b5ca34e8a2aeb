import type { QuarantineDropResponse, QuarantineListResponse, QuarantineRetryResponse } from '@loom/contracts';
import { callOp } from './ingest';

type Target = { url: string; token: string };

/** quarantine.list: rows storage refused on their own, oldest first. */
export function listQuarantine(target: Target, options: { limit?: number; includeRows?: boolean } = {}): Promise<QuarantineListResponse> {
  return callOp(target, 'quarantine.list', { ...(options.limit !== undefined ? { limit: options.limit } : {}), ...(options.includeRows ? { include_rows: true } : {}) });
}

/** quarantine.retry: each row inserted again; stored ones leave the quarantine. */
export function retryQuarantine(target: Target, ids: string[]): Promise<QuarantineRetryResponse> {
  return callOp(target, 'quarantine.retry', { ids });
}

/** quarantine.drop: each row removed from the quarantine without being stored. */
export function dropQuarantine(target: Target, ids: string[]): Promise<QuarantineDropResponse> {
  return callOp(target, 'quarantine.drop', { ids });
}
