import { Conditions, formatMillis, toIso, type Storage } from '@loom/clickhouse';
import {
  ALL_AGENTS,
  LoomError,
  type RunBeginRequest,
  type RunCompleteRequest,
  type RunListRequest,
  type RunListResponse,
  type RunModelCost,
  type RunReportUsageRequest,
  type RunReportUsageResponse,
  type RunResponse,
  type RunSource,
  type RunView,
} from '@loom/contracts';
import { leaseKey, withLease, type LeaseManager } from '@loom/leases';
import { newId, nextVersion } from '@loom/platform';
import { ModelPrices } from '@loom/providers';
import { costsOf, sumCosts, type UsageSumRow } from './run-cost';

/** A runs row: the view's fields as stored (an empty outcome, engine timestamps), with its namespace. */
interface RunRow extends Omit<RunView, 'outcome' | 'model_cost' | 'pull_requests'> {
  namespace: string;
  outcome: string;
  /** The pull requests named on completion, as parallel arrays ('' for a part not given). */
  pr_numbers: number[];
  pr_repositories: string[];
  pr_urls: string[];
}

const COLUMNS = 'namespace, run_id, agent, goal, status, outcome, memories_used, wrote, pr_numbers, pr_repositories, pr_urls, source, started_at, last_activity_at, ended_at';

/** How long a run's writer waits for another one on the same run. */
const RUN_LEASE_WAIT_MS = 30_000;

/**
 * The run ledger: run.begin, run.complete, run.get, run.list, the implicit runs of MCP sessions,
 * and the model usage clients report (run.report_usage), priced on arrival. Every read-then-write
 * of one run row (begin with a client's id, the begin of a first usage report, complete, touch)
 * holds the run's lease, so racing callers see each other's writes: one begins, one completes.
 */
export class RunsService {
  constructor(
    private readonly storage: Storage,
    private readonly leases: LeaseManager,
    private readonly prices: ModelPrices = new ModelPrices(),
  ) {}

  private async withRun<T>(namespace: string, runId: string, work: () => Promise<T>): Promise<T> {
    const outcome = await withLease(this.leases, leaseKey('run', namespace, runId), work, { waitMs: RUN_LEASE_WAIT_MS, pollMs: 10 });
    if (!outcome.acquired) throw new LoomError('unavailable', `run "${runId}" stayed busy for ${RUN_LEASE_WAIT_MS} ms (another write holds it); retry`);
    return outcome.value;
  }

  async begin(namespace: string, agent: string, input: Pick<RunBeginRequest, 'goal' | 'run_id'>, source: RunSource = 'api'): Promise<RunResponse> {
    const runId = input.run_id ?? newId('run_');
    const write = async (): Promise<RunResponse> => {
      if (input.run_id && (await this.read(namespace, runId))) throw new LoomError('conflict', `run "${runId}" already exists; complete it or begin another`);
      const row = newRun(namespace, runId, agent, input.goal, source);
      await this.write(row);
      return { run: view(row, null) };
    };
    // A generated id is new by construction; a client's may race another begin of the same id.
    return input.run_id ? this.withRun(namespace, runId, write) : write();
  }

  /**
   * Records model calls against a run, priced at today's prices. A report whose usage_id the
   * run already has replaces it (a client that sends a session's usage again adds nothing).
   * Reports are taken whatever the run's status: a call made before the run ended may be
   * reported after. An unknown run is begun (source `capture`) when the caller gives a goal.
   */
  async reportUsage(namespace: string, agent: string, input: RunReportUsageRequest): Promise<RunReportUsageResponse> {
    // Under the run's lease: of first reports racing on a new run, exactly one begins it.
    const began = await this.withRun(namespace, input.run_id, async () => {
      if (await this.read(namespace, input.run_id)) return false;
      if (input.goal === undefined) throw new LoomError('not_found', `no run "${input.run_id}" in namespace "${namespace}"; begin it with run.begin, or pass goal to begin it with this report`);
      await this.write(newRun(namespace, input.run_id, agent, input.goal, 'capture'));
      return true;
    });
    const now = formatMillis();
    // One row per call id within the request too: the last report of an id wins.
    const byId = new Map(input.reports.map((r) => [r.usage_id, r]));
    const rows = [...byId.values()].map((r) => ({
      namespace,
      run_id: input.run_id,
      usage_id: r.usage_id,
      model: r.model,
      ts: r.ts ? formatMillis(new Date(r.ts)) : now,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
      cache_write_tokens: r.cache_write_tokens ?? 0,
      cache_write_1h_tokens: r.cache_write_1h_tokens ?? 0,
      cache_read_tokens: r.cache_read_tokens ?? 0,
      cost_usd: this.prices.costOf(r) ?? null,
      version: nextVersion(),
    }));
    await this.storage.insert(this.storage.tables.runUsage, rows);
    const cost = (await this.costs(namespace, [input.run_id])).get(input.run_id)!;
    return { run_id: input.run_id, accepted: input.reports.length, began, model_cost: cost };
  }

  /** Runs newest first, with their model cost and the cost of the page. */
  async list(namespace: string, agent: string, input: RunListRequest): Promise<RunListResponse> {
    const where = new Conditions('namespace = {ns:String}', { ns: namespace, limit: input.limit ?? 20, offset: input.offset ?? 0 })
      .when(agent === ALL_AGENTS ? undefined : agent, 'agent = {agent:String}', 'agent')
      .when(input.status, 'status = {status:String}', 'status')
      .when(input.since === undefined ? undefined : formatMillis(new Date(input.since)), "started_at >= {since:DateTime64(3, 'UTC')}", 'since')
      .when(input.pull_request, 'has(pr_numbers, {pr:UInt32})', 'pr')
      .when(input.pull_request === undefined ? undefined : input.repository, "arrayExists((n, r) -> n = {pr:UInt32} AND r IN ('', {repository:String}), pr_numbers, pr_repositories)", 'repository');
    const rows = await this.storage.query<RunRow>(
      `SELECT ${COLUMNS} FROM ${this.storage.tables.runs} FINAL
       WHERE ${where}
       ORDER BY started_at DESC, run_id
       LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      where.params,
    );
    const costs = await this.costs(namespace, rows.map((r) => r.run_id));
    const priced = [...costs.values()];
    return { runs: rows.map((r) => view(r, costs.get(r.run_id) ?? null)), model_cost: priced.length > 0 ? sumCosts(priced) : null };
  }

  async complete(namespace: string, input: RunCompleteRequest): Promise<RunResponse> {
    return this.withRun(namespace, input.run_id, () => this.completeHeld(namespace, input));
  }

  private async completeHeld(namespace: string, input: RunCompleteRequest): Promise<RunResponse> {
    const row = await this.require(namespace, input.run_id);
    if (row.status !== 'running') throw new LoomError('conflict', `run "${input.run_id}" is already ${row.status}`);
    const now = formatMillis();
    const done: RunRow = {
      ...row,
      status: input.status,
      outcome: input.outcome ?? '',
      memories_used: input.memories_used ?? row.memories_used,
      wrote: input.wrote ?? row.wrote,
      ...(input.pull_requests === undefined
        ? {}
        : {
            pr_numbers: input.pull_requests.map((p) => p.number),
            pr_repositories: input.pull_requests.map((p) => p.repository ?? ''),
            pr_urls: input.pull_requests.map((p) => p.url ?? ''),
          }),
      last_activity_at: now,
      ended_at: now,
    };
    await this.write(done);
    return { run: view(done, (await this.costs(namespace, [input.run_id])).get(input.run_id) ?? null) };
  }

  async get(namespace: string, runId: string): Promise<RunResponse> {
    const row = await this.require(namespace, runId);
    return { run: view(row, (await this.costs(namespace, [runId])).get(runId) ?? null) };
  }

  /**
   * The runs that named each of these PRs on completion, oldest first: in `repository`, or
   * naming no repository. What history answers link a PR back to.
   */
  async runsNamingPullRequests(namespace: string, repository: string, numbers: readonly number[]): Promise<Map<number, string[]>> {
    const wanted = [...new Set(numbers.filter((n) => n > 0))];
    if (wanted.length === 0) return new Map();
    const rows = await this.storage.query<{ run_id: string; pr: number }>(
      `SELECT run_id, pr FROM (
         SELECT run_id, started_at, arrayJoin(arrayFilter((n, r) -> has({prs:Array(UInt32)}, n) AND r IN ('', {repository:String}), pr_numbers, pr_repositories)) AS pr
         FROM ${this.storage.tables.runs} FINAL
         WHERE namespace = {ns:String} AND hasAny(pr_numbers, {prs:Array(UInt32)}))
       ORDER BY started_at, run_id`,
      { ns: namespace, repository, prs: wanted },
    );
    const byPr = new Map<number, string[]>();
    for (const row of rows) {
      const list = byPr.get(Number(row.pr)) ?? [];
      if (!list.includes(row.run_id)) list.push(row.run_id);
      byPr.set(Number(row.pr), list);
    }
    return byPr;
  }

  /** A call in an MCP session: its implicit run stays open. */
  async touch(namespace: string, runId: string): Promise<void> {
    // Held, so a touch that read a running run never writes it back over a completion.
    await this.withRun(namespace, runId, async () => {
      const row = await this.read(namespace, runId);
      if (row && row.status === 'running') await this.write({ ...row, last_activity_at: formatMillis() });
    });
  }

  /** Closes running MCP runs with no call for `idleSeconds`; answers how many. */
  async closeIdle(idleSeconds: number, now = new Date()): Promise<number> {
    const cutoff = formatMillis(new Date(now.getTime() - idleSeconds * 1000));
    const rows = await this.storage.query<RunRow>(
      `SELECT ${COLUMNS} FROM ${this.storage.tables.runs} FINAL
       WHERE source = 'mcp' AND status = 'running' AND last_activity_at < {cutoff:DateTime64(3, 'UTC')}`,
      { cutoff },
    );
    const ended = formatMillis(now);
    let closed = 0;
    for (const row of rows) {
      // Re-read under the lease: a completion or a call since the scan wins over the sweep.
      closed += await this.withRun(row.namespace, row.run_id, async () => {
        const current = await this.read(row.namespace, row.run_id);
        if (!current || current.status !== 'running' || current.last_activity_at >= cutoff) return 0;
        await this.write({ ...current, status: 'idle_closed', ended_at: ended });
        return 1;
      });
    }
    return closed;
  }

  private async require(namespace: string, runId: string): Promise<RunRow> {
    const row = await this.read(namespace, runId);
    if (!row) throw new LoomError('not_found', `no run "${runId}" in namespace "${namespace}"`);
    return row;
  }

  private async read(namespace: string, runId: string): Promise<RunRow | undefined> {
    const rows = await this.storage.query<RunRow>(
      `SELECT ${COLUMNS} FROM ${this.storage.tables.runs} FINAL WHERE namespace = {ns:String} AND run_id = {run:String}`,
      { ns: namespace, run: runId },
    );
    return rows[0];
  }

  /** The model cost of each run that has usage reports; runs with none are absent. */
  private async costs(namespace: string, runIds: readonly string[]): Promise<Map<string, RunModelCost>> {
    if (runIds.length === 0) return new Map();
    const rows = await this.storage.query<UsageSumRow & { run_id: string }>(
      `SELECT run_id, model, count() AS reports, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
              sum(cache_write_tokens) AS cache_write_tokens, sum(cache_write_1h_tokens) AS cache_write_1h_tokens,
              sum(cache_read_tokens) AS cache_read_tokens, countIf(cost_usd IS NOT NULL) AS priced, sum(ifNull(cost_usd, 0)) AS cost_sum
       FROM ${this.storage.tables.runUsage} FINAL
       WHERE namespace = {ns:String} AND run_id IN {runs:Array(String)}
       GROUP BY run_id, model
       ORDER BY run_id, model`,
      { ns: namespace, runs: runIds },
    );
    return costsOf(rows);
  }

  private async write(row: RunRow): Promise<void> {
    await this.storage.insert(this.storage.tables.runs, [{ ...row, version: nextVersion() }]);
  }
}

function newRun(namespace: string, runId: string, agent: string, goal: string, source: RunSource): RunRow {
  const now = formatMillis();
  return { namespace, run_id: runId, agent, goal, status: 'running', outcome: '', memories_used: [], wrote: [], pr_numbers: [], pr_repositories: [], pr_urls: [], source, started_at: now, last_activity_at: now, ended_at: null };
}

function view(row: RunRow, modelCost: RunModelCost | null): RunView {
  return {
    run_id: row.run_id,
    agent: row.agent,
    goal: row.goal,
    status: row.status,
    outcome: row.outcome || null,
    memories_used: row.memories_used,
    wrote: row.wrote,
    pull_requests: row.pr_numbers.map((number, i) => ({ number: Number(number), repository: row.pr_repositories[i] || null, url: row.pr_urls[i] || null })),
    source: row.source,
    started_at: toIso(row.started_at)!,
    last_activity_at: toIso(row.last_activity_at)!,
    ended_at: toIso(row.ended_at),
    model_cost: modelCost,
  };
}
