import type { ErasureExportResponse, ErasureResponse, ExportedTurn } from '@loom/contracts';
import { callOp } from './ingest';

type Target = { url: string; token: string; namespace: string };

/** erasure.request: a person's data (user_id) or whole namespaces, answered when done unless `wait` is false. */
export function requestErasure(target: Target, subject: { userId?: string | undefined; namespaces?: string[] | undefined; purge?: boolean; wait?: boolean }): Promise<ErasureResponse> {
  return callOp(target, 'erasure.request', {
    namespace: target.namespace,
    ...(subject.userId !== undefined ? { user_id: subject.userId } : {}),
    ...(subject.namespaces !== undefined ? { namespace_list: subject.namespaces } : {}),
    ...(subject.purge ? { purge: true } : {}),
    ...(subject.wait === false ? { wait: false } : {}),
  });
}

export function erasureStatus(target: Target, erasureId: string): Promise<ErasureResponse> {
  return callOp(target, 'erasure.status', { namespace: target.namespace, erasure_id: erasureId });
}

/**
 * Every page of erasure.export, in order: a person's turns across the caller's namespaces, or
 * the namespace's. `onPage` sees each page as it arrives, so a caller writes as it goes.
 */
export async function exportTurns(
  target: Target,
  options: { userId?: string | undefined; includeTombstoned?: boolean; pageSize?: number },
  onPage: (turns: ExportedTurn[]) => void | Promise<void>,
): Promise<{ turns: number; tombstoned: number; pages: number }> {
  const totals = { turns: 0, tombstoned: 0, pages: 0 };
  let cursor: string | null = null;
  do {
    const page: ErasureExportResponse = await callOp(target, 'erasure.export', {
      namespace: target.namespace,
      ...(options.userId !== undefined ? { user_id: options.userId } : {}),
      ...(options.includeTombstoned === false ? { include_tombstoned: false } : {}),
      limit: options.pageSize ?? 1_000,
      ...(cursor ? { cursor } : {}),
    });
    await onPage(page.turns);
    totals.turns += page.turns.length;
    totals.tombstoned += page.turns.filter((t) => t.deleted).length;
    totals.pages += 1;
    cursor = page.next_cursor;
  } while (cursor);
  return totals;
}
