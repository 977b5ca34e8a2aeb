/**
 * Figures a section wants in the results JSON next to its markdown. The section interface
 * returns markdown only; a section may also call `recordFigures` (optional), and the runner
 * puts what was recorded under the section's id.
 */
const recorded = new Map<string, unknown>();

export function recordFigures(sectionId: string, figures: unknown): void {
  recorded.set(sectionId, figures);
}

export function takeFigures(sectionId: string): unknown {
  const value = recorded.get(sectionId);
  recorded.delete(sectionId);
  return value;
}
