import type { RepositoryState } from '@loom/contracts';

/** The stored rows of the code index, as inserted (see migrations 0039-0043). */
export interface RepositoryRow {
  namespace: string;
  name: string;
  path: string;
  ref: string;
  /** Stored: ingesting, ready or failed; `interrupted` is worked out when read (ADR 0031). */
  state: RepositoryState;
  error: string;
  last_sha: string;
  commits: number;
  commits_total: number;
  started_at: string;
  updated_at: string;
}

export interface CommitRow {
  namespace: string;
  repo: string;
  sha: string;
  seq: number;
  parents: string[];
  author_name: string;
  author_email: string;
  authored_at: number;
  committed_at: number;
  subject: string;
  body: string;
  pr_number: number;
  files: number;
  additions: number;
  deletions: number;
  code_terms: string[];
}

export interface FileChangeRow {
  namespace: string;
  repo: string;
  path: string;
  seq: number;
  sha: string;
  old_path: string;
  change: string;
  additions: number;
  deletions: number;
  binary: boolean;
  pr_number: number;
  committed_at: number;
}

export interface HunkRow {
  namespace: string;
  repo: string;
  path: string;
  seq: number;
  hunk: number;
  sha: string;
  old_path: string;
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  header: string;
  symbols: string[];
}

export interface SymbolChangeRow {
  namespace: string;
  repo: string;
  leaf: string;
  symbol: string;
  seq: number;
  sha: string;
  path: string;
  kind: string;
  source: 'parser' | 'header';
  lines_added: number;
  lines_removed: number;
  pr_number: number;
}
