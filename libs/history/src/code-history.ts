import { formatMillis, type Storage } from '@loom/clickhouse';
import {
  LoomError,
  type CodeAddRequest,
  type CodeAddResponse,
  type CodeGithubSyncRequest,
  type CodeGithubSyncResponse,
  type GithubSourceView,
  type CodeListResponse,
  type HistoryBisectRequest,
  type IncidentLinkView,
  type HistoryBisectResponse,
  type HistoryDuplicateCheckRequest,
  type HistoryDuplicateCheckResponse,
  type HistoryReviewBriefRequest,
  type HistoryReviewBriefResponse,
  type HistoryLineRequest,
  type HistoryLineResponse,
  type HistoryPathRequest,
  type HistoryPathResponse,
  type HistorySymbolRequest,
  type HistorySymbolResponse,
  type RepositoryView,
} from '@loom/contracts';
import { leaseKey, withLease, type Lease, type LeaseManager } from '@loom/leases';
import type { Logger } from '@loom/platform';
import type { LlmProvider } from '@loom/providers';
import { HistoryInsights } from './insights/history-insights';
import { attachIncidents, type IncidentSource } from './insights/incidents';
import { ReviewBriefs } from './insights/review-brief';
import { basename, resolve } from 'node:path';
import { CodeIngest } from './ingest/code-ingest';
import type { GithubSourceRow } from './github/github-rows';
import { allowedApis, apiBase } from './github/api-urls';
import { GithubStore } from './github/github-store';
import { GithubSync, rerunCommand, WAITS_IN_PROCESS, type GithubSyncRequest } from './github/github-sync';
import { HistoryQueries } from './queries/history-queries';
import type { RepositoryRow } from './store/history-rows';
import { RepositoryStore } from './store/repository-store';
import { SymbolIndex } from './symbols/symbol-index';

export interface CodeHistoryOptions {
  /** LOOM_CODE_INGEST_ENABLED. */
  enabled: boolean;
  logger?: Logger;
  /** Condenses review briefs; without one (or with the fake one) the builder writes them. */
  llm?: LlmProvider;
  /** LOOM_GITHUB_TOKEN: used when code.github_sync gives no token, and only towards githubApiUrl. */
  githubToken?: string;
  /** LOOM_GITHUB_API_URL (default https://api.github.com). */
  githubApiUrl?: string;
  /** LOOM_GITHUB_API_URLS: the other APIs an op's api_url may name; any else answers 400 (ADR 0031). */
  githubApiUrls?: readonly string[];
  /** The longest rate-limit wait a GitHub sync takes in process (default 65 min). */
  githubMaxWaitMs?: number;
  /** The runs that named each PR on completion (the runs plane's answer); history answers link to them. */
  runsNamingPullRequests?: (namespace: string, repository: string, numbers: readonly number[]) => Promise<Map<number, string[]>>;
  /** The tracker plane's incidents (PRHIST-02): history answers carry those naming their commits and PRs. */
  incidents?: IncidentSource;
}

const GITHUB_API = 'https://api.github.com';

const OFF = 'code history is off: set LOOM_CODE_INGEST_ENABLED=true on the gateway, then add a repository with `loom code add <path>`';

/**
 * The code-history plane behind its switch (PRHIST-01, PRHIST-04): `code.add` starts an ingest
 * that runs in this process under a lease (one ingest per repository across gateways) and
 * answers at once with the repository's state; `code.list` shows progress; history.* read the
 * index. Off, every op answers 501 saying how to turn it on.
 */
export class CodeHistory {
  private readonly symbols = new SymbolIndex();
  private readonly ingest: CodeIngest;
  private readonly queries: HistoryQueries;
  private readonly repositories: RepositoryStore;
  private readonly insights: HistoryInsights;
  private readonly reviews: ReviewBriefs;
  private readonly running = new Map<string, { started: Promise<void>; done: Promise<void> }>();
  private readonly github: GithubStore;
  private readonly githubSync: GithubSync;
  /** Aborts GitHub syncs (and their rate-limit waits) when the gateway closes. */
  private readonly closing = new AbortController();

  constructor(
    storage: Storage,
    private readonly leases: LeaseManager,
    private readonly options: CodeHistoryOptions,
  ) {
    this.ingest = new CodeIngest(storage, this.symbols);
    this.github = new GithubStore(storage);
    this.githubSync = new GithubSync(this.github, options.logger);
    this.queries = new HistoryQueries(storage, this.github);
    this.repositories = new RepositoryStore(storage);
    this.insights = new HistoryInsights(storage, this.queries, this.github, options.incidents);
    this.reviews = new ReviewBriefs(storage, this.queries, options.llm, this.github);
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  async add(namespace: string, input: CodeAddRequest): Promise<CodeAddResponse> {
    this.requireOn();
    const path = resolve(input.path);
    const name = input.name ?? defaultName(path);
    const request = { namespace, name, path, ...(input.ref === undefined ? {} : { ref: input.ref }) };
    // Errors a caller can fix (not a repository, unknown ref) answer now, before any work.
    await this.ingest.resolve(request);
    const key = `${namespace}\u0000${name}`;
    let job = this.running.get(key);
    if (!job) {
      const started = new Deferred();
      const done = this.runUnderLease(request, started).finally(() => {
        started.resolve();
        this.running.delete(key);
      });
      job = { started: started.promise, done };
      this.running.set(key, job);
    }
    // Answer once the job has stored its state (ingesting, with the total), or when it is done.
    await (input.wait ? job.done : job.started);
    // No state yet: another gateway holds the ingest and has not stored its first state.
    const row = (await this.repositories.get(namespace, name)) ?? startingRow(request);
    return { repository: view(row, await this.github.source(namespace, name), this.defaultApi()) };
  }

  /**
   * Starts (or reruns) the GitHub source of an added repository. What a caller can fix (the API's
   * URL, the repository's name, the token) answers now as a 400 naming the field; the sync then
   * runs here under a lease and answers once its state is stored (or when done, with `wait`).
   */
  async syncGithub(namespace: string, input: CodeGithubSyncRequest): Promise<CodeGithubSyncResponse> {
    this.requireOn();
    const configApi = this.defaultApi();
    // Before anything is asked of any server: only the APIs the operator allowed are called.
    const apiUrl = input.api_url === undefined ? configApi : this.allowedApi(input.api_url);
    await this.queries.repository(namespace, input.repository);
    // The deployment's token goes to the deployment's API only: an op naming another server must bring its own.
    const configToken = apiUrl === configApi ? this.options.githubToken : undefined;
    const token = input.token ?? configToken;
    const request: GithubSyncRequest = { namespace, repo: input.repository, github: input.github, apiUrl, token, tokenSource: input.token ? 'request' : configToken ? 'config' : 'none' };
    await this.githubSync.check(request);
    const key = `github\u0000${namespace}\u0000${input.repository}`;
    let job = this.running.get(key);
    if (!job) {
      const started = new Deferred();
      const log = this.options.logger;
      const done = withLease(this.leases, leaseKey('github-sync', namespace, input.repository), () =>
        this.githubSync.run(request, { signal: this.closing.signal, maxWaitMs: this.options.githubMaxWaitMs, onState: () => started.resolve() }),
      )
        .then((outcome) => {
          if (!outcome.acquired) log?.info({ repository: input.repository }, `github sync ${input.repository} already runs elsewhere; not started twice`);
        })
        .catch((error: unknown) => {
          log?.error({ err: error, repository: input.repository }, `github sync ${input.repository} failed; run \`loom code github\` again to resume from its checkpoints`);
        })
        .finally(() => {
          started.resolve();
          this.running.delete(key);
        });
      job = { started: started.promise, done };
      this.running.set(key, job);
    }
    await (input.wait ? job.done : job.started);
    const source = await this.github.source(namespace, input.repository);
    if (!source) throw new LoomError('internal', `the GitHub sync of "${input.repository}" stored no state`);
    return { repository: input.repository, source: githubView(source, this.defaultApi()) };
  }

  async list(namespace: string): Promise<CodeListResponse> {
    if (!this.options.enabled) return { enabled: false, repositories: [] };
    const [rows, sources] = await Promise.all([this.repositories.list(namespace), this.github.sources(namespace)]);
    const repositories = await Promise.all(
      rows.map(async (r) => {
        const [row, source] = await Promise.all([this.honestRepository(r), this.honestSource(sources.get(r.name))]);
        return view(row, source, this.defaultApi());
      }),
    );
    return { enabled: true, repositories };
  }

  /**
   * A stored `ingesting` that nobody runs any more says `interrupted` (ADR 0031): neither this
   * process nor any other holds the ingest's lease (the gateway that held it was killed and its
   * lease lapsed). Asked again after the lease check, so an ingest that just finished is not
   * called interrupted. When the leases cannot be asked, the stored state stands.
   */
  private async honestRepository(row: RepositoryRow): Promise<RepositoryRow> {
    if (row.state !== 'ingesting' || this.running.has(`${row.namespace}\u0000${row.name}`)) return row;
    if (await this.leases.isHeld(leaseKey('code-ingest', row.namespace, row.name)).catch(() => true)) return row;
    const now = await this.repositories.get(row.namespace, row.name);
    return now?.state === 'ingesting' ? { ...now, state: 'interrupted' } : (now ?? row);
  }

  /** The same for a GitHub sync: stored as running (or waiting out a rate limit in process), but its lease is free. */
  private async honestSource(source: GithubSourceRow | undefined): Promise<GithubSourceRow | undefined> {
    if (!source || !runsInProcess(source) || this.running.has(`github\u0000${source.namespace}\u0000${source.repo}`)) return source;
    if (await this.leases.isHeld(leaseKey('github-sync', source.namespace, source.repo)).catch(() => true)) return source;
    const now = await this.github.source(source.namespace, source.repo);
    if (!now || !runsInProcess(now)) return now ?? source;
    const command = githubResume(now, this.defaultApi());
    return {
      ...now,
      state: 'interrupted',
      resume_at: null,
      reason: `the sync stopped when the gateway running it stopped (no gateway holds its lease), and nobody resumed it; run \`${command}\` and it resumes from its checkpoints${now.token_source === 'request' ? ' (the token is never stored: give it again)' : ''}`,
    };
  }

  private defaultApi(): string {
    return apiBase(this.options.githubApiUrl ?? GITHUB_API) ?? GITHUB_API;
  }

  /** The op's api_url when the deployment allows it (LOOM_GITHUB_API_URL, LOOM_GITHUB_API_URLS); a 400 naming api_url otherwise. */
  private allowedApi(given: string): string {
    const allowed = allowedApis(this.defaultApi(), this.options.githubApiUrls);
    const base = apiBase(given);
    if (base !== undefined && allowed.includes(base)) return base;
    throw new LoomError(
      'invalid_input',
      `api_url is not a GitHub API this deployment calls (it calls ${allowed.join(', ')}); to sync from a GitHub Enterprise Server, an operator adds its API (https://<host>/api/v3) to LOOM_GITHUB_API_URLS on the gateways (comma-separated) and restarts them`,
      { fields: [{ field: 'api_url', message: 'not an allowed GitHub API: an operator adds it to LOOM_GITHUB_API_URLS' }] },
    );
  }

  async path(namespace: string, input: HistoryPathRequest): Promise<HistoryPathResponse> {
    this.requireOn();
    const answer = await this.queries.path(namespace, input);
    answer.incidents_reason = await this.annotate(namespace, input.repository, answer.changes);
    return answer;
  }

  async symbol(namespace: string, input: HistorySymbolRequest): Promise<HistorySymbolResponse> {
    this.requireOn();
    const answer = await this.queries.symbol(namespace, input);
    answer.incidents_reason = await this.annotate(namespace, input.repository, answer.changes);
    return answer;
  }

  async line(namespace: string, input: HistoryLineRequest): Promise<HistoryLineResponse> {
    this.requireOn();
    const answer = await this.queries.line(namespace, input);
    answer.incidents_reason = await this.annotate(namespace, input.repository, answer.changes);
    return answer;
  }

  async duplicateCheck(namespace: string, input: HistoryDuplicateCheckRequest): Promise<HistoryDuplicateCheckResponse> {
    this.requireOn();
    const answer = await this.insights.duplicateCheck(namespace, input);
    answer.incidents_reason = await this.annotate(namespace, input.repository, answer.candidates);
    return answer;
  }

  async bisect(namespace: string, input: HistoryBisectRequest): Promise<HistoryBisectResponse> {
    this.requireOn();
    const answer = await this.insights.bisect(namespace, input);
    await this.linkRuns(namespace, input.repository, answer.candidates);
    return answer;
  }

  async reviewBrief(namespace: string, input: HistoryReviewBriefRequest): Promise<HistoryReviewBriefResponse> {
    this.requireOn();
    const brief = await this.reviews.brief(namespace, input);
    brief.incidents_reason = await this.annotate(namespace, input.repository, [brief]);
    return brief;
  }

  /** Fills each item's `runs` and `incidents` (two reads, side by side); answers why no incidents were read, or null. */
  private async annotate(namespace: string, repository: string, items: { sha: string; pr_number: number | null; runs: string[]; incidents: IncidentLinkView[] }[]): Promise<string | null> {
    const [, reason] = await Promise.all([
      this.linkRuns(namespace, repository, items),
      // An incident may name the repository by its GitHub owner/repo: read only when a PR is to be matched.
      attachIncidents(this.options.incidents, namespace, { name: repository, github: async () => (await this.github.source(namespace, repository))?.github || null }, items),
    ]);
    return reason;
  }

  /** Fills each answer's `runs`: the runs that named its PR (issue 13: runs name the PRs they wrote). */
  private async linkRuns(namespace: string, repository: string, items: { pr_number: number | null; runs: string[] }[]): Promise<void> {
    const lookup = this.options.runsNamingPullRequests;
    const numbers = items.map((i) => i.pr_number).filter((n): n is number => n !== null);
    if (!lookup || numbers.length === 0) return;
    const runs = await lookup(namespace, repository, numbers);
    for (const item of items) if (item.pr_number !== null) item.runs = runs.get(item.pr_number) ?? [];
  }

  /** Waits for the ingests this process runs (their checkpoints make a later rerun cheap). */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.running.values()].map((j) => j.done));
    await this.symbols.close();
  }

  private async runUnderLease(request: { namespace: string; name: string; path: string; ref?: string }, started: Deferred): Promise<void> {
    const log = this.options.logger;
    const key = leaseKey('code-ingest', request.namespace, request.name);
    const work = (lease: Lease) =>
      this.ingest.run(request, {
        signal: lease.signal,
        onProgress: (r) => {
          started.resolve();
          log?.info({ repository: r.name, namespace: r.namespace, commits: r.commits, total: r.commits_total, state: r.state }, `code ingest ${r.name}: ${r.commits}/${r.commits_total} commits (${r.state})`);
        },
      });
    const failed = (error: unknown): undefined => {
      log?.error({ err: error, repository: request.name }, `code ingest ${request.name} failed; run \`loom code add\` again to resume from its last checkpoint`);
      return undefined;
    };
    let outcome = await withLease(this.leases, key, work).catch(failed);
    if (outcome && !outcome.acquired) {
      // Another process holds the ingest: it runs there now, or it died mid-ingest and its lease
      // lapses within the TTL. Answer with the stored state now, and take the work over once the
      // lease is free: the run resumes from the checkpoint, or finds nothing new to do.
      log?.info({ repository: request.name }, `code ingest ${request.name} already runs elsewhere; this gateway takes it over if that one stops`);
      started.resolve();
      outcome = await withLease(this.leases, key, work, { waitMs: this.leases.ttlMs + 5_000, pollMs: 500 }).catch(failed);
      if (outcome && !outcome.acquired) log?.info({ repository: request.name }, `code ingest ${request.name} still runs elsewhere; not started twice`);
    }
  }

  private requireOn(): void {
    if (!this.options.enabled) throw new LoomError('not_configured', OFF);
  }
}

function defaultName(path: string): string {
  const name = basename(path).replace(/\.git$/, '').replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return name.slice(0, 128) || 'repository';
}

function startingRow(request: { namespace: string; name: string; path: string; ref?: string }): RepositoryRow {
  const now = formatMillis();
  return { ...request, ref: request.ref ?? 'HEAD', state: 'ingesting', error: '', last_sha: '', commits: 0, commits_total: 0, started_at: now, updated_at: now };
}

function view(row: RepositoryRow, github: GithubSourceRow | undefined, defaultApi: string): RepositoryView {
  const resume = row.state === 'failed' || row.state === 'interrupted' ? addCommand(row) : null;
  const error =
    row.state === 'interrupted'
      ? `the ingest stopped at ${Number(row.commits)}/${Number(row.commits_total)} commits when the gateway running it stopped (no gateway holds its lease), and nobody resumed it; run \`${resume}\` on a machine that has the clone, and it resumes from the checkpoint`
      : row.error;
  return {
    name: row.name,
    path: row.path,
    ref: row.ref,
    state: row.state,
    error: error === '' ? null : error,
    resume,
    commits_indexed: Number(row.commits),
    commits_total: Number(row.commits_total),
    head: row.last_sha === '' ? null : row.last_sha,
    updated_at: iso(row.updated_at),
    github: github ? githubView(github, defaultApi) : null,
  };
}

function githubView(row: GithubSourceRow, defaultApi: string): GithubSourceView {
  const waiting = row.state === 'syncing' || row.state === 'ready' || runsInProcess(row);
  return {
    github: row.github,
    api_url: row.api_url,
    state: row.state,
    reason: row.reason === '' ? null : row.reason,
    resume: waiting ? null : githubResume(row, defaultApi),
    resume_at: row.resume_at ? iso(row.resume_at) : null,
    token: row.token_source,
    pull_requests: row.pull_requests,
    review_comments: row.review_comments,
    issues: row.issues,
    requests: row.requests,
    synced_at: row.synced_at ? iso(row.synced_at) : null,
    updated_at: iso(row.updated_at),
  };
}

/** Stored as running in some gateway: syncing, or paused on a rate-limit wait taken in process. */
function runsInProcess(row: GithubSourceRow): boolean {
  return row.state === 'syncing' || (row.state === 'paused' && row.reason.includes(WAITS_IN_PROCESS));
}

/** `loom code add` again, as the CLI takes it: the clone's path, the name and the ref. */
function addCommand(row: RepositoryRow): string {
  return `loom code add ${shellWord(row.path)} --name ${shellWord(row.name)}${row.ref && row.ref !== 'HEAD' ? ` --ref ${shellWord(row.ref)}` : ''}`;
}

function githubResume(row: GithubSourceRow, defaultApi: string): string {
  return rerunCommand(row.repo, row.github, { apiUrl: row.api_url === defaultApi ? undefined : row.api_url, withToken: row.token_source === 'request' });
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function iso(value: string): string {
  return new Date(`${String(value).replace(' ', 'T')}Z`).toISOString();
}

class Deferred {
  resolve: () => void = () => undefined;
  readonly promise = new Promise<void>((resolve) => (this.resolve = resolve));
}
