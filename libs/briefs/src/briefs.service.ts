import { formatMillis, toIso, type Storage } from '@loom/clickhouse';
import {
  LoomError,
  type BriefAuthor,
  type BriefDeleteRequest,
  type BriefDeleteResponse,
  type BriefGetRequest,
  type BriefGetResponse,
  type BriefListRequest,
  type BriefListResponse,
  type BriefSaveRequest,
  type BriefSaveResponse,
  type BriefSections,
  type BriefSectionsInput,
  type BriefView,
} from '@loom/contracts';
import { leaseKey, withLease, type LeaseManager } from '@loom/leases';
import { nextVersion, type Logger, type LoomMetrics } from '@loom/platform';
import type { LlmProvider } from '@loom/providers';
import { eventWindows, parseRevision, revisionRequest } from './brief-llm';
import { keyForSave, ownedKeyCondition, storedKey, visibleKey, type BriefScope } from './brief-keys';
import { applyRevision, emptySections, parseSections, render, screenEvents, screenRevision } from './brief-sections';
import { deterministicRevision } from './deterministic-builder';

export interface BriefSettings {
  /** LOOM_SESSION_BRIEF_LLM: revise from events with a model when one is configured. */
  llm: boolean;
  windowChars: number;
  maxWindows: number;
  /**
   * LOOM_SESSION_BRIEF_EXTRACTION_POLICY: `builder` lets the deterministic builder serve saves
   * with no model; `model-only` (an operator's extraction policy) never runs it, and takes no
   * client summary from the events.
   */
  extractionPolicy: 'builder' | 'model-only';
}

/** The org's switch for brief model calls: true on, false off, and a throw when it cannot be read. */
export type ModelCallsSwitch = () => Promise<boolean>;

interface BriefRow {
  brief_key: string;
  project: string;
  branch: string;
  session_id: string;
  agent: string;
  author: BriefAuthor;
  sections: string;
  revision: number;
  event_cursor: string;
  client_summary: string;
  created_at: string;
  updated_at: string;
}

const BRIEF_COLUMNS = 'brief_key, project, branch, session_id, agent, author, sections, revision, event_cursor, client_summary, created_at, updated_at';

/**
 * Session briefs: the resumable state of one line of work. A save revises the brief from events
 * (a model per window, or the deterministic builder without one) and/or sections the agent
 * wrote; every revision is kept. Saves of one brief run one at a time under its lease.
 */
export class BriefsService {
  constructor(
    private readonly storage: Storage,
    private readonly leases: LeaseManager,
    private readonly llm: LlmProvider,
    private readonly settings: BriefSettings,
    private readonly observe: { metrics?: LoomMetrics | undefined; logger?: Logger | undefined } = {},
    private readonly modelCalls: ModelCallsSwitch = async () => true,
  ) {}

  async save(namespace: string, agent: string, scope: BriefScope, input: BriefSaveRequest): Promise<BriefSaveResponse> {
    const key = storedKey(scope, keyForSave(input));
    const outcome = await withLease(this.leases, leaseKey('brief', namespace, key), () => this.saveHeld(namespace, agent, scope, key, input), { waitMs: 60_000, pollMs: 20 });
    if (!outcome.acquired) throw new LoomError('unavailable', `brief "${visibleKey(scope, key)}" stayed busy with another save; retry`);
    return outcome.value;
  }

  private async saveHeld(namespace: string, agent: string, scope: BriefScope, key: string, input: BriefSaveRequest): Promise<BriefSaveResponse> {
    const current = await this.read(namespace, key);
    const revision = current ? Number(current.revision) : 0;
    const shown = visibleKey(scope, key);
    if (current && input.session_id && input.event_cursor && current.session_id === input.session_id && current.event_cursor === input.event_cursor) {
      return { brief_key: shown, changed: false, revision, reason: 'retry' };
    }
    if (input.if_revision !== undefined && input.if_revision !== revision) {
      throw new LoomError('conflict', `brief "${shown}" is at revision ${revision}, not ${input.if_revision}; load it again and retry`);
    }

    const before = current ? parseSections(current.sections) : emptySections();
    let sections = before;
    let author: BriefAuthor | undefined;
    let windows: { revised: number; failed: number; switched_off: number } | undefined;
    let eventsOutcome: 'none' | 'revised' | 'not-revised' | 'failed' = 'none';
    // Text that reads as high goes nowhere: not to the model, the builder or the stored summary.
    const screened = screenEvents(input.events ?? []);
    const events = screened.events;
    let heldHigh = screened.held;
    const apply = (base: BriefSections, revision: BriefSectionsInput): BriefSections => {
      const clean = screenRevision(revision);
      heldHigh += clean.held;
      return applyRevision(base, clean.revision);
    };
    // Under an operator's extraction policy the client's own summary is not taken from the events.
    const summary = this.settings.extractionPolicy === 'model-only' ? undefined : [...events].reverse().find((e) => e.kind === 'summary')?.text;
    if (events.length === 0 && heldHigh > 0 && !input.sections) {
      // Every event read as high: nothing to revise from, and nothing was sent anywhere.
      return { brief_key: shown, changed: false, revision, reason: 'not-revised', skipped_high: heldHigh };
    }
    if (events.length > 0) {
      if (input.use_llm === false) {
        eventsOutcome = 'not-revised';
      } else if (this.settings.llm && this.llm.name !== 'fake') {
        windows = { revised: 0, failed: 0, switched_off: 0 };
        // At most maxWindows per save: the newest, which carry the state to resume from.
        const planned = eventWindows(events, this.settings.windowChars).slice(-this.settings.maxWindows);
        for (const [i, window] of planned.entries()) {
          // The org's switch, read before each call: off keeps what was revised and sends no more.
          const allowed = await this.modelCalls().catch((error: unknown) => {
            this.observe.logger?.warn({ err: error }, 'the model-calls switch could not be read; this brief window is held, not sent');
            return undefined;
          });
          if (allowed === false) {
            windows.switched_off = planned.length - i;
            break;
          }
          const revised = allowed === undefined ? undefined : await this.reviseWindow(sections, window);
          if (revised) {
            sections = apply(sections, revised);
            windows.revised += 1;
          } else {
            windows.failed += 1;
          }
        }
        const switchedOffFirst = windows.switched_off === planned.length;
        eventsOutcome = windows.revised > 0 ? 'revised' : switchedOffFirst ? 'not-revised' : 'failed';
        if (windows.revised > 0) author = 'llm';
      } else if (this.settings.extractionPolicy === 'model-only') {
        // The operator's policy: no builder; without a model the events give nothing.
        eventsOutcome = 'not-revised';
      } else {
        sections = apply(sections, deterministicRevision(events, before.goal !== ''));
        eventsOutcome = 'revised';
        author = 'deterministic';
      }
    }
    if (input.sections) {
      // With events that gave nothing, the agent's sections go over the brief as it was.
      if (eventsOutcome === 'not-revised' || eventsOutcome === 'failed') sections = before;
      sections = apply(sections, input.sections);
      author = author === 'llm' ? 'llm' : 'model';
    } else if (eventsOutcome === 'not-revised') {
      return { brief_key: shown, changed: false, revision, reason: 'not-revised', ...(heldHigh > 0 ? { skipped_high: heldHigh } : {}) };
    } else if (eventsOutcome === 'failed') {
      throw new LoomError('unavailable', 'no event window of this save could be revised (every model call failed, did not parse, or was held because the model-calls switch could not be read); nothing was written; send the save again');
    } else if (eventsOutcome === 'none') {
      throw new LoomError('invalid_input', 'a save needs events, sections or both', { fields: [{ field: 'events', message: 'give events or sections' }] });
    }

    const next = revision + 1;
    const now = formatMillis();
    const version = nextVersion();
    const row = {
      namespace,
      brief_key: key,
      project: input.project ?? current?.project ?? '',
      branch: input.branch ?? current?.branch ?? '',
      session_id: input.session_id ?? '',
      agent,
      author: author!,
      sections: JSON.stringify(sections),
      revision: next,
      event_cursor: input.event_cursor ?? '',
      client_summary: summary ?? current?.client_summary ?? '',
      created_at: current?.created_at ?? now,
      updated_at: now,
      deleted: false,
      version,
    };
    await this.storage.insert(this.storage.tables.sessionBriefRevisions, [
      { namespace, brief_key: key, revision: next, sections: row.sections, author: row.author, session_id: row.session_id, agent, event_cursor: row.event_cursor, created_at: now, version },
    ]);
    await this.storage.insert(this.storage.tables.sessionBriefs, [row]);
    return { brief_key: shown, changed: true, revision: next, author: row.author, ...(windows ? { windows } : {}), ...(heldHigh > 0 ? { skipped_high: heldHigh } : {}) };
  }

  async get(namespace: string, scope: BriefScope, input: BriefGetRequest): Promise<BriefGetResponse> {
    let row: BriefRow | undefined;
    if (input.brief_key) row = await this.read(namespace, storedKey(scope, input.brief_key));
    else if (input.from_session) row = await this.newest(namespace, scope, 'session_id = {v:String}', input.from_session);
    else if (input.project) row = await this.newest(namespace, scope, 'project = {v:String}', input.project);
    else throw new LoomError('invalid_input', 'give brief_key, from_session or project', { fields: [{ field: 'brief_key', message: 'none of brief_key, from_session, project given' }] });
    if (!row) throw new LoomError('not_found', 'no such brief in this namespace');
    let sections = parseSections(row.sections);
    let revision = Number(row.revision);
    let author = row.author;
    if (input.revision !== undefined && input.revision !== revision) {
      const [old] = await this.storage.query<{ sections: string; author: BriefAuthor }>(
        `SELECT sections, author FROM ${this.storage.tables.sessionBriefRevisions} FINAL
         WHERE namespace = {ns:String} AND brief_key = {key:String} AND revision = {rev:UInt32}`,
        { ns: namespace, key: row.brief_key, rev: input.revision },
      );
      if (!old) throw new LoomError('not_found', `brief "${visibleKey(scope, row.brief_key)}" has no revision ${input.revision} (it is at ${revision})`);
      sections = parseSections(old.sections);
      revision = input.revision;
      author = old.author;
    }
    const brief: BriefView = {
      brief_key: visibleKey(scope, row.brief_key),
      project: row.project || null,
      branch: row.branch || null,
      revision,
      author,
      session_id: row.session_id || null,
      updated_at: toIso(row.updated_at)!,
      sections,
      rendered: render(sections),
      ...(input.full ? { client_summary: row.client_summary || null } : {}),
    };
    return { brief };
  }

  async list(namespace: string, agent: string, scope: BriefScope, input: BriefListRequest): Promise<BriefListResponse> {
    const owned = ownedKeyCondition(scope);
    const rows = await this.storage.query<BriefRow>(
      `SELECT ${BRIEF_COLUMNS} FROM ${this.storage.tables.sessionBriefs} FINAL
       WHERE namespace = {ns:String} AND deleted = 0 AND ${owned.sql}
         ${input.mine_only ? 'AND agent = {agent:String}' : ''}
       ORDER BY updated_at DESC, brief_key
       LIMIT {limit:UInt32}`,
      { ns: namespace, ...owned.params, agent, limit: input.limit ?? 50 },
    );
    return {
      briefs: rows.map((r) => {
        const s = parseSections(r.sections);
        return {
          brief_key: visibleKey(scope, r.brief_key),
          project: r.project || null,
          branch: r.branch || null,
          revision: Number(r.revision),
          updated_at: toIso(r.updated_at)!,
          line: (s.goal || s.status || '').split('\n')[0]!.slice(0, 160),
        };
      }),
    };
  }

  async delete(namespace: string, scope: BriefScope, input: BriefDeleteRequest): Promise<BriefDeleteResponse> {
    const key = storedKey(scope, input.brief_key);
    const outcome = await withLease(this.leases, leaseKey('brief', namespace, key), async () => {
      const current = await this.read(namespace, key);
      if (!current) return false;
      await this.storage.insert(this.storage.tables.sessionBriefs, [{ ...current, namespace, deleted: true, updated_at: formatMillis(), version: nextVersion() }]);
      return true;
    }, { waitMs: 60_000, pollMs: 20 });
    if (!outcome.acquired) throw new LoomError('unavailable', 'the brief stayed busy with a save; retry');
    if (!outcome.value) throw new LoomError('not_found', `no brief "${input.brief_key}" in this namespace`);
    return { brief_key: input.brief_key, deleted: true };
  }

  private async reviseWindow(sections: BriefSections, window: string) {
    try {
      const answer = await this.llm.complete(revisionRequest(sections, window));
      return parseRevision(answer.text);
    } catch (error) {
      this.observe.logger?.warn({ err: error }, 'a brief window could not be revised; it is skipped and the rest are applied');
      return undefined;
    }
  }

  private async read(namespace: string, key: string): Promise<BriefRow | undefined> {
    const rows = await this.storage.query<BriefRow>(
      `SELECT ${BRIEF_COLUMNS} FROM ${this.storage.tables.sessionBriefs} FINAL
       WHERE namespace = {ns:String} AND brief_key = {key:String} AND deleted = 0`,
      { ns: namespace, key },
    );
    return rows[0];
  }

  private async newest(namespace: string, scope: BriefScope, condition: string, value: string): Promise<BriefRow | undefined> {
    const owned = ownedKeyCondition(scope);
    const rows = await this.storage.query<BriefRow>(
      `SELECT ${BRIEF_COLUMNS} FROM ${this.storage.tables.sessionBriefs} FINAL
       WHERE namespace = {ns:String} AND deleted = 0 AND ${condition} AND ${owned.sql}
       ORDER BY updated_at DESC LIMIT 1`,
      { ns: namespace, v: value, ...owned.params },
    );
    return rows[0];
  }
}
