import { formatMillis, toIso, type Storage } from '@loom/clickhouse';
import { LoomError, type RunBeginRequest, type RunCompleteRequest, type RunResponse, type RunStatus, type RunView } from '@loom/contracts';
import { newId, nextVersion } from '@loom/platform';

interface RunRow {
  namespace: string;
  run_id: string;
  agent: string;
  goal: string;
  status: RunStatus;
  outcome: string;
  memories_used: string[];
  wrote: string[];
  source: 'api' | 'mcp';
  started_at: string;
  last_activity_at: string;
  ended_at: string | null;
}

const COLUMNS = 'namespace, run_id, agent, goal, status, outcome, memories_used, wrote, source, started_at, last_activity_at, ended_at';

/** The run ledger: run.begin, run.complete, run.get, and the implicit runs of MCP sessions. */
export class RunsService {
  constructor(private readonly storage: Storage) {}

  async begin(namespace: string, agent: string, input: Pick<RunBeginRequest, 'goal' | 'run_id'>, source: 'api' | 'mcp' = 'api'): Promise<RunResponse> {
    const runId = input.run_id ?? newId('run_');
    if (input.run_id && (await this.read(namespace, runId))) throw new LoomError('conflict', `run "${runId}" already exists; complete it or begin another`);
    const now = formatMillis();
    const row: RunRow = { namespace, run_id: runId, agent, goal: input.goal, status: 'running', outcome: '', memories_used: [], wrote: [], source, started_at: now, last_activity_at: now, ended_at: null };
    await this.write(row);
    return { run: view(row) };
  }

  async complete(namespace: string, input: RunCompleteRequest): Promise<RunResponse> {
    const row = await this.require(namespace, input.run_id);
    if (row.status !== 'running') throw new LoomError('conflict', `run "${input.run_id}" is already ${row.status}`);
    const now = formatMillis();
    const done: RunRow = {
      ...row,
      status: input.status,
      outcome: input.outcome ?? '',
      memories_used: input.memories_used ?? row.memories_used,
      wrote: input.wrote ?? row.wrote,
      last_activity_at: now,
      ended_at: now,
    };
    await this.write(done);
    return { run: view(done) };
  }

  async get(namespace: string, runId: string): Promise<RunResponse> {
    return { run: view(await this.require(namespace, runId)) };
  }

  /** A call in an MCP session: its implicit run stays open. */
  async touch(namespace: string, runId: string): Promise<void> {
    const row = await this.read(namespace, runId);
    if (row && row.status === 'running') await this.write({ ...row, last_activity_at: formatMillis() });
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
    for (const row of rows) await this.write({ ...row, status: 'idle_closed', ended_at: ended });
    return rows.length;
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

  private async write(row: RunRow): Promise<void> {
    await this.storage.insert(this.storage.tables.runs, [{ ...row, version: nextVersion() }]);
  }
}

function view(row: RunRow): RunView {
  return {
    run_id: row.run_id,
    agent: row.agent,
    goal: row.goal,
    status: row.status,
    outcome: row.outcome || null,
    memories_used: row.memories_used,
    wrote: row.wrote,
    source: row.source,
    started_at: toIso(row.started_at)!,
    last_activity_at: toIso(row.last_activity_at)!,
    ended_at: toIso(row.ended_at),
  };
}
