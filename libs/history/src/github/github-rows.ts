import { formatMillis } from '@loom/clickhouse';
import type { GithubSourceState, GithubSourceView } from '@loom/contracts';
import { linkedIssues } from '../insights/linked-issues';

/** The rows of the GitHub source (migrations 0047-0050), as inserted. */
export interface GithubSourceRow {
  namespace: string;
  repo: string;
  github: string;
  api_url: string;
  token_source: GithubSourceView['token'];
  state: GithubSourceState;
  reason: string;
  resume_at: string | null;
  pulls_since: string;
  review_comments_since: string;
  issues_since: string;
  pull_requests: number;
  review_comments: number;
  issues: number;
  requests: number;
  synced_at: string | null;
  updated_at: string;
}

export interface PullRequestRow {
  namespace: string;
  repo: string;
  number: number;
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
  title: string;
  body: string;
  author: string;
  labels: string[];
  linked_issues: number[];
  base_ref: string;
  head_ref: string;
  head_sha: string;
  merge_commit_sha: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  merged_at: string | null;
}

export interface ReviewCommentRow {
  namespace: string;
  repo: string;
  pr_number: number;
  kind: 'review' | 'comment';
  id: number;
  review_id: number;
  in_reply_to: number;
  author: string;
  body: string;
  path: string;
  line: number;
  original_line: number;
  state: string;
  commit_id: string;
  original_commit_id: string;
  created_at: string;
  updated_at: string;
}

export interface IssueRow {
  namespace: string;
  repo: string;
  number: number;
  state: 'open' | 'closed';
  state_reason: string;
  title: string;
  body: string;
  author: string;
  labels: string[];
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

/** The fields Loom reads of GitHub's answers (List pull requests, reviews, review comments, issues). */
export interface ApiUser {
  login?: string;
}
export interface ApiLabel {
  name?: string;
}
export interface ApiPull {
  number: number;
  state: 'open' | 'closed';
  draft?: boolean;
  title: string;
  body: string | null;
  user: ApiUser | null;
  labels?: (ApiLabel | string)[];
  base?: { ref?: string };
  head?: { ref?: string; sha?: string };
  merge_commit_sha?: string | null;
  created_at: string;
  updated_at: string;
  closed_at?: string | null;
  merged_at?: string | null;
}
export interface ApiReview {
  id: number;
  user: ApiUser | null;
  body: string | null;
  state: string;
  commit_id?: string | null;
  submitted_at?: string | null;
}
export interface ApiReviewComment {
  id: number;
  pull_request_review_id?: number | null;
  in_reply_to_id?: number;
  user: ApiUser | null;
  body: string;
  path: string;
  line?: number | null;
  original_line?: number | null;
  commit_id?: string;
  original_commit_id?: string;
  pull_request_url: string;
  created_at: string;
  updated_at: string;
}
export interface ApiIssue {
  number: number;
  state: 'open' | 'closed';
  state_reason?: string | null;
  title: string;
  body: string | null;
  user: ApiUser | null;
  labels?: (ApiLabel | string)[];
  pull_request?: unknown;
  created_at: string;
  updated_at: string;
  closed_at?: string | null;
}

interface Scope {
  namespace: string;
  repo: string;
}

export function pullRow(scope: Scope, p: ApiPull): PullRequestRow {
  const body = p.body ?? '';
  return {
    ...scope,
    number: p.number,
    state: p.merged_at ? 'merged' : p.state,
    draft: p.draft === true,
    title: p.title,
    body,
    author: p.user?.login ?? '',
    labels: labelNames(p.labels),
    linked_issues: linkedIssues(`${p.title}\n${body}`),
    base_ref: p.base?.ref ?? '',
    head_ref: p.head?.ref ?? '',
    head_sha: p.head?.sha ?? '',
    merge_commit_sha: p.merged_at ? (p.merge_commit_sha ?? '') : '',
    created_at: stamp(p.created_at),
    updated_at: stamp(p.updated_at),
    closed_at: p.closed_at ? stamp(p.closed_at) : null,
    merged_at: p.merged_at ? stamp(p.merged_at) : null,
  };
}

/** A review, versioned by the pull request's updated_at (reviews carry no updated_at of their own). */
export function reviewRow(scope: Scope, prNumber: number, prUpdatedAt: string, r: ApiReview): ReviewCommentRow {
  const at = r.submitted_at ? stamp(r.submitted_at) : stamp(prUpdatedAt);
  return {
    ...scope,
    pr_number: prNumber,
    kind: 'review',
    id: r.id,
    review_id: r.id,
    in_reply_to: 0,
    author: r.user?.login ?? '',
    body: r.body ?? '',
    path: '',
    line: 0,
    original_line: 0,
    state: r.state,
    commit_id: r.commit_id ?? '',
    original_commit_id: r.commit_id ?? '',
    created_at: at,
    updated_at: stamp(prUpdatedAt),
  };
}

/** A line comment; its pull request's number is the last part of `pull_request_url`. */
export function reviewCommentRow(scope: Scope, c: ApiReviewComment): ReviewCommentRow | undefined {
  const pr = Number(/\/pulls\/(\d+)$/.exec(c.pull_request_url)?.[1]);
  if (!Number.isInteger(pr) || pr <= 0) return undefined;
  return {
    ...scope,
    pr_number: pr,
    kind: 'comment',
    id: c.id,
    review_id: c.pull_request_review_id ?? 0,
    in_reply_to: c.in_reply_to_id ?? 0,
    author: c.user?.login ?? '',
    body: c.body,
    path: c.path,
    line: c.line ?? 0,
    original_line: c.original_line ?? 0,
    state: '',
    commit_id: c.commit_id ?? '',
    original_commit_id: c.original_commit_id ?? '',
    created_at: stamp(c.created_at),
    updated_at: stamp(c.updated_at),
  };
}

/** An issue, or undefined for a pull request (the issues list holds both). */
export function issueRow(scope: Scope, i: ApiIssue): IssueRow | undefined {
  if (i.pull_request !== undefined) return undefined;
  return {
    ...scope,
    number: i.number,
    state: i.state,
    state_reason: i.state_reason ?? '',
    title: i.title,
    body: i.body ?? '',
    author: i.user?.login ?? '',
    labels: labelNames(i.labels),
    created_at: stamp(i.created_at),
    updated_at: stamp(i.updated_at),
    closed_at: i.closed_at ? stamp(i.closed_at) : null,
  };
}

function labelNames(labels: (ApiLabel | string)[] | undefined): string[] {
  return (labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l !== '');
}

/** GitHub's ISO time as ClickHouse's DateTime64(3) text. */
export function stamp(iso: string): string {
  return formatMillis(new Date(iso));
}
