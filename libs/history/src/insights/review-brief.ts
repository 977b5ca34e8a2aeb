import type { Storage } from '@loom/clickhouse';
import { LoomError, type HistoryReviewBriefRequest, type HistoryReviewBriefResponse, type ReviewFileView } from '@loom/contracts';
import type { LlmProvider } from '@loom/providers';
import { readsAsHigh } from '@loom/sensitivity';
import { checkpoint, type HistoryQueries } from '../queries/history-queries';

const LINKED_ISSUE = /\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s+(?:[\w.-]+\/[\w.-]+)?#(\d+)/gi;
/** Lines of a PR description that say nothing of why: trailers, checklists, template headings. */
const NOISE = /^(co-authored-by|signed-off-by|reviewed-by|- \[[ x]\]|#+\s*(checklist|changelog)|<!--)/i;
const WHY_CHARS = 700;

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
  ) {}

  async brief(namespace: string, input: HistoryReviewBriefRequest): Promise<HistoryReviewBriefResponse> {
    const upto = checkpoint(await this.queries.repository(namespace, input.repository));
    const t = this.storage.tables;
    const params = { namespace, repo: input.repository, pr: input.pr_number, upto };
    const [commit] = await this.storage.query<CommitFacts>(
      `SELECT sha, subject, body FROM ${t.codeCommits} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND pr_number = {pr:UInt32} AND seq <= {upto:UInt32} ORDER BY seq DESC LIMIT 1`,
      params,
    );
    if (!commit) throw new LoomError('not_found', `no merged change in "${input.repository}" names PR #${input.pr_number}`, { fields: [{ field: 'pr_number', message: 'no indexed commit names it' }] });
    const sha = { ...params, sha: commit.sha };
    const [files, symbols] = await Promise.all([
      this.storage.query<ReviewFileView>(`SELECT path, change, additions, deletions FROM ${t.codeFileChanges} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND sha = {sha:String} ORDER BY additions + deletions DESC, path`, sha),
      this.storage.query<{ symbol: string }>(`SELECT DISTINCT symbol FROM ${t.codeSymbolChanges} FINAL WHERE namespace = {namespace:String} AND repo = {repo:String} AND sha = {sha:String} AND source = 'parser' ORDER BY symbol LIMIT 100`, sha),
    ]);
    const paragraphs = commit.body.split(/\n\s*\n/).map((p) => p.split('\n').filter((l) => !NOISE.test(l.trim())).join('\n').trim()).filter(Boolean);
    const plain = paragraphs.filter((p) => !readsAsHigh(p));
    const titleIsHigh = readsAsHigh(commit.subject);
    const title = titleIsHigh ? `PR #${input.pr_number}` : commit.subject;
    const visibleFiles = files.map((f) => ({ ...f, additions: Number(f.additions), deletions: Number(f.deletions) })).filter((f) => !readsAsHigh(f.path));
    const symbolNames = symbols.map((s) => s.symbol).filter((s) => !readsAsHigh(s));
    const withheld = paragraphs.length - plain.length + Number(titleIsHigh) + (files.length - visibleFiles.length);
    const linked = [...new Set([...`${commit.subject}\n${plain.join('\n')}`.matchAll(LINKED_ISSUE)].map((m) => Number(m[1])))];
    const built = buildBrief(title, plain, visibleFiles, symbolNames);
    const condensed = await this.condense(title, plain, visibleFiles, symbolNames);
    return {
      repository: input.repository,
      pr_number: input.pr_number,
      sha: commit.sha,
      title,
      what_changed: condensed?.what_changed ?? built.what_changed,
      why: condensed?.why ?? built.why,
      files: visibleFiles,
      symbols: symbolNames,
      review_comments: [],
      linked_issues: linked,
      written_by: condensed ? 'model' : 'builder',
      withheld,
      runs: [],
    };
  }

  /** The model's two fields, or undefined (no model, or an answer that is not the JSON asked for). */
  private async condense(title: string, plain: string[], files: ReviewFileView[], symbols: string[]): Promise<{ what_changed: string; why: string } | undefined> {
    if (!this.llm || this.llm.name === 'fake') return undefined;
    const facts = [
      `Title: ${title}`,
      `Description:\n${plain.join('\n\n').slice(0, 8_000) || '(none)'}`,
      `Files (+added -removed):\n${files.slice(0, 40).map((f) => `${f.change} ${f.path} +${f.additions} -${f.deletions}`).join('\n')}`,
      `Symbols changed: ${symbols.slice(0, 60).join(', ') || '(none found)'}`,
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
export function buildBrief(title: string, plain: string[], files: ReviewFileView[], symbols: string[]): { what_changed: string; why: string } {
  const added = files.reduce((n, f) => n + f.additions, 0);
  const removed = files.reduce((n, f) => n + f.deletions, 0);
  const top = files.slice(0, 5).map((f) => f.path);
  const reach = files.length === 0 ? 'It changed no file on the mainline.' : `It changed ${files.length} file${files.length === 1 ? '' : 's'} (+${added} -${removed}), mostly ${top.join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''}.`;
  const touched = symbols.length === 0 ? '' : ` Symbols changed: ${symbols.slice(0, 8).join(', ')}${symbols.length > 8 ? ` and ${symbols.length - 8} more` : ''}.`;
  const why = plain.join('\n\n').replace(/\s+/g, ' ').trim();
  return { what_changed: `${title}. ${reach}${touched}`, why: why === '' ? 'The description gives no reason.' : why.length > WHY_CHARS ? `${why.slice(0, WHY_CHARS)}…` : why };
}
