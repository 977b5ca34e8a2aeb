import { Conditions, formatMillis, toIso, type Storage } from '@loom/clickhouse';
import {
  ALL_AGENTS,
  LoomError,
  type ObservationOutcome,
  type ObservationView,
  type ObserveCrystallizeRequest,
  type ObserveCrystallizeResponse,
  type ObserveListRequest,
  type ObserveListResponse,
  type ObserveRecordRequest,
  type ObserveRecordResponse,
} from '@loom/contracts';
import { leaseKey, withLease, type LeaseManager } from '@loom/leases';
import { nextVersion } from '@loom/platform';
import { readsAsHigh } from '@loom/sensitivity';
import type { MemoryService } from './memory.service';

interface ObservationRow {
  namespace: string;
  session_id: string;
  obs_id: string;
  agent: string;
  user_id: string;
  tool: string;
  summary: string;
  path: string;
  outcome: ObservationOutcome;
  ts: string;
  crystallized_at: string | null;
}

const COLUMNS = 'namespace, session_id, obs_id, agent, user_id, tool, summary, path, outcome, ts, crystallized_at';
/** Observations per message handed to extraction: a readable list, well inside a model's window. */
const PER_MESSAGE = 40;
/** Most observations one crystallization reads; a longer session is crystallized in turns. */
const PER_CRYSTALLIZATION = 2_000;

/**
 * Episodic observations (CAPTURE-08): the tool actions of a session, recorded by the capture
 * clients through observe.record, read back by observe.list and context.pack, and turned into
 * memories by observe.crystallize, which hands the new ones to memory extraction. Like memory
 * evidence, they are kept whether or not the namespace records conversations; a summary or path
 * that reads as high is never stored.
 */
export class ObservationsService {
  constructor(
    private readonly storage: Storage,
    private readonly memory: MemoryService,
    private readonly leases: LeaseManager,
  ) {}

  async record(namespace: string, agent: string, input: ObserveRecordRequest): Promise<ObserveRecordResponse> {
    const byId = new Map(input.observations.map((o) => [o.obs_id, o]));
    const plain = [...byId.values()].filter((o) => !readsAsHigh(o.summary) && !(o.path && readsAsHigh(o.path)));
    if (plain.length > 0) {
      // One recorded again keeps its crystallization stamp, so it is never extracted twice.
      const stamped = new Map(
        (
          await this.storage.query<{ obs_id: string; crystallized_at: string | null }>(
            `SELECT obs_id, crystallized_at FROM ${this.storage.tables.observations} FINAL
             WHERE namespace = {ns:String} AND session_id = {session:String} AND obs_id IN {ids:Array(String)}`,
            { ns: namespace, session: input.session_id, ids: plain.map((o) => o.obs_id) },
          )
        ).map((r) => [r.obs_id, r.crystallized_at]),
      );
      const now = formatMillis();
      await this.storage.insert(
        this.storage.tables.observations,
        plain.map((o) => ({
          namespace,
          session_id: input.session_id,
          obs_id: o.obs_id,
          agent,
          user_id: input.user_id ?? '',
          tool: o.tool,
          summary: o.summary,
          path: o.path ?? '',
          outcome: o.outcome ?? 'unknown',
          ts: o.ts ? formatMillis(new Date(o.ts)) : now,
          crystallized_at: stamped.get(o.obs_id) ?? null,
          version: nextVersion(),
        })),
      );
    }
    return { session_id: input.session_id, recorded: plain.length, skipped_high: input.observations.length - plain.length };
  }

  async list(namespace: string, agent: string, input: ObserveListRequest): Promise<ObserveListResponse> {
    const where = new Conditions('namespace = {ns:String}', { ns: namespace, limit: input.limit ?? 100 })
      .when(agent === ALL_AGENTS ? undefined : agent, 'agent = {agent:String}', 'agent')
      .when(input.session_id, 'session_id = {session:String}', 'session')
      .when(input.user_id, 'user_id = {user:String}', 'user')
      .when(input.outcome, 'outcome = {outcome:String}', 'outcome')
      .when(input.since === undefined ? undefined : formatMillis(new Date(input.since)), "ts >= {since:DateTime64(3, 'UTC')}", 'since');
    const rows = await this.storage.query<ObservationRow>(
      `SELECT ${COLUMNS} FROM ${this.storage.tables.observations} FINAL
       WHERE ${where}
       ORDER BY ts DESC, obs_id DESC
       LIMIT {limit:UInt32}`,
      where.params,
    );
    return { observations: rows.map(view) };
  }

  /**
   * Hands the session's observations not crystallized yet to memory extraction, as lists of
   * actions, and stamps them. One crystallization of a session runs at a time (its lease), so
   * two calls never hand over the same observations.
   */
  async crystallize(namespace: string, input: ObserveCrystallizeRequest): Promise<ObserveCrystallizeResponse> {
    const outcome = await withLease(this.leases, leaseKey('observe-crystallize', namespace, input.session_id), () => this.crystallizeHeld(namespace, input), { waitMs: 30_000, pollMs: 25 });
    if (!outcome.acquired) throw new LoomError('unavailable', `session "${input.session_id}" stayed busy with another crystallization; retry`);
    return outcome.value;
  }

  private async crystallizeHeld(namespace: string, input: ObserveCrystallizeRequest): Promise<ObserveCrystallizeResponse> {
    const rows = await this.storage.query<ObservationRow>(
      `SELECT ${COLUMNS} FROM ${this.storage.tables.observations} FINAL
       WHERE namespace = {ns:String} AND session_id = {session:String} AND crystallized_at IS NULL
       ORDER BY ts, obs_id
       LIMIT {limit:UInt32}`,
      { ns: namespace, session: input.session_id, limit: PER_CRYSTALLIZATION },
    );
    const deferred = input.defer === true;
    if (rows.length === 0) return { session_id: input.session_id, observations: 0, extraction_id: null, deferred };
    const messages: Array<{ role: 'assistant'; content: string }> = [];
    for (let i = 0; i < rows.length; i += PER_MESSAGE) {
      const lines = rows.slice(i, i + PER_MESSAGE).map((r) => `- [${r.outcome}] ${r.summary}`);
      messages.push({ role: 'assistant', content: `Tool actions taken in this session, in order:\n${lines.join('\n')}` });
    }
    const extraction = await this.memory.setFromMessages(namespace, {
      messages,
      session_id: input.session_id,
      ...(input.user_id !== undefined ? { user_id: input.user_id } : {}),
      ...(deferred ? { defer: true } : {}),
    });
    const now = formatMillis();
    await this.storage.insert(
      this.storage.tables.observations,
      rows.map((r) => ({ ...r, crystallized_at: now, version: nextVersion() })),
    );
    return {
      session_id: input.session_id,
      observations: rows.length,
      extraction_id: extraction.extraction_id,
      deferred: extraction.deferred,
      ...(extraction.facts !== undefined ? { facts: extraction.facts } : {}),
    };
  }
}

function view(row: ObservationRow): ObservationView {
  return {
    session_id: row.session_id,
    obs_id: row.obs_id,
    agent: row.agent,
    user_id: row.user_id || null,
    tool: row.tool,
    summary: row.summary,
    path: row.path || null,
    outcome: row.outcome,
    ts: toIso(row.ts)!,
    crystallized_at: toIso(row.crystallized_at),
  };
}
