/** One hunk of a change, in the line numbers of the file before and after (git's -U0 header). */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The text after the second @@: git's guess at the enclosing function, the fallback symbol. */
  header: string;
}

export type ChangeKind = 'added' | 'modified' | 'deleted' | 'renamed';

export interface FileChange {
  path: string;
  /** The path before a rename; equal to `path` otherwise. */
  oldPath: string;
  change: ChangeKind;
  additions: number;
  deletions: number;
  binary: boolean;
  hunks: Hunk[];
  /** The added and removed lines' text (the first MAX_KEPT_LINES, each cut at 200 characters): what the change is about, for terms. */
  lines: string[];
}

/** Changed lines kept per file for terms; a bulk change says what it is about in its first lines. */
export const MAX_KEPT_LINES = 400;

/** A mainline commit as git's log gives it (a merge's change is its diff against the first parent). */
export interface Commit {
  sha: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  /** Seconds since the epoch. */
  authoredAt: number;
  committedAt: number;
  subject: string;
  body: string;
  files: FileChange[];
}

/**
 * The pull request a mainline commit landed, from the two shapes GitHub writes: a squash merge's
 * subject ends with "(#N)", a merge commit's starts "Merge pull request #N from". 0 when neither.
 */
export function pullRequestOf(subject: string): number {
  const merge = /^Merge pull request #(\d+) from /.exec(subject);
  if (merge) return Number(merge[1]);
  const squash = /\(#(\d+)\)\s*$/.exec(subject);
  return squash ? Number(squash[1]) : 0;
}
