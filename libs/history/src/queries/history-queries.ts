import type { Storage } from '@loom/clickhouse';
import {
  LoomError,
  type CommitView,
  type HistoryLineRequest,
  type HistoryLineResponse,
  type HistoryPathRequest,
  type HistoryPathResponse,
  type HistorySymbolRequest,
  type HistorySymbolResponse,
  type LineChangeView,
  type PathChangeView,
  type SymbolChangeView,
} from '@loom/contracts';
import { readsAsHigh } from '@loom/sensitivity';
import { RepositoryStore } from '../store/repository-store';
import type { GithubStore } from '../github/github-store';
import type { CommitRow, RepositoryRow } from '../store/history-rows';
import { leafOf } from '../symbols/header-symbol';
import { stepBack, type WalkHunk } from './line-walk';

const DEFAULT_LIMIT = 50;
/** Renames a path's history follows back before it stops. */
const MAX_RENAMES = 50;

interface ChangeRow {
  path: string;
  seq: number;
  sha: string;
  old_path: string;
  change: PathChangeView['change'];
  additions: number;
  deletions: number;
}

/** Path, symbol and line history over the code index, read from ClickHouse alone (no clone needed). */
export class HistoryQueries {
  private readonly repositories: RepositoryStore;

  constructor(
    private readonly storage: Storage,
    private readonly github?: GithubStore,
  ) {
    this.repositories = new RepositoryStore(storage);
  }

  async repository(namespace: string, name: string): Promise<RepositoryRow> {
    const row = await this.repositories.get(namespace, name);
    if (!row) throw new LoomError('not_found', `no repository "${name}" in namespace "${namespace}"; add it with \`loom code add <path> --name ${name}\``);
    return row;
  }

  /** The commits that touched a file (renames followed back) or a directory's files, newest first. */
  async path(namespace: string, input: HistoryPathRequest): Promise<HistoryPathResponse> {
    const upto = checkpoint(await this.repository(namespace, input.repository));
    const limit = input.limit ?? DEFAULT_LIMIT;
    const t = this.storage.tables;
    const params = { namespace, repo: input.repository };
    const found: ChangeRow[] = [];
    let path = input.path.replace(/^\.?\//, '');
    let before = upto + 1;
    for (let hop = 0; hop <= MAX_RENAMES && found.length < limit; hop++) {
      const rows = await this.changesOf(path, before, limit - found.length, params);
      found.push(...rows);
      const rename = rows.find((r) => r.change === 'renamed' && r.path === path);
      if (!rename || rows.length >= limit) break;
      path = rename.old_path;
      before = rename.seq;
    }
    if (found.length === 0) {
      // Not a file: a directory's files, by prefix.
      const prefix = input.path.replace(/^\.?\//, '').replace(/\/?$/, '/');
      const rows = await this.storage.query<ChangeRow>(
        `SELECT path, seq, sha, old_path, change, additions, deletions FROM ${t.codeFileChanges} FINAL
         WHERE namespace = {namespace:String} AND repo = {repo:String} AND startsWith(path, {prefix:String}) AND seq <= {upto:UInt32}
         ORDER BY seq DESC, path LIMIT {limit:UInt32}`,
        { ...params, prefix, limit, upto },
      );
      found.push(...rows);
    }
    if (found.length === 0) throw new LoomError('not_found', `no commit in "${input.repository}" touched "${input.path}"; check the path (relative to the repository's root)`, { fields: [{ field: 'path', message: 'never changed in the indexed history' }] });
    const commits = await this.commits(namespace, input.repository, found.map((f) => f.sha));
    return {
      repository: input.repository,
      path: input.path,
      changes: found.map((f) => ({ ...commitView(commits.get(f.sha), f.sha), path: f.path, old_path: f.change === 'renamed' ? f.old_path : null, change: f.change, additions: Number(f.additions), deletions: Number(f.deletions) })),
      incidents_reason: null,
    };
  }

  /** The commits whose hunks changed a symbol (by its last name part, or qualified), newest first. */
  async symbol(namespace: string, input: HistorySymbolRequest): Promise<HistorySymbolResponse> {
    const upto = checkpoint(await this.repository(namespace, input.repository));
    const symbol = input.symbol.replace(/::|#/g, '.');
    const rows = await this.storage.query<{ symbol: string; seq: number; sha: string; path: string; source: 'parser' | 'header'; lines_added: number; lines_removed: number }>(
      `SELECT symbol, seq, sha, path, source, lines_added, lines_removed FROM ${this.storage.tables.codeSymbolChanges} FINAL
       WHERE namespace = {namespace:String} AND repo = {repo:String} AND leaf = {leaf:String}
         AND (symbol = {symbol:String} OR endsWith(symbol, {dotted:String}))
         AND ({path:String} = '' OR startsWith(path, {path:String})) AND seq <= {upto:UInt32}
       ORDER BY seq DESC, path, symbol LIMIT {limit:UInt32}`,
      { upto, namespace, repo: input.repository, leaf: leafOf(symbol), symbol, dotted: `.${symbol}`, path: input.path?.replace(/^\.?\//, '') ?? '', limit: input.limit ?? DEFAULT_LIMIT },
    );
    if (rows.length === 0) throw new LoomError('not_found', `no change to a symbol "${input.symbol}" was seen in "${input.repository}"; try its last name part (\`query\` for \`Client.query\`)`, { fields: [{ field: 'symbol', message: 'never changed in the indexed history' }] });
    const commits = await this.commits(namespace, input.repository, rows.map((r) => r.sha));
    const changes: SymbolChangeView[] = rows.map((r) => ({ ...commitView(commits.get(r.sha), r.sha), symbol: r.symbol, path: r.path, lines_added: Number(r.lines_added), lines_removed: Number(r.lines_removed), source: r.source }));
    return { repository: input.repository, symbol: input.symbol, changes, incidents_reason: null };
  }

  /**
   * Blame through history: the commits that wrote a line, newest first. From the newest commit
   * that touched the file (at or before `ref`), each commit's hunks say whether it wrote the
   * line and where the line sat before it; renames are followed.
   */
  async line(namespace: string, input: HistoryLineRequest): Promise<HistoryLineResponse> {
    const repository = await this.repository(namespace, input.repository);
    const limit = input.limit ?? DEFAULT_LIMIT;
    const upto = checkpoint(repository);
    const ref = await this.commitByPrefix(namespace, input.repository, input.ref ?? repository.last_sha, 'ref', upto);
    const t = this.storage.tables;
    const params = { namespace, repo: input.repository };
    // The file's whole chain of changes (renames followed back), then all their hunks: two reads, then a walk in memory.
    const chainOfFile: ChangeRow[] = [];
    let path = input.path.replace(/^\.?\//, '');
    let before = Number(ref.seq) + 1;
    for (let hop = 0; hop <= MAX_RENAMES; hop++) {
      const rows = await this.changesOf(path, before, 100_000, params);
      chainOfFile.push(...rows);
      const rename = rows.find((r) => r.change === 'renamed' && r.path === path);
      if (!rename) break;
      path = rename.old_path;
      before = rename.seq;
    }
    const touched = chainOfFile.length > 0;
    const hunkRows = touched
      ? await this.storage.query<WalkHunk & { path: string; seq: number }>(
          `SELECT path, seq, old_start, old_lines, new_start, new_lines FROM ${t.codeHunks} FINAL
           WHERE namespace = {namespace:String} AND repo = {repo:String} AND path IN {paths:Array(String)} AND seq <= {last:UInt32}
           ORDER BY seq, new_start, hunk`,
          { ...params, paths: [...new Set(chainOfFile.map((c) => c.path))], last: Number(ref.seq) },
        )
      : [];
    const hunksOf = new Map<string, WalkHunk[]>();
    for (const h of hunkRows) {
      const key = `${h.path}\u0000${Number(h.seq)}`;
      hunksOf.set(key, [...(hunksOf.get(key) ?? []), numbers(h)]);
    }
    let line = input.line;
    const chain: { sha: string; path: string; line: number; origin: boolean }[] = [];
    for (const change of chainOfFile) {
      if (chain.length >= limit) break;
      const step = stepBack(hunksOf.get(`${change.path}\u0000${change.seq}`) ?? [], line);
      if (step.kind === 'changed') {
        chain.push({ sha: change.sha, path: change.path, line, origin: step.origin || change.change === 'added' });
        if (step.origin || step.oldLine === undefined || change.change === 'added') break;
        line = step.oldLine;
      } else {
        if (change.change === 'added') break;
        line = step.oldLine;
      }
    }
    if (!touched) throw new LoomError('not_found', `no commit in "${input.repository}" up to ${ref.sha.slice(0, 12)} touched "${input.path}"`, { fields: [{ field: 'path', message: 'never changed in the indexed history' }] });
    const commits = await this.commits(namespace, input.repository, chain.map((c) => c.sha));
    const changes: LineChangeView[] = chain.map((c) => ({ ...commitView(commits.get(c.sha), c.sha), path: c.path, line: c.line, origin: c.origin }));
    return { repository: input.repository, path: input.path, line: input.line, ref: ref.sha, changes, incidents_reason: null };
  }

  private changesOf(path: string, before: number, limit: number, params: { namespace: string; repo: string }): Promise<ChangeRow[]> {
    return this.storage
      .query<ChangeRow>(
        `SELECT path, seq, sha, old_path, change, additions, deletions FROM ${this.storage.tables.codeFileChanges} FINAL
         WHERE namespace = {namespace:String} AND repo = {repo:String} AND path = {path:String} AND seq < {before:UInt64}
         ORDER BY seq DESC LIMIT {limit:UInt32}`,
        { ...params, path, before, limit },
      )
      .then((rows) => rows.map((r) => ({ ...r, seq: Number(r.seq) })));
  }

  /** The indexed commit (at or before the checkpoint `upto`) a sha or unambiguous prefix names; a 400 naming `field` otherwise. */
  async commitByPrefix(namespace: string, repo: string, ref: string, field: string, upto: number): Promise<CommitRow> {
    const rows = await this.storage.query<CommitRow>(
      `SELECT sha, seq FROM ${this.storage.tables.codeCommits} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND startsWith(sha, {ref:String}) AND seq <= {upto:UInt32} LIMIT 2`,
      { namespace, repo, ref: ref.toLowerCase(), upto },
    );
    if (rows.length !== 1) {
      const why = rows.length === 0 ? 'no indexed commit starts with it' : 'more than one indexed commit starts with it; give more digits';
      throw new LoomError('invalid_input', `${field} "${ref}": ${why}`, { fields: [{ field, message: why }] });
    }
    return rows[0] as CommitRow;
  }

  /** The commits by sha, each with its PR's title when the GitHub source knows the PR. */
  private async commits(namespace: string, repo: string, shas: string[]): Promise<Map<string, ShownCommit>> {
    if (shas.length === 0) return new Map();
    const rows = await this.storage.query<CommitRow>(
      `SELECT sha, seq, subject, author_name, author_email, committed_at, pr_number FROM ${this.storage.tables.codeCommits} FINAL
       WHERE namespace = {namespace:String} AND repo = {repo:String} AND sha IN {shas:Array(String)}`,
      { namespace, repo, shas: [...new Set(shas)] },
    );
    const pulls = this.github ? await this.github.pulls(namespace, repo, rows.map((r) => Number(r.pr_number)).filter((n) => n > 0), rows.map((r) => r.sha)) : [];
    const byNumber = new Map(pulls.map((p) => [p.number, p]));
    const bySha = new Map(pulls.filter((p) => p.merge_commit_sha !== '').map((p) => [p.merge_commit_sha, p]));
    return new Map(
      rows.map((r) => {
        // A commit that names no PR (a rebase merge) takes the one GitHub says it landed.
        const pull = (Number(r.pr_number) > 0 ? byNumber.get(Number(r.pr_number)) : undefined) ?? bySha.get(r.sha);
        return [r.sha, { ...r, pr_number: Number(r.pr_number) > 0 ? Number(r.pr_number) : (pull?.number ?? 0), pr_title: pull && !readsAsHigh(pull.title) ? pull.title : null }];
      }),
    );
  }
}

/**
 * The last commit whose rows are all written (the ingest's checkpoint): every read stops there,
 * so a batch being written, or left half-written by a crash, is never part of an answer.
 */
export function checkpoint(repository: RepositoryRow): number {
  return Number(repository.commits);
}

function numbers(h: WalkHunk): WalkHunk {
  return { old_start: Number(h.old_start), old_lines: Number(h.old_lines), new_start: Number(h.new_start), new_lines: Number(h.new_lines) };
}

type ShownCommit = CommitRow & { pr_title: string | null };

function commitView(row: ShownCommit | undefined, sha: string): CommitView {
  return {
    sha,
    pr_number: row && Number(row.pr_number) > 0 ? Number(row.pr_number) : null,
    subject: row?.subject ?? '',
    author: row?.author_name ?? '',
    committed_at: row ? new Date(`${String(row.committed_at).replace(' ', 'T')}Z`).toISOString() : '',
    pr_title: row?.pr_title ?? null,
    runs: [],
    incidents: [],
  };
}
