import { tokenize } from '@loom/conversations';
import type { Commit, FileChange, Hunk } from '../git/commit';
import { pullRequestOf } from '../git/commit';
import type { BlobReader } from '../git/blob-reader';
import { headerSymbol, leafOf } from '../symbols/header-symbol';
import { symbolsTouched, type Definition, type SymbolIndex } from '../symbols/symbol-index';
import type { CommitRow, FileChangeRow, HunkRow, SymbolChangeRow } from '../store/history-rows';

export interface CommitRows {
  commit: CommitRow;
  files: FileChangeRow[];
  hunks: HunkRow[];
  symbols: SymbolChangeRow[];
}

/** Terms of a change's code lines kept per commit: enough to say what it touched, bounded for a bulk change. */
const MAX_CODE_TERMS = 600;

/** The distinct terms of the changed lines of code files (not docs, data or lockfiles), first seen first. */
function codeTerms(files: readonly FileChange[]): string[] {
  const terms = new Set<string>();
  for (const file of files) {
    if (file.binary || PROSE.test(file.path)) continue;
    for (const line of file.lines) {
      for (const term of tokenize(line)) {
        if (term.length < 3 || /^\d+$/.test(term)) continue;
        terms.add(term);
        if (terms.size >= MAX_CODE_TERMS) return [...terms];
      }
    }
  }
  return [...terms];
}

/** Docs and data: git's header there is a heading or a key, not a symbol. */
const PROSE = /\.(md|markdown|mdx|txt|rst|adoc|json|jsonc|ya?ml|toml|lock|csv|tsv|html?|xml|svg|ini|cfg|conf|properties|snap)$|(^|\/)(LICENSE|CHANGELOG|NOTICE|AUTHORS)[^/]*$/i;

/** A file with more hunks than this is a generated or bulk change: its hunks keep headers only. */
const MAX_PARSED_HUNKS = 400;

/** The rows one mainline commit adds to the code index, symbols read at both sides of each hunk. */
export async function commitRows(namespace: string, repo: string, seq: number, commit: Commit, blobs: BlobReader, symbols: SymbolIndex): Promise<CommitRows> {
  const pr = pullRequestOf(commit.subject);
  const row: CommitRow = {
    namespace,
    repo,
    sha: commit.sha,
    seq,
    parents: commit.parents,
    author_name: commit.authorName,
    author_email: commit.authorEmail,
    authored_at: commit.authoredAt,
    committed_at: commit.committedAt,
    subject: commit.subject,
    body: commit.body,
    pr_number: pr,
    files: commit.files.length,
    additions: commit.files.reduce((n, f) => n + f.additions, 0),
    deletions: commit.files.reduce((n, f) => n + f.deletions, 0),
    code_terms: codeTerms(commit.files),
  };
  const out: CommitRows = { commit: row, files: [], hunks: [], symbols: [] };
  const parent = commit.parents[0];
  for (const file of commit.files) {
    out.files.push({
      namespace,
      repo,
      path: file.path,
      seq,
      sha: commit.sha,
      old_path: file.oldPath,
      change: file.change,
      additions: file.additions,
      deletions: file.deletions,
      binary: file.binary,
      pr_number: pr,
      committed_at: commit.committedAt,
    });
    const parsed = !file.binary && file.hunks.length <= MAX_PARSED_HUNKS && symbols.supports(file.path);
    const [after, before] = parsed ? await Promise.all([definitionsAt(blobs, symbols, file.change === 'deleted' ? undefined : commit.sha, file.path), definitionsAt(blobs, symbols, file.change === 'added' ? undefined : parent, file.oldPath)]) : [undefined, undefined];
    const bySymbol = new Map<string, SymbolChangeRow>();
    file.hunks.forEach((hunk, index) => {
      const touched = hunkSymbols(hunk, after, before, PROSE.test(file.path));
      out.hunks.push({
        namespace,
        repo,
        path: file.path,
        seq,
        hunk: index,
        sha: commit.sha,
        old_path: file.oldPath,
        old_start: hunk.oldStart,
        old_lines: hunk.oldLines,
        new_start: hunk.newStart,
        new_lines: hunk.newLines,
        header: hunk.header,
        symbols: touched.map((t) => t.name),
      });
      for (const t of touched) {
        const known = bySymbol.get(t.name);
        if (known) {
          known.lines_added += hunk.newLines;
          known.lines_removed += hunk.oldLines;
        } else {
          bySymbol.set(t.name, { namespace, repo, leaf: leafOf(t.name), symbol: t.name, seq, sha: commit.sha, path: file.path, kind: t.kind, source: t.source, lines_added: hunk.newLines, lines_removed: hunk.oldLines, pr_number: pr });
        }
      }
    });
    out.symbols.push(...bySymbol.values());
  }
  return out;
}

async function definitionsAt(blobs: BlobReader, symbols: SymbolIndex, commit: string | undefined, path: string): Promise<Definition[] | undefined> {
  if (commit === undefined) return undefined;
  const text = await blobs.read(commit, path);
  return text === undefined ? undefined : symbols.definitions(path, text);
}

/** The innermost definition holding both new line c and c + 1, where a pure removal (+c,0) sits. */
function innermostAround(defs: Definition[], line: number): Definition[] {
  const holding = defs.filter((d) => d.startLine <= line && d.endLine >= line + 1);
  const inner = holding.reduce<Definition | undefined>((best, d) => (best === undefined || d.startLine >= best.startLine ? d : best), undefined);
  return inner ? [inner] : [];
}

interface Touched {
  name: string;
  kind: string;
  source: 'parser' | 'header';
}

/**
 * What a hunk changed: the definitions holding its new lines (after) and its removed lines
 * (before), so a deleted method counts as well as an edited one; git's header when no grammar
 * read either side.
 */
function hunkSymbols(hunk: Hunk, after: Definition[] | undefined, before: Definition[] | undefined, isProse: boolean): Touched[] {
  const seen = new Map<string, Touched>();
  const add = (defs: Definition[]): void => {
    for (const d of defs) if (!seen.has(d.name)) seen.set(d.name, { name: d.name, kind: d.kind, source: 'parser' });
  };
  // A pure removal (+c,0) sits after new line c: the definition holding c and c+1 holds it.
  if (after) add(hunk.newLines > 0 ? symbolsTouched(after, hunk.newStart, hunk.newStart + hunk.newLines - 1) : innermostAround(after, hunk.newStart));
  if (before && hunk.oldLines > 0) add(symbolsTouched(before, hunk.oldStart, hunk.oldStart + hunk.oldLines - 1));
  if (seen.size === 0 && after === undefined && before === undefined && !isProse) {
    const name = headerSymbol(hunk.header);
    if (name) seen.set(name, { name, kind: 'header', source: 'header' });
  }
  return [...seen.values()];
}

export type { FileChange };
