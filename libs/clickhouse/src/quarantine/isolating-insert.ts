import { classifyInsertFailure } from './insert-failures';

export interface RefusedRow {
  row: object;
  error: unknown;
}

/** What an isolating insert did: every row is stored or refused, unless the engine went down part-way. */
export type IsolatedInsert =
  | { done: true; stored: number; refused: RefusedRow[] }
  /** `remaining`: the rows neither stored nor refused, in order; retry those (and only those). */
  | { done: false; stored: number; refused: RefusedRow[]; remaining: object[]; error: unknown };

/**
 * Inserts `rows`; when the engine refuses them, bisects: each half is tried on its own, down to
 * single rows, so every row the engine would take is stored and each row it refuses alone is
 * returned with the engine's error. One poison row in a batch of n costs about 2·log2(n) extra
 * inserts. The halves are tried in order, so the rows handled so far are always a prefix: when
 * the engine goes down part-way, the rest is returned untouched for a later retry and no row is
 * written twice.
 *
 * `beforeBisect` lets the caller drop rows a refused insert stored anyway (an engine may write
 * some blocks of a large insert before it meets the bad row).
 */
export async function insertIsolating(
  insert: (rows: object[]) => Promise<void>,
  rows: readonly object[],
  beforeBisect?: (rows: object[]) => Promise<object[]>,
): Promise<IsolatedInsert> {
  const refused: RefusedRow[] = [];
  let stored = 0;
  let down: { at: object[]; error: unknown } | undefined;

  const attempt = async (slice: object[], remainingAfter: object[]): Promise<void> => {
    try {
      await insert(slice);
      stored += slice.length;
      return;
    } catch (error) {
      if (classifyInsertFailure(error) === 'engine_down') {
        down = { at: slice.concat(remainingAfter), error };
        return;
      }
      if (slice.length === 1) {
        refused.push({ row: slice[0]!, error });
        return;
      }
      let left = slice;
      try {
        if (beforeBisect) left = await beforeBisect(slice);
      } catch (checkError) {
        if (classifyInsertFailure(checkError) === 'engine_down') {
          down = { at: slice.concat(remainingAfter), error: checkError };
          return;
        }
        // The check itself could not run on these rows: bisect them all.
      }
      stored += slice.length - left.length;
      if (left.length === 0) return;
      const mid = Math.ceil(left.length / 2);
      const second = left.slice(mid);
      await attempt(left.slice(0, mid), second.concat(remainingAfter));
      if (down) return;
      await attempt(second, remainingAfter);
    }
  };

  await attempt([...rows], []);
  if (down) return { done: false, stored, refused, remaining: down.at, error: down.error };
  return { done: true, stored, refused };
}
