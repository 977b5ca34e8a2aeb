import type { Storage } from '@loom/clickhouse';
import type { GithubSourceRow, IssueRow, PullRequestRow, ReviewCommentRow } from './github-rows';

const SOURCE_COLUMNS =
  'namespace, repo, github, api_url, token_source, state, reason, resume_at, pulls_since, review_comments_since, issues_since, pull_requests, review_comments, issues, requests, synced_at, updated_at';
const PULL_COLUMNS = 'number, state, draft, title, body, author, labels, linked_issues, base_ref, head_ref, head_sha, merge_commit_sha, created_at, updated_at, closed_at, merged_at';

/** The GitHub source's rows: the source's state and checkpoints, and what it brought in. */
export class GithubStore {
  constructor(private readonly storage: Storage) {}

  async source(namespace: string, repo: string): Promise<GithubSourceRow | undefined> {
    const rows = await this.storage.query<GithubSourceRow>(
      `SELECT ${SOURCE_COLUMNS} FROM ${this.storage.tables.codeGithubSources} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} LIMIT 1`,
      { namespace, repo },
    );
    return rows[0] && normaliseSource(rows[0]);
  }

  async sources(namespace: string): Promise<Map<string, GithubSourceRow>> {
    const rows = await this.storage.query<GithubSourceRow>(`SELECT ${SOURCE_COLUMNS} FROM ${this.storage.tables.codeGithubSources} FINAL WHERE namespace = {namespace:String}`, { namespace });
    return new Map(rows.map((r) => [r.repo, normaliseSource(r)]));
  }

  async putSource(row: GithubSourceRow): Promise<void> {
    await this.storage.insert(this.storage.tables.codeGithubSources, [row]);
  }

  async writePulls(rows: PullRequestRow[]): Promise<void> {
    if (rows.length > 0) await this.storage.insert(this.storage.tables.codePullRequests, rows);
  }

  async writeReviewComments(rows: ReviewCommentRow[]): Promise<void> {
    if (rows.length > 0) await this.storage.insert(this.storage.tables.codeReviewComments, rows);
  }

  async writeIssues(rows: IssueRow[]): Promise<void> {
    if (rows.length > 0) await this.storage.insert(this.storage.tables.codeIssues, rows);
  }

  /** Distinct rows of each table for the repository (what code.list counts). */
  async counts(namespace: string, repo: string): Promise<{ pull_requests: number; review_comments: number; issues: number }> {
    const t = this.storage.tables;
    const params = { namespace, repo };
    const where = 'WHERE namespace = {namespace:String} AND repo = {repo:String}';
    const [row] = await this.storage.query<{ p: number; c: number; i: number }>(
      `SELECT (SELECT count() FROM ${t.codePullRequests} FINAL ${where}) AS p, (SELECT count() FROM ${t.codeReviewComments} FINAL ${where}) AS c, (SELECT count() FROM ${t.codeIssues} FINAL ${where}) AS i`,
      params,
    );
    return { pull_requests: Number(row?.p ?? 0), review_comments: Number(row?.c ?? 0), issues: Number(row?.i ?? 0) };
  }

  /** Pull requests by number or by merge commit (a rebase or merge that names no number). */
  async pulls(namespace: string, repo: string, numbers: number[], shas: string[] = []): Promise<PullRequestRow[]> {
    if (numbers.length === 0 && shas.length === 0) return [];
    const rows = await this.storage.query<PullRequestRow>(
      `SELECT ${PULL_COLUMNS} FROM ${this.storage.tables.codePullRequests} FINAL
       WHERE namespace = {namespace:String} AND repo = {repo:String} AND (number IN {numbers:Array(UInt32)} OR (merge_commit_sha != '' AND merge_commit_sha IN {shas:Array(String)}))`,
      { namespace, repo, numbers: [...new Set(numbers)], shas: [...new Set(shas)] },
    );
    return rows.map(normalisePull);
  }

  /** Open and merged pull requests: the duplicate check's candidates beside the mainline. */
  async openAndMerged(namespace: string, repo: string): Promise<PullRequestRow[]> {
    const rows = await this.storage.query<PullRequestRow>(
      `SELECT ${PULL_COLUMNS} FROM ${this.storage.tables.codePullRequests} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND state IN ('open', 'merged') ORDER BY number`,
      { namespace, repo },
    );
    return rows.map(normalisePull);
  }

  async reviewComments(namespace: string, repo: string, pr: number): Promise<ReviewCommentRow[]> {
    const rows = await this.storage.query<ReviewCommentRow>(
      `SELECT pr_number, kind, id, review_id, in_reply_to, author, body, path, line, original_line, state, commit_id, original_commit_id, created_at, updated_at
       FROM ${this.storage.tables.codeReviewComments} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND pr_number = {pr:UInt32}
       ORDER BY created_at, id`,
      { namespace, repo, pr },
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), review_id: Number(r.review_id), in_reply_to: Number(r.in_reply_to), line: Number(r.line), original_line: Number(r.original_line), pr_number: Number(r.pr_number) }));
  }

  async issues(namespace: string, repo: string, numbers: number[]): Promise<IssueRow[]> {
    if (numbers.length === 0) return [];
    const rows = await this.storage.query<IssueRow>(
      `SELECT number, state, state_reason, title, body, author, labels, created_at, updated_at, closed_at FROM ${this.storage.tables.codeIssues} FINAL
       WHERE namespace = {namespace:String} AND repo = {repo:String} AND number IN {numbers:Array(UInt32)}`,
      { namespace, repo, numbers: [...new Set(numbers)] },
    );
    return rows.map((r) => ({ ...r, number: Number(r.number) }));
  }
}

function normaliseSource(row: GithubSourceRow): GithubSourceRow {
  return { ...row, pull_requests: Number(row.pull_requests), review_comments: Number(row.review_comments), issues: Number(row.issues), requests: Number(row.requests) };
}

function normalisePull(row: PullRequestRow): PullRequestRow {
  return { ...row, number: Number(row.number), linked_issues: row.linked_issues.map(Number), draft: Boolean(row.draft) };
}
