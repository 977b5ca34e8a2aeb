/** A hunk in a line walk: the part of a stored hunk row the walk reads. */
export interface WalkHunk {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
}

export type LineStep =
  /** The commit wrote the line; `origin` when the line did not exist before it. */
  | { kind: 'changed'; origin: boolean; oldLine: number | undefined }
  /** The commit left the line alone; it sat at `oldLine` before it. */
  | { kind: 'moved'; oldLine: number };

/**
 * Where line `line` of a file after a commit was before it, from the commit's hunks of that
 * file (git's -U0 line numbers). A line inside a hunk was written by the commit: before it, the
 * walk follows the hunk's old line at the same offset (its nearest ancestor text), unless the
 * hunk added lines only. A line outside every hunk moved by the net size of the hunks above it.
 */
export function stepBack(hunks: readonly WalkHunk[], line: number): LineStep {
  let shift = 0;
  for (const h of hunks) {
    if (h.new_lines > 0 && line >= h.new_start && line < h.new_start + h.new_lines) {
      if (h.old_lines === 0) return { kind: 'changed', origin: true, oldLine: undefined };
      return { kind: 'changed', origin: false, oldLine: h.old_start + Math.min(line - h.new_start, h.old_lines - 1) };
    }
    // A pure removal (+c,0) sits after new line c; other hunks end at new_start + new_lines - 1.
    const above = h.new_lines === 0 ? line > h.new_start : line >= h.new_start + h.new_lines;
    if (above) shift += h.new_lines - h.old_lines;
  }
  return { kind: 'moved', oldLine: line - shift };
}
