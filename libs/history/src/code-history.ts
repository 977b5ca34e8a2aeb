import { formatMillis, type Storage } from '@loom/clickhouse';
import {
  LoomError,
  type CodeAddRequest,
  type CodeAddResponse,
  type CodeListResponse,
  type HistoryBisectRequest,
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
import { ReviewBriefs } from './insights/review-brief';
import { basename, resolve } from 'node:path';
import { CodeIngest } from './ingest/code-ingest';
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
  /** The runs that named each PR on completion (the runs plane's answer); history answers link to them. */
  runsNamingPullRequests?: (namespace: string, repository: string, numbers: readonly number[]) => Promise<Map<number, string[]>>;
}

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

  constructor(
    storage: Storage,
    private readonly leases: LeaseManager,
    private readonly options: CodeHistoryOptions,
  ) {
    this.ingest = new CodeIngest(storage, this.symbols);
    this.queries = new HistoryQueries(storage);
    this.repositories = new RepositoryStore(storage);
    this.insights = new HistoryInsights(storage, this.queries);
    this.reviews = new ReviewBriefs(storage, this.queries, options.llm);
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
    return { repository: view(row) };
  }

  async list(namespace: string): Promise<CodeListResponse> {
    if (!this.options.enabled) return { enabled: false, repositories: [] };
    return { enabled: true, repositories: (await this.repositories.list(namespace)).map(view) };
  }

  async path(namespace: string, input: HistoryPathRequest): Promise<HistoryPathResponse> {
    this.requireOn();
    const answer = await this.queries.path(namespace, input);
    await this.linkRuns(namespace, input.repository, answer.changes);
    return answer;
  }

  async symbol(namespace: string, input: HistorySymbolRequest): Promise<HistorySymbolResponse> {
    this.requireOn();
    const answer = await this.queries.symbol(namespace, input);
    await this.linkRuns(namespace, input.repository, answer.changes);
    return answer;
  }

  async line(namespace: string, input: HistoryLineRequest): Promise<HistoryLineResponse> {
    this.requireOn();
    const answer = await this.queries.line(namespace, input);
    await this.linkRuns(namespace, input.repository, answer.changes);
    return answer;
  }

  async duplicateCheck(namespace: string, input: HistoryDuplicateCheckRequest): Promise<HistoryDuplicateCheckResponse> {
    this.requireOn();
    const answer = await this.insights.duplicateCheck(namespace, input);
    await this.linkRuns(namespace, input.repository, answer.candidates);
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
    await this.linkRuns(namespace, input.repository, [brief]);
    return brief;
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

function view(row: RepositoryRow): RepositoryView {
  return {
    name: row.name,
    path: row.path,
    ref: row.ref,
    state: row.state,
    error: row.error === '' ? null : row.error,
    commits_indexed: Number(row.commits),
    commits_total: Number(row.commits_total),
    head: row.last_sha === '' ? null : row.last_sha,
    updated_at: new Date(`${String(row.updated_at).replace(' ', 'T')}Z`).toISOString(),
  };
}

class Deferred {
  resolve: () => void = () => undefined;
  readonly promise = new Promise<void>((resolve) => (this.resolve = resolve));
}
