import type { Storage } from '@loom/clickhouse';
import {
  LoomError,
  TRACKER_EMBEDDED,
  type FlakyTest,
  type IncidentLookup,
  type IncidentQuery,
  type IssueLink,
  type TrackerDuplicateCheckRequest,
  type TrackerDuplicateCheckResponse,
  type TrackerFlakyTestsRequest,
  type TrackerFlakyTestsResponse,
  type TrackerIncidentsRequest,
  type TrackerIncidentsResponse,
  type TrackerIssueLinksRequest,
  type TrackerIssueLinksResponse,
  type TrackerSourceRegisterRequest,
  type TrackerSourceRegisterResponse,
  type TrackerSourceView,
  type TrackerStatusResponse,
} from '@loom/contracts';
import { DefaultRankerOptions, rankDuplicates } from './duplicates/ranker';
import { resolveDuplicates } from './duplicates/resolve';
import { incidentColumns, incidentOfRepository, incidentView, refNumber, refRepo, type IncidentRow } from './incidents/incident-rows';
import { closes } from './links/fix-references';
import { checkMapping } from './source/mapping-check';
import { describeUrl, ident, qualified, reasonOf, SourceClients, type SourceConnection, type SourceReader } from './source/source-client';
import { TrackerSourceRepository, type RegisteredSource } from './source/source.repository';

export type { IncidentLookup, IncidentQuery };

/** Incidents one history answer reads at most. */
const MAX_LINKED_INCIDENTS = 1_000;

export interface TrackerOptions {
  /** LOOM_TRACKER_ORG: unset keeps the plane off. */
  org: string | undefined;
  /** Newest issues one duplicate check reads. */
  scanLimit: number;
  queryTimeoutMs: number;
  /** The live `tracker_duplicate_threshold`. */
  threshold: () => Promise<number>;
}

const DEFAULT_FAIL = ['fail', 'failed', 'failure', 'error', 'errored'];
const DEFAULT_PASS = ['pass', 'passed', 'success', 'succeeded', 'ok'];
/** Databases of the embedded engine a source may not name: Loom's own tables and the engine's. */
const SYSTEM_DATABASES = ['system', 'information_schema'];
/** Characters of each body read from the source: what the ranker reads (DefaultRankerOptions.maxBodyChars), no more. */
const MAX_BODY_CHARS = DefaultRankerOptions.maxBodyChars;

/** `YYYY-MM-DD hh:mm:ss` (UTC) from the engine, as ISO 8601; empty stays null. */
function iso(value: string | null | undefined): string | null {
  if (!value) return null;
  return `${value.replace(' ', 'T')}Z`;
}

/** A time column as UTC text, NULL-safe. */
const timeText = (column: string) => `ifNull(toString(toDateTime(${ident(column)}, 'UTC')), '')`;
const text = (column: string) => `ifNull(toString(${ident(column)}), '')`;

/**
 * The tracker plane: duplicate issue checks, issue-to-PR links and flaky tests, read live from the
 * team's own ClickHouse through a registered source and its column mapping. Nothing is copied.
 * Off (every op but the status answers `not_configured`) until LOOM_TRACKER_ORG is set and the
 * namespace has a registered source.
 */
export class TrackerService {
  private readonly sources: TrackerSourceRepository;
  private readonly clients: SourceClients;

  constructor(
    private readonly storage: Storage,
    private readonly options: TrackerOptions,
  ) {
    this.sources = new TrackerSourceRepository(storage);
    this.clients = new SourceClients(storage, options.queryTimeoutMs);
  }

  async status(namespace: string): Promise<TrackerStatusResponse> {
    const source = await this.sources.get(namespace);
    const reason = this.offReason(namespace, source);
    return { enabled: reason === null, org: this.options.org ?? null, source_registered: source !== undefined, reason, source: source ? view(source) : null };
  }

  async register(namespace: string, input: TrackerSourceRegisterRequest): Promise<TrackerSourceRegisterResponse> {
    if (!this.options.org) throw new LoomError('not_configured', `${ORG_REASON} Then register the source again.`);
    const connection: SourceConnection = { url: input.connection.url, user: input.connection.user, password: input.connection.password, database: input.connection.database };
    if (connection.url === TRACKER_EMBEDDED) {
      const db = connection.database.toLowerCase();
      if (db === this.storage.tables.database.toLowerCase() || SYSTEM_DATABASES.includes(db)) {
        throw new LoomError('invalid_input', `an embedded tracker source cannot read Loom's own database or the engine's (${connection.database})`, {
          fields: [{ field: 'connection.database', message: `"${connection.database}" holds Loom's or the engine's own tables; name the database of the tracker's tables` }],
        });
      }
    }
    const probe = this.clients.probe(connection);
    try {
      await this.reach(probe.reader, connection);
      const errors = await checkMapping(probe.reader, connection.database, input.mapping).catch((error: unknown) => {
        throw this.unreadable(connection, error);
      });
      if (errors.length > 0) throw new LoomError('invalid_input', `the mapping does not fit the source's tables: ${errors.map((e) => e.field).join(', ')}`, { fields: errors });
      const issues = input.mapping.issues;
      const [count] = await probe.reader
        .query<{ n: string | number }>(`SELECT count() AS n FROM ${qualified(connection.database, issues.table)}`)
        .catch((error: unknown) => {
          throw this.unreadable(connection, error);
        });
      const stored = await this.sources.save({ namespace, connection, mapping: input.mapping, issueUrlBase: input.issue_url_base });
      return { registered: true, enabled: true, source: view(stored), issues: Number(count?.n ?? 0) };
    } finally {
      await probe.close();
    }
  }

  async duplicateCheck(namespace: string, input: TrackerDuplicateCheckRequest): Promise<TrackerDuplicateCheckResponse> {
    if (input.title === undefined && input.issue === undefined) {
      throw new LoomError('invalid_input', 'tracker.duplicate_check needs the new issue\'s title (and body), or the id of an issue in the tracker', {
        fields: [{ field: 'title', message: 'title is required unless issue names an issue in the tracker' }],
      });
    }
    const { source, reader } = await this.open(namespace);
    const m = source.mapping.issues;
    const table = qualified(source.connection.database, m.table);
    let query = { title: input.title ?? '', body: input.body, before: input.created_before };
    let self: string | undefined;
    if (input.issue !== undefined) {
      self = input.issue.replace(/^#/, '');
      const [row] = await this.read(source, () =>
        reader.query<{ lt_title: string; lt_body: string; lt_created: string }>(
          `SELECT ${text(m.title)} AS lt_title, substring(${text(m.body)}, 1, {maxBody:UInt32}) AS lt_body, ${timeText(m.created_at)} AS lt_created
           FROM ${table} WHERE toString(${ident(m.id)}) = {id:String} LIMIT 1`,
          { id: self, maxBody: MAX_BODY_CHARS },
        ),
      );
      if (!row) throw new LoomError('not_found', `the tracker has no issue "${self}" in ${source.connection.database}.${m.table}`);
      // A title or body in the request stands in for the stored one (a draft edit of it).
      query = { title: input.title ?? row.lt_title, body: input.body ?? row.lt_body, before: input.created_before ?? iso(row.lt_created) ?? undefined };
    }
    const filters = [
      ...(query.before ? [`${ident(m.created_at)} < parseDateTime64BestEffort({before:String}, 3, 'UTC')`] : []),
      ...(self !== undefined ? [`toString(${ident(m.id)}) != {self:String}`] : []),
    ];
    const where = filters.length ? `WHERE ${filters.join(' AND ')}` : '';
    const rows = await this.read(source, () =>
      reader.query<{ lt_id: string; lt_title: string; lt_body: string; lt_state: string; lt_created: string }>(
        `SELECT toString(${ident(m.id)}) AS lt_id, ${text(m.title)} AS lt_title, substring(${text(m.body)}, 1, {maxBody:UInt32}) AS lt_body,
                ${m.state ? text(m.state) : "''"} AS lt_state, ${timeText(m.created_at)} AS lt_created
         FROM ${table} ${where}
         ORDER BY ${ident(m.created_at)} DESC LIMIT {scan:UInt32}`,
        { before: query.before ?? '', self: self ?? '', maxBody: MAX_BODY_CHARS, scan: this.options.scanLimit },
      ),
    );
    const threshold = await this.options.threshold();
    const byId = new Map(rows.map((r) => [r.lt_id, r]));
    const ranked = rankDuplicates(
      { title: query.title, body: query.body, openedAt: query.before ? Date.parse(query.before) : Date.now() },
      rows.map((r) => ({ id: r.lt_id, title: r.lt_title, body: r.lt_body, openedAt: r.lt_created ? Date.parse(iso(r.lt_created)!) : undefined })),
    );
    // A candidate the tracker records as a duplicate answers with its original (docs/adr/0034).
    const links = await this.duplicateLinks(source, reader, query.before);
    if (links.size > 0) {
      // Originals older than the pool's newest LOOM_TRACKER_SCAN_LIMIT issues are read by id.
      const outside = [...new Set(ranked.slice(0, RESOLVE_DEPTH).map((r) => links.get(r.id)).filter((id): id is string => id !== undefined && !byId.has(id)))];
      if (outside.length > 0) {
        const more = await this.read(source, () =>
          reader.query<{ lt_id: string; lt_title: string; lt_state: string; lt_created: string }>(
            `SELECT toString(${ident(m.id)}) AS lt_id, ${text(m.title)} AS lt_title, ${m.state ? text(m.state) : "''"} AS lt_state, ${timeText(m.created_at)} AS lt_created
             FROM ${table} WHERE toString(${ident(m.id)}) IN {ids:Array(String)} ${filters.length ? `AND ${filters.join(' AND ')}` : ''} LIMIT {n:UInt32}`,
            { ids: outside.slice(0, RESOLVE_DEPTH), before: query.before ?? '', self: self ?? '', n: RESOLVE_DEPTH },
          ),
        );
        for (const r of more) byId.set(r.lt_id, { ...r, lt_body: '' });
      }
    }
    const resolved = resolveDuplicates(ranked, links, (id) => byId.has(id)).slice(0, input.limit ?? 10);
    return {
      candidates: resolved.map((r) => {
        const row = byId.get(r.id)!;
        return {
          id: r.id,
          title: row.lt_title,
          state: row.lt_state === '' ? null : row.lt_state,
          created_at: iso(row.lt_created),
          url: source.issueUrlBase ? `${source.issueUrlBase}${r.id}` : null,
          score: r.score,
          duplicate: r.score >= threshold,
          shared: r.shared,
          via: r.via,
          reason: r.via === null ? null : `the new issue matched #${r.via}, which the tracker records as a duplicate of #${r.id}${chain(r.via, r.id, links)}`,
        };
      }),
      threshold,
      considered: rows.length,
    };
  }

  /**
   * The tracker's recorded duplicate links (duplicate -> original) among issues opened before
   * `before`: from `issues.duplicate_of` and from the `duplicate_links` table (only links made
   * before `before` when it maps `linked_at`). Empty when the mapping names neither.
   */
  private async duplicateLinks(source: RegisteredSource, reader: SourceReader, before: string | undefined): Promise<Map<string, string>> {
    const db = source.connection.database;
    const { issues: m, duplicate_links: table } = source.mapping;
    const links = new Map<string, string>();
    const none = (column: string) => `${text(column)} NOT IN ('', '0')`;
    await this.read(source, async () => {
      if (m.duplicate_of) {
        const rows = await reader.query<{ lt_id: string; lt_of: string }>(
          `SELECT toString(${ident(m.id)}) AS lt_id, ${text(m.duplicate_of)} AS lt_of FROM ${qualified(db, m.table)}
           WHERE ${none(m.duplicate_of)} ${before ? `AND ${ident(m.created_at)} < parseDateTime64BestEffort({before:String}, 3, 'UTC')` : ''}
           ORDER BY ${ident(m.created_at)} DESC LIMIT {scan:UInt32}`,
          { before: before ?? '', scan: this.options.scanLimit },
        );
        for (const r of rows) if (r.lt_of !== r.lt_id) links.set(r.lt_id, r.lt_of);
      }
      if (table) {
        const at = table.linked_at;
        const rows = await reader.query<{ lt_id: string; lt_of: string }>(
          `SELECT toString(${ident(table.issue)}) AS lt_id, ${text(table.duplicate_of)} AS lt_of FROM ${qualified(db, table.table)}
           WHERE ${none(table.duplicate_of)} ${before && at ? `AND ${ident(at)} < parseDateTime64BestEffort({before:String}, 3, 'UTC')` : ''}
           ${at ? `ORDER BY ${ident(at)} DESC` : ''} LIMIT {scan:UInt32}`,
          { before: before ?? '', scan: this.options.scanLimit },
        );
        // The issues column wins where both name an original; of several links the newest wins.
        for (const r of rows) if (r.lt_of !== r.lt_id && !links.has(r.lt_id)) links.set(r.lt_id, r.lt_of);
      }
    });
    return links;
  }

  async issueLinks(namespace: string, input: TrackerIssueLinksRequest): Promise<TrackerIssueLinksResponse> {
    const { source, reader } = await this.open(namespace);
    const issue = input.issue.replace(/^#/, '');
    const limit = input.limit ?? 100;
    const db = source.connection.database;
    const { pr_links: links, pull_requests: prs, commits } = source.mapping;
    const out: IssueLink[] = [];
    const seen = new Set<string>();
    const add = (link: IssueLink) => {
      const key = `${link.source}:${link.pr ?? ''}:${link.sha ?? ''}`;
      if (!seen.has(key)) out.push(link);
      seen.add(key);
    };
    // References are found by the engine first (`#N` or `/issues/N` in the text), then read exactly here.
    const needles = [`#${issue}`, `/issues/${issue}`];
    await this.read(source, async () => {
      if (links) {
        const rows = await reader.query<{ lt_pr: string }>(
          `SELECT DISTINCT toString(${ident(links.pr)}) AS lt_pr FROM ${qualified(db, links.table)} WHERE toString(${ident(links.issue)}) = {issue:String} ORDER BY lt_pr LIMIT {limit:UInt32}`,
          { issue, limit },
        );
        for (const r of rows) add({ pr: r.lt_pr, sha: null, source: 'link_table', phrase: null });
      }
      if (prs) {
        const rows = await reader.query<{ lt_number: string; lt_body: string }>(
          `SELECT toString(${ident(prs.number)}) AS lt_number, concat(${prs.title ? text(prs.title) : "''"}, '\n', ${text(prs.body)}) AS lt_body
           FROM ${qualified(db, prs.table)} WHERE multiSearchAnyCaseInsensitive(${text(prs.body)}, {needles:Array(String)}) ORDER BY lt_number LIMIT 10000`,
          { needles },
        );
        for (const r of rows) {
          const ref = closes(r.lt_body, issue, this.options.org);
          if (ref) add({ pr: r.lt_number, sha: null, source: 'pr_body', phrase: ref.phrase });
        }
      }
      if (commits) {
        const rows = await reader.query<{ lt_sha: string; lt_message: string }>(
          `SELECT toString(${ident(commits.sha)}) AS lt_sha, ${text(commits.message)} AS lt_message
           FROM ${qualified(db, commits.table)} WHERE multiSearchAnyCaseInsensitive(${text(commits.message)}, {needles:Array(String)}) LIMIT 10000`,
          { needles },
        );
        for (const r of rows) {
          const ref = closes(r.lt_message, issue, this.options.org);
          // A squash commit names its PR as "(#N)" at the end of its first line.
          const pr = /\(#(\d+)\)\s*$/m.exec(r.lt_message.split('\n')[0] ?? '')?.[1] ?? null;
          if (ref) add({ pr, sha: r.lt_sha, source: 'commit_message', phrase: ref.phrase });
        }
      }
    });
    return { issue, links: out.slice(0, limit) };
  }

  async flakyTests(namespace: string, input: TrackerFlakyTestsRequest): Promise<TrackerFlakyTestsResponse> {
    const { source, reader } = await this.open(namespace);
    const ci = source.mapping.ci_runs;
    if (!ci) {
      throw new LoomError('not_configured', 'the registered tracker source maps no CI runs table: register it again with mapping.ci_runs (test, commit, status, run_at) to ask for flaky tests');
    }
    const table = qualified(source.connection.database, ci.table);
    const limit = input.limit ?? 50;
    const offset = input.offset ?? 0;
    const filters = [
      ...(input.since ? [`${ident(ci.run_at)} >= parseDateTime64BestEffort({since:String}, 3, 'UTC')`] : []),
      ...(input.test ? [`toString(${ident(ci.test)}) = {test:String}`] : []),
    ];
    const where = filters.length > 0 ? `WHERE ${filters.join(' AND ')}` : '';
    const status = `lower(toString(${ident(ci.status)}))`;
    const params = {
      since: input.since ?? '',
      test: input.test ?? '',
      fail: (ci.fail_values ?? DEFAULT_FAIL).map((v) => v.toLowerCase()),
      pass: (ci.pass_values ?? DEFAULT_PASS).map((v) => v.toLowerCase()),
      limit: limit + 1,
      offset,
      runs: input.runs ?? 5,
    };
    return this.read(source, async () => {
      const rows = await reader.query<{ lt_test: string; flaky_commits: string | number; failures: string | number; passes: string | number; last_seen: string }>(
        `SELECT lt_test, count() AS flaky_commits, sum(lt_f) AS failures, sum(lt_p) AS passes, toString(max(lt_last)) AS last_seen
         FROM (
           SELECT toString(${ident(ci.test)}) AS lt_test, toString(${ident(ci.commit)}) AS lt_commit,
                  countIf(${status} IN {fail:Array(String)}) AS lt_f, countIf(${status} IN {pass:Array(String)}) AS lt_p,
                  max(toDateTime(${ident(ci.run_at)}, 'UTC')) AS lt_last
           FROM ${table} ${where}
           GROUP BY lt_test, lt_commit
           HAVING lt_f > 0 AND lt_p > 0
         )
         GROUP BY lt_test ORDER BY flaky_commits DESC, last_seen DESC, lt_test LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
        params,
      );
      const page = rows.slice(0, limit);
      const runs = page.length === 0 ? [] : await reader.query<{ lt_test: string; lt_commit: string; lt_status: string; lt_run_at: string }>(
        `SELECT toString(${ident(ci.test)}) AS lt_test, toString(${ident(ci.commit)}) AS lt_commit, toString(${ident(ci.status)}) AS lt_status,
                toString(toDateTime(${ident(ci.run_at)}, 'UTC')) AS lt_run_at
         FROM ${table} WHERE toString(${ident(ci.test)}) IN {tests:Array(String)} ${input.since ? `AND ${ident(ci.run_at)} >= parseDateTime64BestEffort({since:String}, 3, 'UTC')` : ''}
         ORDER BY ${ident(ci.run_at)} DESC LIMIT {runs:UInt32} BY lt_test`,
        { ...params, tests: page.map((r) => r.lt_test) },
      );
      const tests: FlakyTest[] = page.map((r) => ({
        test: r.lt_test,
        flaky_commits: Number(r.flaky_commits),
        failures: Number(r.failures),
        passes: Number(r.passes),
        last_seen: iso(r.last_seen)!,
        latest_runs: runs.filter((run) => run.lt_test === r.lt_test).map((run) => ({ commit: run.lt_commit, status: run.lt_status, run_at: iso(run.lt_run_at)! })),
      }));
      return { tests, next_offset: rows.length > limit ? offset + limit : null };
    });
  }

  /** `tracker.incidents`: the source's incidents, newest start first, filtered and paged. */
  async incidents(namespace: string, input: TrackerIncidentsRequest): Promise<TrackerIncidentsResponse> {
    const { source, reader } = await this.open(namespace);
    const m = source.mapping.incidents;
    if (!m) throw new LoomError('not_configured', NO_INCIDENTS);
    const limit = input.limit ?? 50;
    const offset = input.offset ?? 0;
    const filters = [
      ...(input.since ? [`${ident(m.started_at)} >= parseDateTime64BestEffort({since:String}, 3, 'UTC')`] : []),
      ...(input.until ? [`${ident(m.started_at)} <= parseDateTime64BestEffort({until:String}, 3, 'UTC')`] : []),
      // The number in any repository (a ref that names its repository and a bare one alike), or,
      // with `repository`, in that one (a ref naming it, or a bare number).
      ...(input.pr !== undefined
        ? [
            `arrayExists(r -> ${refNumber('r')} = {pr:String}${input.repository ? ` AND (${refRepo('r')} = '' OR lower(${refRepo('r')}) = lower({repository:String}))` : ''}, arrayConcat(li_caused_prs, li_fixed_prs))`,
          ]
        : []),
      ...(input.repository ? [incidentOfRepository(['repository'])] : []),
      // Either may be the prefix: the request's sha, or the incident's abbreviated one.
      ...(input.commit ? ['arrayExists(c -> startsWith({commit:String}, c) OR startsWith(c, {commit:String}), arrayConcat(li_caused_commits, li_fixed_commits))'] : []),
      ...(input.severity ? ['lower(li_severity) = lower({severity:String})'] : []),
      ...(input.status ? ['lower(li_status) = lower({status:String})'] : []),
    ];
    const rows = await this.read(source, () =>
      reader.query<IncidentRow>(
        `SELECT ${incidentColumns(m)}
         FROM ${qualified(source.connection.database, m.table)} ${filters.length ? `WHERE ${filters.join(' AND ')}` : ''}
         ORDER BY ${ident(m.started_at)} DESC, li_id LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
        {
          since: input.since ?? '',
          until: input.until ?? '',
          pr: String(input.pr ?? ''),
          repository: input.repository ?? '',
          commit: (input.commit ?? '').toLowerCase(),
          severity: input.severity ?? '',
          status: input.status ?? '',
          limit: limit + 1,
          offset,
        },
      ),
    );
    return { incidents: rows.slice(0, limit).map((r) => incidentView(r, m.summary !== undefined)), next_offset: rows.length > limit ? offset + limit : null };
  }

  /**
   * The incidents a history answer carries (PRHIST-02): those whose cause or fix names one of
   * these PRs or commits, and those that started in the window. It never throws: with the plane
   * off, no incidents mapping or a source that cannot be read, it says why instead, and the
   * history answers without them.
   */
  async incidentsFor(namespace: string, query: IncidentQuery): Promise<IncidentLookup> {
    // With no org the plane is off for every namespace: no read of the registrations.
    if (!this.options.org) return { incidents: [], reason: ORG_REASON };
    try {
      const source = await this.sources.get(namespace);
      const off = this.offReason(namespace, source);
      if (off !== null || !source) return { incidents: [], reason: off ?? ORG_REASON };
      const m = source.mapping.incidents;
      if (!m) return { incidents: [], reason: NO_INCIDENTS };
      if (query.prs.length === 0 && query.shas.length === 0 && !query.started) return { incidents: [], reason: null };
      const reader = this.clients.reader(namespace, source.connection);
      // A PR ref that names a repository matches only this one (its Loom name, or its GitHub
      // owner/repo in any case); a bare number matches in every repository.
      const thisRepo = `(${refRepo('r')} = '' OR ${refRepo('r')} = {repo:String} OR ({github:String} != '' AND lower(${refRepo('r')}) = lower({github:String})))`;
      const matches = [
        `arrayExists(r -> has({prs:Array(String)}, ${refNumber('r')}) AND ${thisRepo}, arrayConcat(li_caused_prs, li_fixed_prs))`,
        'arrayExists(c -> arrayExists(s -> startsWith(s, c), {shas:Array(String)}), arrayConcat(li_caused_commits, li_fixed_commits))',
        ...(query.started
          ? // Started in the window, and of this repository: one naming only other repositories is not evidence here.
            [
              `(${ident(m.started_at)} >= parseDateTime64BestEffort({from:String}, 3, 'UTC') AND ${ident(m.started_at)} <= parseDateTime64BestEffort({to:String}, 3, 'UTC') AND ${incidentOfRepository(['repo', 'github'])})`,
            ]
          : []),
      ];
      const rows = await this.read(source, () =>
        reader.query<IncidentRow>(
          `SELECT ${incidentColumns(m)}
           FROM ${qualified(source.connection.database, m.table)} WHERE ${matches.join(' OR ')}
           ORDER BY ${ident(m.started_at)}, li_id LIMIT {max:UInt32}`,
          {
            prs: [...new Set(query.prs)].map(String),
            repo: query.repository.name,
            github: query.repository.github ?? '',
            shas: [...new Set(query.shas.map((s) => s.toLowerCase()))],
            from: query.started?.from ?? '',
            to: query.started?.to ?? '',
            max: MAX_LINKED_INCIDENTS,
          },
        ),
      );
      return { incidents: rows.map((r) => incidentView(r, false)), reason: null };
    } catch (error) {
      return { incidents: [], reason: `incidents were not read: ${LoomError.isLoomError(error) ? error.message : reasonOf(error, undefined)}` };
    }
  }

  close(): Promise<void> {
    return this.clients.close();
  }

  /** Why the plane is off for this namespace and how to turn it on; null when it is on. */
  private offReason(namespace: string, source: RegisteredSource | undefined): string | null {
    if (!this.options.org) return ORG_REASON;
    if (!source) return `The tracker plane is off for namespace "${namespace}": no tracker source is registered. An admin registers the team's ClickHouse and its column mapping with tracker.source_register (or \`loom tracker register\`).`;
    return null;
  }

  private async open(namespace: string): Promise<{ source: RegisteredSource; reader: SourceReader }> {
    const source = await this.sources.get(namespace);
    const reason = this.offReason(namespace, source);
    if (reason !== null || !source) throw new LoomError('not_configured', reason ?? ORG_REASON);
    return { source, reader: this.clients.reader(namespace, source.connection) };
  }

  private async reach(reader: SourceReader, connection: SourceConnection): Promise<void> {
    try {
      await reader.query('SELECT 1 AS ok');
    } catch (error) {
      const reason = reasonOf(error, connection.password);
      const auth = /authenticat|password|516/i.test(reason);
      throw new LoomError('invalid_input', `could not reach the tracker source at ${describeUrl(connection.url)}: ${reason}`, {
        fields: auth
          ? [
              { field: 'connection.user', message: `the source refused these credentials: ${reason}` },
              { field: 'connection.password', message: 'the source refused these credentials' },
            ]
          : [{ field: 'connection.url', message: `could not reach a ClickHouse server there: ${reason}` }],
      });
    }
  }

  private unreadable(connection: SourceConnection, error: unknown): LoomError {
    if (LoomError.isLoomError(error) && error.code === 'invalid_input') return error;
    return new LoomError('unavailable', `could not read the tracker source at ${describeUrl(connection.url)}: ${reasonOf(error, connection.password)}`, { cause: error });
  }

  /** Reads of a registered source: a failure there is the source's (503, retry later), never a 500. */
  private async read<T>(source: RegisteredSource, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.unreadable(source.connection, error);
    }
  }
}

/** Ranked candidates whose recorded originals are read when they lie outside the pool. */
const RESOLVE_DEPTH = 200;

/** ", through #a, #b" for a chain of recorded links between a known duplicate and its original. */
function chain(via: string, original: string, links: ReadonlyMap<string, string>): string {
  const between: string[] = [];
  for (let at = links.get(via); at !== undefined && at !== original && between.length < 10; at = links.get(at)) between.push(`#${at}`);
  return between.length ? ` (through ${between.join(', ')})` : '';
}
const NO_INCIDENTS =
  'the registered tracker source maps no incidents table: register it again with mapping.incidents (table, id, title, started_at, and the columns naming the PRs and commits that caused or fixed each incident) to read incidents';

const ORG_REASON = "The tracker plane is off: set LOOM_TRACKER_ORG to your organisation's name and restart Loom, then register the team's ClickHouse with tracker.source_register (or `loom tracker register`).";

function view(source: RegisteredSource): TrackerSourceView {
  return {
    connection: { url: describeUrl(source.connection.url), user: source.connection.user ?? null, database: source.connection.database, password_set: source.connection.password !== undefined },
    mapping: source.mapping as unknown as Record<string, Record<string, string>>,
    issue_url_base: source.issueUrlBase ?? null,
    registered_at: source.registeredAt,
  };
}
