/**
 * How many of the candidate rows, in page order, a page takes: as many as fit `budget` bytes
 * together, and always the first (a turn larger than the budget is still served, alone), so
 * every page makes progress.
 */
export function takeWithinBudget(sizes: readonly number[], budget: number): number {
  let total = 0;
  let taken = 0;
  for (const size of sizes) {
    if (taken > 0 && total + size > budget) break;
    total += size;
    taken++;
  }
  return taken;
}
