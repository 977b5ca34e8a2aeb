import type { Storage } from '@loom/clickhouse';
import { LoomError, type HistoryReviewBriefRequest, type HistoryReviewBriefResponse, type LinkedIssueView, type ReviewCommentView, type ReviewFileView } from '@loom/contracts';
import type { LlmProvider } from '@loom/providers';
import { readsAsHigh } from '@loom/sensitivity';
import type { GithubStore } from '../github/github-store';
import { checkpoint, type HistoryQueries } from '../queries/history-queries';
import { linkedIssues } from './linked-issues';
import { reviewThreads } from './review-threads';

/** Lines of a PR description that say nothing of why: trailers, checklists, template headings. */
const NOISE = /^(co-authored-by|signed-off-by|reviewed-by|- \[[ x]\]|#+\s*(checklist|changelog)|<!--)/i;
const WHY_CHARS = 700;
/** Review comments the model is shown (the answer holds them all). */
const MODEL_COMMENTS = 30;

interface CommitFacts {
  sha: string;
  subject: string;
  body: string;
}

/**
 * A pull request's review brief: what changed and why, its files and symbols, linked issues.
 * Paragraphs that read as high are withheld before anything else sees them, so they reach
 * neither the model nor the answer. With a model configured it condenses the plain parts;
 * otherwise (or when it fails) the builder writes the brief from them.
 */
export class ReviewBriefs {
  constructor(
    private readonly storage: Storage,
    private readonly queries: HistoryQueries,
    private readonly llm: LlmProvider | undefined,
    private readonly github?: GithubStore,
  ) {}

  async brief(namespace: string, input: HistoryReviewBriefRequest): Promise<HistoryReviewBriefResponse> {
    const upto = checkpoint(await this.queries.repository(namespace, input.repository));
    const t = this.storage.tables;
    const params = { namespace, repo: input.repository, pr: input.pr_number, upto };
    const [pull] = this.github ? await this.github.pulls(namespace, input.repository, [input.pr_number]) : [];
    let [commit] = await this.storage.query<CommitFacts>(
      `SELECT sha, subject, body FROM ${t.codeCommits} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND pr_number = {pr:UInt32} AND seq <= {upto:UInt32} ORDER BY seq DESC LIMIT 1`,
      params,
    );
    if (!commit && pull?.merge_commit_sha) {
      // A rebase merge names no PR in its message; GitHub says which commit landed it.
      [commit] = await this.storage.query<CommitFacts>(`SELECT sha, subject, body FROM ${t.codeCommits} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND sha = {sha:String} AND seq <= {upto:UInt32} LIMIT 1`, { ...params, sha: pull.merge_commit_sha });
    }
    if (!commit && !pull) throw new LoomError('not_found', `no merged change in "${input.repository}" names PR #${input.pr_number}`, { fields: [{ field: 'pr_number', message: 'no indexed commit names it' }] });
    const sha = { ...params, sha: commit?.sha ?? '' };
    const [files, symbols, reviewRows] = await Promise.all([
      commit ? this.storage.query<ReviewFileView>(`SELECT path, change, additions, deletions FROM ${t.codeFileChanges} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND sha = {sha:String} ORDER BY additions + deletions DESC, path`, sha) : [],
      commit ? this.storage.query<{ symbol: string }>(`SELECT DISTINCT symbol FROM ${t.codeSymbolChanges} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND sha = {sha:String} AND source = 'parser' ORDER BY symbol LIMIT 100`, sha) : [],
      pull && this.github ? this.github.reviewComments(namespace, input.repository, input.pr_number) : [],
    ]);
    // The PR's description says why; the commit message stands in without a GitHub source (a squash merge's is the description).
    const description = pull && pull.body.trim() !== '' ? pull.body : (commit?.body ?? '');
    const paragraphs = description.split(/\n\s*\n/).map((p) => p.split('\n').filter((l) => !NOISE.test(l.trim())).join('\n').trim()).filter(Boolean);
    const plain = paragraphs.filter((p) => !readsAsHigh(p));
    const rawTitle = pull?.title ?? commit?.subject ?? '';
    const titleIsHigh = readsAsHigh(rawTitle);
    const title = titleIsHigh ? `PR #${input.pr_number}` : rawTitle;
    const visibleFiles = files.map((f) => ({ ...f, additions: Number(f.additions), deletions: Number(f.deletions) })).filter((f) => !readsAsHigh(f.path));
    const symbolNames = symbols.map((s) => s.symbol).filter((s) => !readsAsHigh(s));
    // What reads as high in a review comment (its text or its path) is neither sent nor shown.
    const threads = reviewThreads(reviewRows);
    const comments = threads.filter((c) => !readsAsHigh(c.body) && !(c.path !== null && readsAsHigh(c.path)));
    const withheld = paragraphs.length - plain.length + Number(titleIsHigh) + (files.length - visibleFiles.length) + (threads.length - comments.length);
    const linked = [...new Set([...linkedIssues(`${commit?.subject ?? ''}\n${commit && description !== commit.body ? commit.body.split(/\n\s*\n/).filter((p) => !readsAsHigh(p)).join('\n') : ''}\n${title}\n${plain.join('\n')}`), ...(pull?.linked_issues ?? [])])];
    const issues = await this.issues(namespace, input.repository, linked);
    const built = buildBrief(title, plain, visibleFiles, symbolNames, comments);
    const condensed = await this.condense(title, plain, visibleFiles, symbolNames, comments, issues);
    return {
      repository: input.repository,
      pr_number: input.pr_number,
      sha: commit?.sha ?? pull?.merge_commit_sha ?? '',
      title,
      what_changed: condensed?.what_changed ?? built.what_changed,
      why: condensed?.why ?? built.why,
      files: visibleFiles,
      symbols: symbolNames,
      review_comments: comments,
      linked_issues: linked,
      issues,
      written_by: condensed ? 'model' : 'builder',
      withheld,
      runs: [],
      incidents: [],
      incidents_reason: null,
    };
  }

  /** The linked issues as the GitHub source knows them; titles that read as high are not shown. */
  private async issues(namespace: string, repo: string, numbers: number[]): Promise<LinkedIssueView[]> {
    const rows = this.github ? await this.github.issues(namespace, repo, numbers) : [];
    const byNumber = new Map(rows.map((r) => [r.number, r]));
    return numbers.map((number) => {
      const row = byNumber.get(number);
      return {
        number,
        title: row && !readsAsHigh(row.title) ? row.title : null,
        state: row ? row.state : null,
        state_reason: row && row.state_reason !== '' ? row.state_reason : null,
        closed_at: row?.closed_at ? new Date(`${String(row.closed_at).replace(' ', 'T')}Z`).toISOString() : null,
      };
    });
  }

  /** The model's two fields, or undefined (no model, or an answer that is not the JSON asked for). */
  private async condense(title: string, plain: string[], files: ReviewFileView[], symbols: string[], comments: ReviewCommentView[], issues: LinkedIssueView[]): Promise<{ what_changed: string; why: string } | undefined> {
    if (!this.llm || this.llm.name === 'fake') return undefined;
    const facts = [
      `Title: ${title}`,
      `Description:\n${plain.join('\n\n').slice(0, 8_000) || '(none)'}`,
      `Files (+added -removed):\n${files.slice(0, 40).map((f) => `${f.change} ${f.path} +${f.additions} -${f.deletions}`).join('\n')}`,
      `Symbols changed: ${symbols.slice(0, 60).join(', ') || '(none found)'}`,
      ...(comments.length > 0 ? [`Review comments (author, where, text, how it ended):\n${comments.slice(0, MODEL_COMMENTS).map((c) => `- ${c.author}${c.path ? ` on ${c.path}${c.line ? `:${c.line}` : ''}` : ''}${c.state ? ` [${c.state}]` : ''}: ${c.body.replace(/\s+/g, ' ').slice(0, 400)} (${c.resolution})`).join('\n')}`] : []),
      ...(issues.some((i) => i.title) ? [`Linked issues:\n${issues.filter((i) => i.title).map((i) => `- #${i.number} ${i.title} (${i.state ?? 'unknown'}${i.state_reason ? `, ${i.state_reason}` : ''})`).join('\n')}`] : []),
    ].join('\n\n');
    try {
      const answer = await this.llm.complete({
        system: 'You write review briefs of merged pull requests for engineers. Answer with JSON only: {"what_changed": "...", "why": "..."}. Each at most three sentences, plain text, facts from the input only.',
        messages: [{ role: 'user', content: facts }],
        maxTokens: 400,
      });
      const json = /\{[\s\S]*\}/.exec(answer.text)?.[0];
      const parsed = json ? (JSON.parse(json) as { what_changed?: unknown; why?: unknown }) : undefined;
      if (typeof parsed?.what_changed !== 'string' || typeof parsed.why !== 'string' || parsed.what_changed.trim() === '') return undefined;
      // A model can echo or invent a secret; what reads as high is not shown.
      if (readsAsHigh(parsed.what_changed) || readsAsHigh(parsed.why)) return undefined;
      return { what_changed: parsed.what_changed.trim().slice(0, 2_000), why: parsed.why.trim().slice(0, 2_000) };
    } catch {
      return undefined;
    }
  }
}

/** The model-free brief: the title and the size and reach of the change; why from the description. */
export function buildBrief(title: string, plain: string[], files: ReviewFileView[], symbols: string[], comments: readonly ReviewCommentView[] = []): { what_changed: string; why: string } {
  const added = files.reduce((n, f) => n + f.additions, 0);
  const removed = files.reduce((n, f) => n + f.deletions, 0);
  const top = files.slice(0, 5).map((f) => f.path);
  const reach = files.length === 0 ? 'It changed no file on the mainline.' : `It changed ${files.length} file${files.length === 1 ? '' : 's'} (+${added} -${removed}), mostly ${top.join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''}.`;
  const touched = symbols.length === 0 ? '' : ` Symbols changed: ${symbols.slice(0, 8).join(', ')}${symbols.length > 8 ? ` and ${symbols.length - 8} more` : ''}.`;
  const why = plain.join('\n\n').replace(/\s+/g, ' ').trim();
  return { what_changed: `${title}. ${reach}${touched}${reviewSummary(comments)}`, why: why === '' ? 'The description gives no reason.' : why.length > WHY_CHARS ? `${why.slice(0, WHY_CHARS)}…` : why };
}

/** The reviews in one sentence: verdicts, line comments and how many a later commit addressed. */
function reviewSummary(comments: readonly ReviewCommentView[]): string {
  if (comments.length === 0) return '';
  const count = (state: string): number => comments.filter((c) => c.kind === 'review' && c.state === state).length;
  const lines = comments.filter((c) => c.kind === 'comment' && c.in_reply_to === null);
  const addressed = lines.filter((c) => c.resolved === true).length;
  const parts = [
    count('APPROVED') > 0 ? `${count('APPROVED')} approval${count('APPROVED') === 1 ? '' : 's'}` : '',
    count('CHANGES_REQUESTED') > 0 ? `${count('CHANGES_REQUESTED')} request${count('CHANGES_REQUESTED') === 1 ? '' : 's'} for changes` : '',
    lines.length > 0 ? `${lines.length} line comment${lines.length === 1 ? '' : 's'}, ${addressed} addressed by a later commit` : '',
  ].filter(Boolean);
  return parts.length === 0 ? '' : ` Review: ${parts.join('; ')}.`;
}
