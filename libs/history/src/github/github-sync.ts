import { formatMillis } from '@loom/clickhouse';
import { LoomError } from '@loom/contracts';
import type { Logger } from '@loom/platform';
import { GithubClient, GithubError } from './github-client';
import { issueRow, pullRow, reviewCommentRow, reviewRow, type ApiIssue, type ApiPull, type ApiReview, type ApiReviewComment, type GithubSourceRow } from './github-rows';
import type { GithubStore } from './github-store';

export interface GithubSyncRequest {
  namespace: string;
  /** The repository's name in Loom. */
  repo: string;
  /** owner/name on GitHub. */
  github: string;
  apiUrl: string;
  /** Held here while the sync runs; never stored, logged or answered. */
  token: string | undefined;
  tokenSource: GithubSourceRow['token_source'];
}

export interface GithubSyncOptions {
  signal?: AbortSignal;
  /** Each state the source passes through (stored first). */
  onState?: (source: GithubSourceRow) => void;
  /** The longest rate-limit wait taken in process (default 65 min). */
  maxWaitMs?: number;
}

/**
 * Brings a repository's GitHub data into the code tables: pull requests (with the reviews of the
 * merged ones), review comments and issues. Each resource is read newest-updated first, down to
 * its checkpoint (the newest updated_at of its last complete pass, sent as `since` where GitHub
 * takes one); a page's rows are written before the next page is asked for, and the checkpoint
 * moves when the pass is complete. Pages can only shift towards later pages in that order (an
 * item updated meanwhile jumps to the front, and the next pass takes it), so nothing is skipped;
 * a rerun after a crash reads the unfinished pass again and the Replacing tables fold the rows.
 */
export class GithubSync {
  constructor(
    private readonly store: GithubStore,
    private readonly logger?: Logger,
  ) {}

  /** What a caller can fix, before any work: the API's URL, the repository's name, the token. */
  async check(request: GithubSyncRequest): Promise<void> {
    const client = new GithubClient({ apiUrl: request.apiUrl, token: request.token, maxWaitMs: 0, timeoutMs: 15_000 });
    try {
      const repo = await client.get<{ full_name?: unknown }>(`repos/${request.github}`);
      if (typeof repo?.full_name !== 'string') throw new GithubError('http', `${client.apiUrl} did not answer as GitHub's API does for repos/${request.github}`);
    } catch (error) {
      if (!(error instanceof GithubError)) throw error;
      // A spent rate limit is no caller's mistake: the sync starts and pauses until it ends.
      if (error.kind === 'rate_limited') return;
      throw checkError(error, request);
    }
  }

  async run(request: GithubSyncRequest, options: GithubSyncOptions = {}): Promise<GithubSourceRow> {
    const previous = await this.store.source(request.namespace, request.repo);
    // Another GitHub repository (or server) behind the same name starts from nothing.
    const same = previous && previous.github.toLowerCase() === request.github.toLowerCase() && previous.api_url === request.apiUrl;
    let source: GithubSourceRow = {
      namespace: request.namespace,
      repo: request.repo,
      github: request.github,
      api_url: request.apiUrl,
      token_source: request.tokenSource,
      state: 'syncing',
      reason: '',
      resume_at: null,
      pulls_since: same ? previous.pulls_since : '',
      review_comments_since: same ? previous.review_comments_since : '',
      issues_since: same ? previous.issues_since : '',
      pull_requests: same ? previous.pull_requests : 0,
      review_comments: same ? previous.review_comments : 0,
      issues: same ? previous.issues : 0,
      requests: 0,
      synced_at: same ? previous.synced_at : null,
      updated_at: formatMillis(),
    };
    const save = async (next: Partial<GithubSourceRow>): Promise<void> => {
      source = { ...source, ...next, requests: client.requests, updated_at: formatMillis() };
      await this.store.putSource(source);
      options.onState?.(source);
    };
    const log = this.logger;
    const client = new GithubClient({
      apiUrl: request.apiUrl,
      token: request.token,
      signal: options.signal,
      maxWaitMs: options.maxWaitMs,
      onPause: async (until, reason) => {
        log?.warn({ repository: request.repo, github: request.github, resume_at: until.toISOString() }, `github sync ${request.repo}: paused, ${reason}; resumes at ${until.toISOString()}`);
        await save({ state: 'paused', reason: `${reason}; ${WAITS_IN_PROCESS} at ${until.toISOString()}`, resume_at: formatMillis(until) });
      },
      onResume: async () => {
        log?.info({ repository: request.repo, github: request.github }, `github sync ${request.repo}: resumed`);
        await save({ state: 'syncing', reason: '', resume_at: null });
      },
    });
    await save({});
    try {
      await this.pulls(client, request, source.pulls_since, (since) => save({ pulls_since: since }));
      await this.reviewComments(client, request, source.review_comments_since, (since) => save({ review_comments_since: since }));
      await this.issues(client, request, source.issues_since, (since) => save({ issues_since: since }));
      await save({ ...(await this.store.counts(request.namespace, request.repo)), state: 'ready', reason: '', resume_at: null, synced_at: formatMillis() });
      log?.info({ repository: request.repo, github: request.github, pull_requests: source.pull_requests, review_comments: source.review_comments, issues: source.issues, requests: source.requests }, `github sync ${request.repo}: done`);
      return source;
    } catch (error) {
      const stopped = stopOf(error, request, options.signal?.aborted === true);
      const counts = await this.store.counts(request.namespace, request.repo).catch(() => ({}));
      await save({ ...counts, ...stopped }).catch(() => undefined);
      log?.warn({ repository: request.repo, github: request.github, state: stopped.state }, `github sync ${request.repo}: ${stopped.state}: ${stopped.reason}`);
      return source;
    }
  }

  /** Pull requests, newest updated first (the list takes no `since`): down to the checkpoint. */
  private async pulls(client: GithubClient, request: GithubSyncRequest, since: string, done: (since: string) => Promise<void>): Promise<void> {
    const scope = { namespace: request.namespace, repo: request.repo };
    let newest = since;
    for await (const page of client.pages<ApiPull>(`repos/${request.github}/pulls`, { state: 'all', sort: 'updated', direction: 'desc' })) {
      const fresh = page.items.filter((p) => since === '' || p.updated_at >= since);
      const reviews = [];
      for (const pull of fresh.filter((p) => p.merged_at)) {
        for await (const reviewPage of client.pages<ApiReview>(`repos/${request.github}/pulls/${pull.number}/reviews`)) {
          reviews.push(...reviewPage.items.filter((r) => r.state !== 'PENDING').map((r) => reviewRow(scope, pull.number, pull.updated_at, r)));
        }
      }
      // Reviews before their pull request: a pull request that is stored has its reviews.
      await this.store.writeReviewComments(reviews);
      await this.store.writePulls(fresh.map((p) => pullRow(scope, p)));
      for (const p of fresh) if (p.updated_at > newest) newest = p.updated_at;
      if (fresh.length < page.items.length) break;
    }
    await done(newest);
  }

  /** The repository's review comments, newest updated first, since the checkpoint. */
  private async reviewComments(client: GithubClient, request: GithubSyncRequest, since: string, done: (since: string) => Promise<void>): Promise<void> {
    const scope = { namespace: request.namespace, repo: request.repo };
    let newest = since;
    for await (const page of client.pages<ApiReviewComment>(`repos/${request.github}/pulls/comments`, { sort: 'updated', direction: 'desc', ...(since ? { since } : {}) })) {
      await this.store.writeReviewComments(page.items.map((c) => reviewCommentRow(scope, c)).filter((r) => r !== undefined));
      for (const c of page.items) if (c.updated_at > newest) newest = c.updated_at;
    }
    await done(newest);
  }

  /** The repository's issues (the list also holds pull requests: left out), newest updated first. */
  private async issues(client: GithubClient, request: GithubSyncRequest, since: string, done: (since: string) => Promise<void>): Promise<void> {
    const scope = { namespace: request.namespace, repo: request.repo };
    let newest = since;
    for await (const page of client.pages<ApiIssue>(`repos/${request.github}/issues`, { state: 'all', sort: 'updated', direction: 'desc', ...(since ? { since } : {}) })) {
      await this.store.writeIssues(page.items.map((i) => issueRow(scope, i)).filter((r) => r !== undefined));
      for (const i of page.items) if (i.updated_at > newest) newest = i.updated_at;
    }
    await done(newest);
  }
}

/** What a paused source's reason says while the sync waits out a rate limit in its gateway. */
export const WAITS_IN_PROCESS = 'it resumes by itself';

/** The command that reruns a sync (the CLI takes a token from GITHUB_TOKEN, never from its arguments). */
export function rerunCommand(repo: string, github: string, options: { apiUrl?: string | undefined; withToken?: boolean } = {}): string {
  return `${options.withToken ? 'GITHUB_TOKEN=<token> ' : ''}loom code github ${repo} ${github}${options.apiUrl ? ` --github-api ${options.apiUrl}` : ''}`;
}

function rerun(request: GithubSyncRequest, withToken = false): string {
  return `${withToken ? 'GITHUB_TOKEN=<new token> ' : ''}loom code github ${request.repo} ${request.github}`;
}

function stopOf(error: unknown, request: GithubSyncRequest, aborted: boolean): Pick<GithubSourceRow, 'state' | 'reason' | 'resume_at'> {
  const resume = 'it resumes from its checkpoints';
  if (aborted) return { state: 'paused', reason: `the gateway stopped during the sync; run \`${rerun(request)}\` again and ${resume}`, resume_at: null };
  if (error instanceof GithubError) {
    switch (error.kind) {
      case 'unauthorized':
        return {
          state: 'paused',
          reason: `${error.message}. Give a valid token: \`${rerun(request, true)}\` (or code.github_sync's token, or LOOM_GITHUB_TOKEN on the gateway, then run it again); ${resume}`,
          resume_at: null,
        };
      case 'forbidden':
        return { state: 'paused', reason: `${error.message}. Give the token read access to Pull requests, Issues and Metadata of ${request.github}, then run \`${rerun(request, true)}\`; ${resume}`, resume_at: null };
      case 'rate_limited':
        return { state: 'paused', reason: `${error.message}. Run \`${rerun(request)}\` again after then; ${resume}`, resume_at: error.resumeAt ? formatMillis(error.resumeAt) : null };
      case 'unreachable':
        return { state: 'failed', reason: `${error.message}. Check the network or api_url, then run \`${rerun(request)}\` again; ${resume}`, resume_at: null };
      default:
        return { state: 'failed', reason: `${error.message}. Run \`${rerun(request)}\` again; ${resume}`, resume_at: null };
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return { state: 'failed', reason: `${message.slice(0, 400)}. Run \`${rerun(request)}\` again; ${resume}`, resume_at: null };
}

function checkError(error: GithubError, request: GithubSyncRequest): LoomError {
  switch (error.kind) {
    case 'unauthorized':
      return new LoomError('invalid_input', `${error.message}; give a valid token (a fine-grained token needs read access to Pull requests, Issues and Metadata)`, { fields: [{ field: 'token', message: 'GitHub refused it (401)' }] });
    case 'forbidden':
      return new LoomError('invalid_input', `${error.message}; give a token that can read ${request.github}`, { fields: [{ field: 'token', message: 'it cannot read this repository' }] });
    case 'not_found':
      return new LoomError('invalid_input', `GitHub has no repository ${request.github}, or the token cannot see it; check owner/name (and give a token for a private repository)`, { fields: [{ field: 'github', message: 'no such repository on GitHub, or not visible to the token' }] });
    case 'unreachable':
      return new LoomError('invalid_input', `${error.message}; check api_url (https://api.github.com, or https://<host>/api/v3 for GitHub Enterprise Server) and the gateway's network`, { fields: [{ field: 'api_url', message: 'GitHub\'s API could not be reached there' }] });
    default:
      return new LoomError('invalid_input', `${error.message}; check api_url: it should be GitHub's REST API`, { fields: [{ field: 'api_url', message: 'not GitHub\'s REST API' }] });
  }
}

