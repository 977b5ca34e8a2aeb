import { Writable } from 'node:stream';
import * as fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { printableKey, TRACKER_IDENTIFIER } from '@loom/contracts';
import { createLogger } from '@loom/platform';
import {
  createOutagesTable,
  createTrackerTables,
  FUZZ_SECRETS,
  fuzzOps,
  OUTAGES_MAPPING,
  rowCounts,
  startTestLoom,
  trackerRegistration,
  trackWrites,
  uniqueNamespace,
  type TestLoom,
} from '../../../testing/src';
import { MAX_BATCH_MESSAGES } from '../mcp/mcp-endpoint';
import { withoutHigh } from '../ops/op-dispatcher';

/**
 * Hostile input on the surfaces added last: `tracker.incidents`, the optional `duplicate_links`
 * and `incidents` sections of `tracker.source_register`, and the MCP endpoint's own error path.
 * Through the HTTP API of an embedded Loom with the tracker on and a source whose incidents are
 * mapped, so valid bodies reach the source. The gateway's whole log (debug) is captured: no
 * secret sent in a request may reach it.
 */
describe('Hostile input on the newest surfaces: tracker incidents, optional mapping sections, the MCP error path [issue 9: fuzz]', () => {
  const seed = Number(process.env['LOOM_FUZZ_SEED'] ?? 20261203);
  const lines: string[] = [];
  let loom: TestLoom;
  let db: string;
  let ns: string;
  let writerToken: string;

  const storage = () => loom.gateway.runtime.storage;
  const secretsIn = (text: string) => FUZZ_SECRETS.filter((s) => text.includes(s));

  /** Registration with every section, incidents and duplicate_links included. */
  const DUPLICATE_LINKS = { table: 'dup_links', issue: 'dup', duplicate_of: 'orig', linked_at: 'at' };
  function fullRegistration(): { connection: Record<string, unknown>; mapping: Record<string, Record<string, unknown>>; issue_url_base: string } {
    const base = trackerRegistration(db) as { connection: Record<string, unknown>; mapping: Record<string, Record<string, unknown>>; issue_url_base: string };
    return { ...base, mapping: { ...base.mapping, incidents: { ...OUTAGES_MAPPING }, duplicate_links: { ...DUPLICATE_LINKS } } };
  }

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    loom = await startTestLoom({
      env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_LOG_LEVEL: 'debug', LOOM_TRACKER_ORG: 'acme' },
      logger: createLogger('gateway', 'debug', sink),
    });
    db = `${storage().tables.database}_hs_tracker`;
    await createTrackerTables(storage(), db);
    await createOutagesTable(storage(), db);
    // Columns of kinds a mapping must not take for a time or text field.
    await storage().command(`CREATE TABLE ${db}.dup_links (dup UInt32, orig UInt32, at DateTime('UTC'), dates Array(DateTime('UTC')), names Array(String), by_name Map(String, DateTime('UTC')), \`we"ird\` String) ENGINE = MergeTree ORDER BY dup`);
    await storage().client.insert({ table: `${db}.dup_links`, format: 'JSONEachRow', values: [{ dup: 106, orig: 101, at: '2026-01-20 10:00:00', dates: [], names: [], by_name: {}, 'we"ird': '' }] });
    ns = uniqueNamespace();
    await loom.record(ns);
    await loom.admin.ok('tracker.source_register', { namespace: ns, ...fullRegistration() });
    writerToken = (await loom.admin.ok<{ token: string }>('token.create', { namespace: ns, role: 'writer' })).token;
  }, 120_000);

  afterAll(async () => {
    await storage().command(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    await loom?.close();
  });

  /** Calls `op`, expects a 400 naming exactly `fields`, nothing written, and no secret of the body in the answer. */
  async function refused(op: 'tracker.incidents' | 'tracker.source_register', body: Record<string, unknown>, fields: readonly string[], namespace = ns): Promise<void> {
    const before = await rowCounts(storage());
    const result = await loom.admin.call(op, { namespace, ...body });
    const named = ((result.body?.error?.fields ?? []) as Array<{ field: string }>).map((f) => f.field).sort();
    expect([op, body, result.status, named]).toEqual([op, body, 400, [...fields].sort()]);
    expect([op, secretsIn(JSON.stringify(result.body))]).toEqual([op, []]);
    expect(await rowCounts(storage())).toEqual(before);
  }

  describe('tracker.incidents', () => {
    it('TRACKER-01, TRACKER-02 [issue 13: incidents]: generated hostile bodies never get a 5xx, every 400 names a field, a refused call writes nothing, and no secret is echoed or logged', async () => {
      const writes = trackWrites(storage());
      const report = await fuzzOps(
        { url: loom.url, token: loom.admin.token, namespace: ns, ...writes },
        {
          seed,
          runsPerOp: 300,
          msPerOp: 60_000,
          ops: ['tracker.incidents'],
          values: {
            'tracker.incidents': {
              pr: [2003, 2004, 2008, 9999, 1, 2_147_483_647],
              repository: ['acme/app', 'demo', 'ACME/App', "acme/app' OR 1=1 --", '../etc/passwd', 'a'.repeat(200), 'acme/app#2003'],
              commit: ['a1b2c3d', 'ABCDEF12', 'd4e5f6a', 'a1b2c3d0000000000000000000000000000000ff', 'f'.repeat(64)],
              severity: ['SEV1', 'sev2', "' OR 1=1 --", 'é\u0301', '数字', '`x`', '%', '_'],
              status: ['open', 'RESOLVED', "'); DROP TABLE outages; --", '\\', '{status:String}'],
              since: ['2026-03-01', '1900-01-01', '2299-12-31T23:59:59.999999999+14:00', '2026-03-02T10:00:00-12:00'],
              until: ['2026-03-03T00:00:00Z', '1900-01-01T00:00:00Z', '2299-12-31'],
              limit: [1, 2, 200],
              offset: [0, 2, 100_000],
            },
          },
        },
      );
      const calls = report.runs['tracker.incidents'] ?? 0;
      process.stdout.write(`tracker.incidents fuzz seed ${seed}: ${calls} calls in ${report.ms} ms\n${JSON.stringify(report.statuses)}\n`);
      expect(calls).toBeGreaterThan(50);
      // Valid bodies reach the source and are answered, and hostile ones are refused.
      expect(report.statuses['tracker.incidents']?.['200'] ?? 0).toBeGreaterThan(5);
      expect(report.statuses['tracker.incidents']?.['400'] ?? 0).toBeGreaterThan(5);
      expect(report.failures).toEqual([]);
      expect(secretsIn(lines.join(''))).toEqual([]);
    }, 180_000);

    it('TRACKER-01, TRACKER-02 [issue 13: incidents]: hand-picked wrong types, out-of-range paging, unknown fields and over-long filters are one 400 naming each field', async () => {
      const [ghp, skKey] = FUZZ_SECRETS;
      await refused('tracker.incidents', { limit: '5', offset: '0' }, ['limit', 'offset']);
      await refused('tracker.incidents', { repository: 'acme/app#3', pr: 3 }, ['repository']);
      await refused('tracker.incidents', { repository: ['acme/app'], commit: 'a1b2c3d' }, ['repository']);
      await refused('tracker.incidents', { repository: `${'a'.repeat(129)}/app` }, ['repository']);
      await refused('tracker.incidents', { repository: `acme/${ghp}x/y` }, ['repository']);
      await refused('tracker.incidents', { limit: -1, offset: -1 }, ['limit', 'offset']);
      await refused('tracker.incidents', { limit: 0, offset: 100_001 }, ['limit', 'offset']);
      await refused('tracker.incidents', { limit: 2 ** 53 + 2, offset: 1e21 }, ['limit', 'offset']);
      await refused('tracker.incidents', { limit: 1.5, offset: 0.5, pr: 2003.5 }, ['limit', 'offset', 'pr']);
      await refused('tracker.incidents', { pr: -2003, commit: 123_4567, since: 20260301 }, ['commit', 'pr', 'since']);
      await refused('tracker.incidents', { pr: 2 ** 31, commit: 'a1b2c3', until: '2026-02-30' }, ['commit', 'pr', 'until']);
      await refused('tracker.incidents', { pr: '2003', commit: ['a1b2c3d'], severity: ['SEV1'], status: { eq: 'open' } }, ['commit', 'pr', 'severity', 'status']);
      await refused('tracker.incidents', { severity: '', status: 'x'.repeat(129) }, ['severity', 'status']);
      await refused('tracker.incidents', { severity: 'x'.repeat(70_000), commit: 'g'.repeat(40) }, ['commit', 'severity']);
      await refused('tracker.incidents', { commit: `a1b2c3d' OR 1=1 --`, since: "2026-03-01' OR '1'='1", until: 'yesterday' }, ['commit', 'since', 'until']);
      await refused('tracker.incidents', { commit: 'a'.repeat(65), since: '+275760-09-13T00:00:00Z', until: '1899-12-31' }, ['commit', 'since', 'until']);
      await refused('tracker.incidents', { severity: 'SEV\ud8001', status: 'open\udc00' }, ['severity', 'status']);
      // Unknown fields, one of them a pasted secret: refused by name, never echoed.
      await refused('tracker.incidents', { sort: 'started_at', where: '1=1', token: ghp }, ['sort', 'token', 'where']);
      await refused('tracker.incidents', { [skKey!]: 1, limit: 1 }, [expect.any(String) as unknown as string]);
      await refused('tracker.incidents', { namespace: "acme' OR 1=1 --", limit: null }, ['limit', 'namespace'], "acme' OR 1=1 --");
    }, 120_000);

    it('TRACKER-02 [issue 13: incidents]: filter values with SQL metacharacters, unicode or a secret are data: matched as text, answered 200 with no match, and the source is untouched', async () => {
      const before = await rowCounts(storage());
      const outages = async () => (await storage().query<{ n: string }>(`SELECT toString(count()) AS n FROM ${db}.outages`, {}))[0]!.n;
      const count = await outages();
      for (const value of ["' OR 1=1 --", "SEV1' OR '1'='1", "'); DROP TABLE outages; --", '{severity:String}', '%', '_', '\\', 'é\u0301', '数字 👍', '\u202eSEV1', 'SEV1\u0000', 'open\r\n', FUZZ_SECRETS[0]!]) {
        for (const field of ['severity', 'status']) {
          const answer = await loom.admin.call('tracker.incidents', { namespace: ns, [field]: value });
          expect([field, value, answer.status, answer.body.incidents]).toEqual([field, value, 200, []]);
        }
      }
      // Case-insensitive equality, not a pattern: `%` and `_` match nothing, SEV1 its two incidents.
      expect((await loom.admin.ok('tracker.incidents', { namespace: ns, severity: 'sev1' })).incidents.map((i: { id: string }) => i.id)).toEqual(['INC-1', 'INC-3']);
      // Paging far past the end is an empty page, not an error.
      expect(await loom.admin.ok('tracker.incidents', { namespace: ns, limit: 200, offset: 100_000 })).toEqual({ incidents: [], next_offset: null });
      // The extremes of the time range the validator takes are read, not a 503.
      expect((await loom.admin.call('tracker.incidents', { namespace: ns, since: '1900-01-01', until: '2299-12-31T23:59:59.999999999+14:00' })).status).toBe(200);
      expect(await outages()).toBe(count);
      expect(await rowCounts(storage())).toEqual(before);
      expect(secretsIn(lines.join(''))).toEqual([]);
    }, 120_000);
  });

  describe('tracker.source_register: the optional duplicate_links and incidents sections', () => {
    /** Names that are no plain identifier, each refused by the validator by field; and a token shaped like one, refused by the source check (no such column), withheld. */
    const BAD_NAMES: readonly unknown[] = ['a`b', '`ref`', 'x"y', '"ref"', "ref'", 'ref; DROP TABLE x', 'a b', '', ' ', 'x'.repeat(65), '1abc', 'é', 'ref\u0000', 'a.b', 'outages.ref', '-- ', 'ref)', '{ref:String}', FUZZ_SECRETS[0]!, 5, null, true, [], ['ref'], {}, { name: 'ref' }];
    /** Kinds a whole section must not be. */
    const BAD_SECTIONS: readonly unknown[] = [[], [{ ...OUTAGES_MAPPING }], 'outages', 5, true, null];
    const REQUIRED = { incidents: ['table', 'id', 'title', 'started_at'], duplicate_links: ['table', 'issue', 'duplicate_of'] } as const;
    const OPTIONAL = { incidents: ['resolved_at', 'severity', 'status', 'summary', 'caused_by_pr', 'caused_by_commit', 'fixed_by_pr', 'fixed_by_commit', 'repo'], duplicate_links: ['linked_at'] } as const;
    /** Real columns of a kind the field cannot take (checked against the source), by field. */
    const WRONG_KIND: Record<string, readonly string[]> = {
      'incidents.title': ['culprit_prs', 'began', 'labels'],
      'incidents.summary': ['culprit_prs', 'began', 'remedy_shas'],
      'incidents.started_at': ['headline', 'culprit_prs', 'labels'],
      'incidents.resolved_at': ['headline', 'remedy_shas'],
      'incidents.caused_by_pr': ['labels'],
      'incidents.fixed_by_commit': ['labels'],
      'duplicate_links.linked_at': ['dup', 'names', 'dates', 'by_name'],
      'incidents.id': ['labels', 'culprit_prs'],
      'incidents.severity': ['labels'],
      'incidents.status': ['remedy_shas'],
      'incidents.repo': ['culprit_prs', 'remedy_shas', 'labels', 'began'],
      'duplicate_links.issue': ['names', 'by_name'],
      'duplicate_links.duplicate_of': ['dates'],
    };
    type Section = keyof typeof REQUIRED;
    type Mutation = { section: Section; field: string; kind: 'shape' | 'source'; value?: unknown; apply: (mapping: Record<string, Record<string, unknown>>) => void };

    const section = fc.constantFrom<Section>('incidents', 'duplicate_links');
    const mutation: fc.Arbitrary<Mutation> = fc.oneof(
      // A column or table name that is no identifier.
      section.chain((s) =>
        fc.tuple(fc.constantFrom(...REQUIRED[s], ...OPTIONAL[s]), fc.constantFrom(...BAD_NAMES)).map(([field, value]): Mutation => ({ section: s, field, kind: typeof value === 'string' && TRACKER_IDENTIFIER.test(value) ? 'source' : 'shape', value, apply: (m) => void (m[s]![field] = value) })),
      ),
      // A required name left out.
      section.chain((s) => fc.constantFrom(...REQUIRED[s]).map((field): Mutation => ({ section: s, field, kind: 'shape', apply: (m) => void delete m[s]![field] }))),
      // A field the section does not have.
      section.chain((s) => fc.constantFrom('bogus', 'where', 'constructor', 'sql', FUZZ_SECRETS[1]!).map((field): Mutation => ({ section: s, field, kind: 'shape', apply: (m) => void (m[s]![field] = 'ref') }))),
      // A column the table does not have.
      section.chain((s) => fc.constantFrom(...REQUIRED[s].slice(1), ...OPTIONAL[s]).map((field): Mutation => ({ section: s, field, kind: 'source', apply: (m) => void (m[s]![field] = 'no_such_column') }))),
      // A real column of the wrong kind.
      fc.constantFrom(...Object.keys(WRONG_KIND)).chain((key) => {
        const [s, field] = key.split('.') as [Section, string];
        return fc.constantFrom(...WRONG_KIND[key]!).map((column): Mutation => ({ section: s, field, kind: 'source', apply: (m) => void (m[s]![field] = column) }));
      }),
    );
    /** The whole section is of the wrong kind: it alone is named. */
    const sectionMutation = fc.tuple(section, fc.constantFrom(...BAD_SECTIONS)).map(([s, value]) => ({ section: s, value }));

    it('TRACKER-01 [issue 13: mapping sections]: generated malformed duplicate_links and incidents sections get one 400 naming each bad field, and store nothing', async () => {
      const other = uniqueNamespace();
      let cases = 0;
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(mutation, { minLength: 1, maxLength: 4, selector: (m) => `${m.section}.${m.field}` }), fc.option(sectionMutation, { freq: 5 }), async (mutations, whole) => {
          cases++;
          const body = fullRegistration();
          for (const m of mutations) m.apply(body.mapping);
          let expected: string[];
          const live = mutations.filter((m) => m.section !== whole?.section);
          if (whole) body.mapping[whole.section] = whole.value as Record<string, unknown>;
          const shape = live.filter((m) => m.kind === 'shape');
          // The validator names every field whose shape is wrong; the source is asked about the
          // columns only when the shapes are sound.
          if (whole || shape.length > 0) expected = [...(whole ? [`mapping.${whole.section}`] : []), ...shape.map((m) => `mapping.${m.section}.${m.field}`)];
          // A table the source does not have is named alone: its columns are not looked for.
          else expected = live.filter((m) => m.field === 'table' || !live.some((t) => t.section === m.section && t.field === 'table')).map((m) => `mapping.${m.section}.${m.field}`);
          // A field name that looks like a secret is named, withheld.
          expected = expected.map((field) => (secretsIn(field).length > 0 ? field.replace(/[^.]+$/, '[withheld]') : field));
          const before = await rowCounts(storage());
          const result = await loom.admin.call('tracker.source_register', { namespace: other, ...body });
          const named = ((result.body?.error?.fields ?? []) as Array<{ field: string }>).map((f) => f.field).sort();
          expect([body.mapping, result.status, named]).toEqual([body.mapping, 400, [...new Set(expected)].sort()]);
          expect(secretsIn(JSON.stringify(result.body))).toEqual([]);
          expect(await rowCounts(storage())).toEqual(before);
        }),
        { seed, numRuns: 120, interruptAfterTimeLimit: 100_000 },
      );
      expect(cases).toBeGreaterThan(30);
      expect((await loom.admin.ok('tracker.status', { namespace: other })).source_registered).toBe(false);
      expect(secretsIn(lines.join(''))).toEqual([]);
    }, 180_000);

    it('TRACKER-01 [issue 13: mapping sections]: hand-picked malformed sections: arrays, missing tables, quoted names, wrong kinds, each named in one 400', async () => {
      const other = uniqueNamespace();
      const register = (change: (m: Record<string, Record<string, unknown>>) => void) => {
        const body = fullRegistration();
        change(body.mapping);
        return body;
      };
      await refused('tracker.source_register', register((m) => void ((m as Record<string, unknown>)['incidents'] = [])), ['mapping.incidents'], other);
      await refused('tracker.source_register', register((m) => void ((m as Record<string, unknown>)['duplicate_links'] = [{ ...DUPLICATE_LINKS }])), ['mapping.duplicate_links'], other);
      await refused('tracker.source_register', register((m) => void ((m as Record<string, unknown>)['incidents'] = 'outages')), ['mapping.incidents'], other);
      await refused('tracker.source_register', register((m) => void ((m as Record<string, unknown>)['duplicate_links'] = null)), ['mapping.duplicate_links'], other);
      await refused('tracker.source_register', register((m) => void delete m['incidents']!['table']), ['mapping.incidents.table'], other);
      await refused('tracker.source_register', register((m) => void (m['duplicate_links'] = { issue: 'dup', duplicate_of: 'orig' })), ['mapping.duplicate_links.table'], other);
      await refused(
        'tracker.source_register',
        register((m) => {
          m['incidents'] = { ...OUTAGES_MAPPING, id: '`ref`', title: 'headline"', summary: 'postmortem; DROP TABLE outages', caused_by_pr: "culprit_prs'" };
          m['duplicate_links'] = { ...DUPLICATE_LINKS, issue: 'dup--', linked_at: 'at)' };
        }),
        ['mapping.duplicate_links.issue', 'mapping.duplicate_links.linked_at', 'mapping.incidents.caused_by_pr', 'mapping.incidents.id', 'mapping.incidents.summary', 'mapping.incidents.title'],
        other,
      );
      // A column whose real name holds a quote is still no name Loom puts into SQL.
      await refused('tracker.source_register', register((m) => void (m['duplicate_links'] = { ...DUPLICATE_LINKS, issue: 'we"ird' })), ['mapping.duplicate_links.issue'], other);
      // Past the validator, against the source's columns.
      await refused('tracker.source_register', register((m) => void (m['duplicate_links'] = { ...DUPLICATE_LINKS, table: 'no_such_links' })), ['mapping.duplicate_links.table'], other);
      await refused(
        'tracker.source_register',
        register((m) => {
          m['incidents'] = { ...OUTAGES_MAPPING, started_at: 'culprit_prs', title: 'labels' };
          m['duplicate_links'] = { ...DUPLICATE_LINKS, duplicate_of: 'no_such_column', linked_at: 'dates' };
        }),
        ['mapping.duplicate_links.duplicate_of', 'mapping.duplicate_links.linked_at', 'mapping.incidents.started_at', 'mapping.incidents.title'],
        other,
      );
      // A time field needs one time per row, not an Array or a Map of them; a text field one text.
      await refused('tracker.source_register', register((m) => void (m['duplicate_links'] = { ...DUPLICATE_LINKS, table: 'dup_links', linked_at: 'by_name' })), ['mapping.duplicate_links.linked_at'], other);
      await refused('tracker.source_register', register((m) => void (m['incidents'] = { ...OUTAGES_MAPPING, summary: 'remedy_shas' })), ['mapping.incidents.summary'], other);
      // An id, a severity or a status is one value per row: a Map or an Array would read as "{}" or "[]".
      await refused('tracker.source_register', register((m) => void (m['incidents'] = { ...OUTAGES_MAPPING, id: 'labels', severity: 'culprit_prs', status: 'remedy_shas' })), ['mapping.incidents.id', 'mapping.incidents.severity', 'mapping.incidents.status'], other);
      await refused('tracker.source_register', register((m) => void (m['duplicate_links'] = { ...DUPLICATE_LINKS, issue: 'names', duplicate_of: 'by_name' })), ['mapping.duplicate_links.duplicate_of', 'mapping.duplicate_links.issue'], other);
      expect((await loom.admin.ok('tracker.status', { namespace: other })).source_registered).toBe(false);
      expect(secretsIn(lines.join(''))).toEqual([]);
    }, 120_000);
  });

  describe('the MCP endpoint\'s error path', () => {
    const ACCEPT = 'application/json, text/event-stream';
    let sessionId: string;
    let allSessionId: string;
    const clients: Client[] = [];

    beforeAll(async () => {
      const open = async (query: string) => {
        const client = new Client({ name: 'hostile-client', version: '1' });
        const transport = new StreamableHTTPClientTransport(new URL(`${loom.url}/mcp${query}`), { requestInit: { headers: { authorization: `Bearer ${writerToken}` } } });
        await client.connect(transport);
        clients.push(client);
        return transport.sessionId!;
      };
      sessionId = await open('');
      allSessionId = await open('?toolset=all');
    });
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()));
    });

    async function post(text: string, session?: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; body: any }> {
      const response = await fetch(`${loom.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${writerToken}`, ...(session ? { 'mcp-session-id': session } : {}), ...headers },
        body: text,
      });
      const raw = await response.text();
      return { status: response.status, text: raw, body: jsonOrUndefined(raw) };
    }

    /** What every answer must be: no 5xx, JSON-RPC when there is a body, no stack trace, no secret of the request. */
    function problems(sent: string, answer: { status: number; text: string; body: any }): string[] {
      const out: string[] = [];
      if (answer.status >= 500) out.push(`status ${answer.status}`);
      if (answer.text !== '') {
        const messages = Array.isArray(answer.body) ? answer.body : [answer.body];
        for (const m of messages) {
          if (typeof m !== 'object' || m === null || m.jsonrpc !== '2.0') out.push('not a JSON-RPC message');
          else if (m.error !== undefined && (typeof m.error.code !== 'number' || typeof m.error.message !== 'string')) out.push('a malformed JSON-RPC error');
          else if (m.error === undefined && m.result === undefined) out.push('neither result nor error');
        }
        if (answer.status >= 400 && messages.every((m) => m?.error === undefined)) out.push(`${answer.status} without a JSON-RPC error`);
      }
      if (/\n\s+at [\w.<>]+ \(|node_modules|\.ts:\d+/.test(answer.text)) out.push('a stack trace');
      // The id is the caller's own handle, which JSON-RPC answers as sent: everything else counts.
      const shown = answer.body === undefined ? answer.text : JSON.stringify((Array.isArray(answer.body) ? answer.body : [answer.body]).map((m: unknown) => (typeof m === 'object' && m !== null ? { ...m, id: undefined } : m)));
      const echoed = secretsIn(sent).filter((s) => shown.includes(s));
      if (echoed.length > 0) out.push(`echoed ${echoed.join(', ')}`);
      return out;
    }

    const SECRET_TEXT = FUZZ_SECRETS.map((s) => `my key is ${s}`);
    const TOOLS = ['loom_search', 'loom_conversation_append', 'loom_brief_get', 'loom_brief_save', 'loom_saved_search', 'loom_history_path', 'loom_history_line', 'loom_run_complete'];
    const hostileArg: fc.Arbitrary<unknown> = fc.oneof(
      fc.constantFrom(null, true, 0, -1, 1.5, 2 ** 53 + 2, 1e308, '', ' ', '\u0000', 'a\ud800b', '👍', "' OR 1=1 --", '../../etc/passwd', [], {}, [1, 'a'], { query: 'x' }, ...FUZZ_SECRETS, ...SECRET_TEXT),
      fc.integer({ min: 2_000, max: 300_000 }).map((n) => 'x'.repeat(n)),
      fc.string({ unit: 'binary', maxLength: 30 }),
    );
    const ARG_NAMES = ['query', 'limit', 'search_mode', 'thread_id', 'role', 'content', 'brief_key', 'sections', 'events', 'user_id', 'repository', 'path', 'line', 'status', 'run_id', 'namespace', '__proto__', 'constructor', FUZZ_SECRETS[2]!];
    const toolCall = fc
      .record({
        name: fc.oneof({ arbitrary: fc.constantFrom(...TOOLS), weight: 6 }, { arbitrary: fc.constantFrom('loom_nope', 'loom_search ', 'LOOM_SEARCH', '', FUZZ_SECRETS[0]!, 'x'.repeat(5_000), 'tools/call'), weight: 2 }, { arbitrary: hostileArg, weight: 1 }),
        arguments: fc.oneof({ arbitrary: fc.dictionary(fc.constantFrom(...ARG_NAMES), hostileArg, { maxKeys: 4 }), weight: 6 }, { arbitrary: hostileArg, weight: 1 }),
      })
      .map((params) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }));
    const envelope = fc.oneof(
      fc.constantFrom('', ' ', 'x', 'null', '[]', '[1]', '"tools/call"', '{"jsonrpc":', '{"a":1,}', '\u0000', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"loom_search","arguments":{"query":"\\ud800"}}}', '{"jsonrpc":"2.0","id":1e999,"method":"ping"}', '[' + '{"jsonrpc":"2.0","id":1,"method":"ping"},'.repeat(50) + '{"jsonrpc":"2.0","id":2,"method":"ping"}]'),
      fc.constantFrom(17, 40, 5_000).map((depth) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"loom_search","arguments":{"query":${'['.repeat(depth)}${']'.repeat(depth)}}}}`),
      fc
        .record({
          jsonrpc: fc.constantFrom('2.0', '1.0', 2, undefined),
          id: fc.constantFrom(1, 'a', null, undefined, {}, [], 1.5, FUZZ_SECRETS[0]!),
          method: fc.constantFrom('tools/call', 'tools/list', 'ping', 'initialize', 'nope', '', 5, null, 'notifications/initialized', 'resources/list', 'prompts/get', FUZZ_SECRETS[4]!),
          params: fc.oneof(fc.constant(undefined), hostileArg, fc.constant({ name: 'loom_search', arguments: { query: 'x' } })),
        })
        .map((m) => JSON.stringify(m)),
    );

    it('MCP-01, MCP-03 [issue 12: MCP errors]: generated malformed JSON-RPC bodies, unknown tools and hostile tool arguments get a JSON-RPC or tool error, never a 5xx, a stack trace or a secret back', async () => {
      const failures: string[] = [];
      const statuses: Record<string, number> = {};
      let calls = 0;
      await fc.assert(
        fc.asyncProperty(fc.oneof({ arbitrary: toolCall.map((m) => JSON.stringify(m)), weight: 3 }, { arbitrary: envelope, weight: 2 }), fc.constantFrom<'core' | 'all' | 'none' | 'unknown'>('core', 'all', 'all', 'none', 'unknown'), async (text, which) => {
          const session = which === 'core' ? sessionId : which === 'all' ? allSessionId : which === 'unknown' ? `${sessionId.slice(0, -4)}beef` : undefined;
          const answer = await post(text, session);
          calls++;
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
          const found = problems(text, answer);
          if (found.length > 0) failures.push(`${found.join('; ')}: sent ${text.slice(0, 200)} → ${answer.status} ${answer.text.slice(0, 300)}`);
          return true;
        }),
        { seed, numRuns: 400, interruptAfterTimeLimit: 120_000 },
      );
      process.stdout.write(`MCP fuzz seed ${seed}: ${calls} calls, statuses ${JSON.stringify(statuses)}\n`);
      expect(calls).toBeGreaterThan(50);
      expect(failures.slice(0, 10)).toEqual([]);
      expect(secretsIn(lines.join(''))).toEqual([]);
      // The sessions still answer.
      expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'loom_search', arguments: { query: 'still here' } } }), sessionId)).body.result.isError).toBeFalsy();
    }, 240_000);

    it('MCP-01, MCP-03 [issue 12: MCP errors]: hand-picked: each answer is the protocol\'s error, names the argument, and echoes no secret', async () => {
      const [ghp, skKey] = FUZZ_SECRETS;
      const callTool = (name: unknown, args: unknown, session = allSessionId) => post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } }), session);
      const expectClean = (sent: unknown, answer: { status: number; text: string; body: any }) => expect([sent, problems(JSON.stringify(sent), answer)]).toEqual([sent, []]);

      // Not JSON, not an object, nested too deep: 400 with a JSON-RPC error.
      for (const text of ['{"jsonrpc":', 'null', '[]', `{"a":${'['.repeat(100)}${']'.repeat(100)}}`]) {
        const answer = await post(text, sessionId);
        expect([text.slice(0, 20), answer.status, answer.body?.error?.code]).toEqual([text.slice(0, 20), 400, expect.any(Number)]);
        expectClean(text, answer);
      }
      // An unknown method: the protocol's "method not found".
      const unknownMethod = await post(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/destroy' }), sessionId);
      expect([unknownMethod.status, unknownMethod.body.error.code]).toEqual([200, -32601]);

      // An unknown tool, one named with a pasted token: a tool error that does not repeat the name.
      for (const name of ['loom_nope', ghp, `loom_${skKey}`, 'loom_conversation_append']) {
        const answer = await callTool(name, {}, sessionId);
        expect([name, answer.status, answer.body.result?.isError, answer.body.result?.content[0].text]).toEqual([name, 200, true, expect.stringMatching(/^MCP error -32602: Tool .* not found$/)]);
        expect(answer.text).not.toContain(name);
        expectClean(name, answer);
      }
      // Arguments of the wrong types: a tool error naming each argument, the op never called.
      // (Every request touches the session's run: the turns are what must not change.)
      const turns = async () => (await storage().query<{ n: string }>(`SELECT toString(count()) AS n FROM ${storage().tables.conversations} WHERE namespace = {ns:String}`, { ns }))[0]!.n;
      const before = await turns();
      const wrong = await callTool('loom_conversation_append', { thread_id: 5, role: 'robot', content: ['x'] });
      expect(wrong.body.result.isError).toBe(true);
      for (const argument of ['thread_id', 'role', 'content']) expect([argument, wrong.body.result.content[0].text]).toEqual([argument, expect.stringContaining(argument)]);
      const search = await callTool('loom_search', { query: { $ne: 1 }, limit: '5' }, sessionId);
      expect(search.body.result.isError).toBe(true);
      expect(search.body.result.content[0].text).toMatch(/query[\s\S]*limit|limit[\s\S]*query/);
      // Arguments that are not an object at all.
      for (const args of ['query', 5, [1], null]) expectClean(args, await callTool('loom_search', args, sessionId));
      // Over-long and secret-bearing arguments: refused by the op's own limits, by name, the secret not repeated.
      const long = await callTool('loom_conversation_append', { thread_id: `t-${ghp}`.repeat(20), role: 'user', content: 'x' });
      expect([long.body.result.isError, long.body.result.content[0].text]).toEqual([true, expect.stringContaining('thread_id')]);
      expectClean({ thread_id: ghp }, long);
      const huge = await callTool('loom_search', { query: `${skKey} `.repeat(100_000) }, sessionId);
      expect([huge.body.result.isError, huge.body.result.content[0].text]).toEqual([true, expect.stringMatching(/request body is over .* bytes/)]);
      expectClean({ query: skKey }, huge);
      const wrongRun = await callTool('loom_run_complete', { run_id: ghp, status: 'succeeded' });
      expect(wrongRun.body.result.isError).toBe(true);
      expectClean({ run_id: ghp }, wrongRun);
      expect(await turns()).toBe(before);
      // A namespace the token does not reach, named with a pasted token: refused, the name withheld.
      for (const namespace of [ghp!, 'AKIAQ7X2M4N6P8R0T2V4']) {
        const init = await fetch(`${loom.url}/mcp?namespace=${encodeURIComponent(namespace)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${writerToken}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
        });
        const text = await init.text();
        expect([namespace, init.status, JSON.parse(text).error.message]).toEqual([namespace, 403, expect.stringMatching(/no access to namespace/)]);
        expectClean(namespace, { status: init.status, text, body: JSON.parse(text) });
      }
      // The HTTP around the message: a missing Accept or content type, a session id that is a
      // pasted token, GET and DELETE without a session, a method /mcp does not serve.
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' });
      const http = async (method: string, headers: Record<string, string>, body?: string) => {
        const response = await fetch(`${loom.url}/mcp`, { method, headers: { authorization: `Bearer ${writerToken}`, ...headers }, ...(body !== undefined ? { body } : {}) });
        const text = await response.text();
        return { status: response.status, text, body: jsonOrUndefined(text) as any };
      };
      const requests: Array<[string, Record<string, string>, string | undefined]> = [
        ['POST', { 'content-type': 'application/json', 'mcp-session-id': sessionId }, ping],
        ['POST', { 'content-type': 'text/plain', accept: ACCEPT, 'mcp-session-id': sessionId }, ping],
        ['POST', { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': ghp! }, ping],
        ['GET', { accept: 'text/event-stream' }, undefined],
        ['DELETE', {}, undefined],
        ['DELETE', { 'mcp-session-id': `${skKey}` }, undefined],
        ['PUT', { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': sessionId }, ping],
      ];
      for (const [method, headers, body] of requests) {
        const answer = await http(method, headers, body);
        expect([method, headers, answer.status >= 400 && answer.status < 500, answer.body?.jsonrpc, typeof answer.body?.error?.code]).toEqual([method, headers, true, '2.0', 'number']);
        expect([method, headers, problems(`${JSON.stringify(headers)}${body ?? ''}`, answer)]).toEqual([method, headers, []]);
      }
      // A body past the HTTP limit is still a JSON-RPC answer, not the web framework's.
      const tooBig = await post(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'loom_search', arguments: { query: 'y'.repeat(9 * 1024 * 1024) } } }), sessionId);
      expect([tooBig.status, tooBig.body?.jsonrpc, typeof tooBig.body?.error?.code]).toEqual([413, '2.0', 'number']);
      expect(secretsIn(lines.join(''))).toEqual([]);
    }, 240_000);

    /** How many ops the gateway has run (each logs one `op` line), to show a refused call ran none. */
    const opsRun = () => (lines.join('').match(/"msg":"op"/g) ?? []).length;
    const turnCount = async () => (await storage().query<{ n: string }>(`SELECT toString(count()) AS n FROM ${storage().tables.conversations} WHERE namespace = {ns:String}`, { ns }))[0]!.n;
    const toolCallText = (name: string, args: unknown, id: number | string = 3) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

    it('MCP-01, MCP-03 [issue 12: MCP errors]: generated arguments a tool does not know are refused, each named (one that reads as high withheld), and the op never runs', async () => {
      // What each tool takes, as its listing says; the listing says nothing else is taken.
      const listed = new Map<string, { properties: Record<string, unknown>; additionalProperties: unknown }>();
      for (const session of [sessionId, allSessionId]) {
        const answer = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), session);
        for (const t of answer.body.result.tools as Array<{ name: string; inputSchema: { properties: Record<string, unknown>; additionalProperties: unknown } }>) listed.set(t.name, t.inputSchema);
      }
      expect([...listed.values()].map((schema) => schema.additionalProperties)).toEqual([...listed.keys()].map(() => false));
      // A valid call of each tool but for the unknown arguments added to it.
      const VALID: Record<string, Record<string, unknown>> = {
        loom_search: { query: 'ledger' },
        loom_conversation_append: { thread_id: 'strict', role: 'user', content: 'never stored' },
        loom_brief_list: {},
        loom_brief_save: { brief_key: 'strict/never', sections: { goal: 'never saved' }, use_llm: false },
        loom_context_pack: { query: 'ledger' },
        loom_history_path: { repository: 'demo', path: 'src/a.ts' },
        loom_run_complete: { status: 'succeeded' },
      };
      const unknownName = fc.oneof(
        { arbitrary: fc.constantFrom('limt', 'namespace', 'Query', 'query ', 'thread-id', 'runId', '__proto__', 'constructor', 'prototype', 'toString', '', ' ', '\u0000', '👍', 'é\u0301', "' OR 1=1 --", 'x'.repeat(300), ...FUZZ_SECRETS, `a_${FUZZ_SECRETS[0]!}`, `x-${FUZZ_SECRETS[1]!}`, `my key is ${FUZZ_SECRETS[2]!}`), weight: 3 },
        { arbitrary: fc.string({ minLength: 1, maxLength: 20 }), weight: 2 },
        { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }), weight: 1 },
      );
      const failures: string[] = [];
      const opsBefore = opsRun();
      const turnsBefore = await turnCount();
      let calls = 0;
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...Object.keys(VALID)), fc.uniqueArray(unknownName, { minLength: 1, maxLength: 6 }), fc.anything({ maxDepth: 1 }), async (tool, names, value) => {
          const schema = listed.get(tool)!;
          const unknown = names.filter((n) => !Object.prototype.hasOwnProperty.call(schema.properties, n));
          if (unknown.length === 0) return true;
          const args: Record<string, unknown> = { ...VALID[tool] };
          for (const n of unknown) Object.defineProperty(args, n, { value: value ?? 1, enumerable: true, configurable: true, writable: true });
          const sent = toolCallText(tool, args);
          const answer = await post(sent, tool === 'loom_search' ? sessionId : allSessionId);
          calls++;
          const text: string = answer.body?.result?.content?.[0]?.text ?? '';
          const found = problems(sent, answer);
          if (answer.status !== 200 || answer.body?.result?.isError !== true) found.push(`answered ${answer.status} ${answer.text.slice(0, 200)}`);
          if (!/Input validation error: .*unknown arguments?: /.test(text)) found.push('no "unknown argument"');
          // Each named, printable, unless it reads as high (then withheld, which problems() checks).
          const shown = (n: string) => (n === '__proto__' ? n : withoutHigh(printableKey(n)));
          for (const n of unknown) if (secretsIn(n).length === 0 && !text.includes(shown(n))) found.push(`${JSON.stringify(n)} not named`);
          if (found.length > 0) failures.push(`${found.join('; ')}: ${tool} ${JSON.stringify(unknown).slice(0, 200)} → ${text.slice(0, 300)}`);
          return true;
        }),
        { seed, numRuns: 150, interruptAfterTimeLimit: 90_000 },
      );
      process.stdout.write(`MCP unknown-argument fuzz seed ${seed}: ${calls} calls\n`);
      expect(calls).toBeGreaterThan(50);
      expect(failures.slice(0, 10)).toEqual([]);
      expect([opsRun() - opsBefore, await turnCount()]).toEqual([0, turnsBefore]);
      expect(secretsIn(lines.join(''))).toEqual([]);
      // The same call without them runs (loom_search: memory.search and conversation.search).
      expect((await post(toolCallText('loom_search', VALID['loom_search']), sessionId)).body.result.isError).toBeFalsy();
      expect(opsRun() - opsBefore).toBe(2);
    }, 180_000);

    it('MCP-01, MCP-03 [issue 12: MCP errors]: hand-picked unknown arguments: a typo, several, one with a wrong type beside it, nested ones, a pasted secret, past the field-error limit', async () => {
      const [ghp, skKey] = FUZZ_SECRETS;
      const callTool = async (name: string, args: unknown, session = allSessionId) => {
        const answer = await post(toolCallText(name, args), session);
        expect([name, args, problems(JSON.stringify(args), answer), answer.status, answer.body.result.isError]).toEqual([name, args, [], 200, true]);
        return answer.body.result.content[0].text as string;
      };
      const opsBefore = opsRun();
      const turnsBefore = await turnCount();
      // The case that was silently dropped: a typo of limit.
      expect(await callTool('loom_search', { query: 'ledger', limt: 5 }, sessionId)).toBe('MCP error -32602: Input validation error: Invalid arguments for tool loom_search: unknown argument: limt');
      expect(await callTool('loom_search', { query: 'ledger', limt: 5, serch_mode: 'vector', top_k: 3 }, sessionId)).toMatch(/unknown arguments: limt, serch_mode, top_k$/);
      // A wrong type and an unknown argument: both in the one answer.
      expect(await callTool('loom_search', { query: 5, limt: 5 }, sessionId)).toMatch(/expected string, received number at query\nunknown argument: limt$/);
      // namespace is no argument: the answer says where the session's namespace comes from.
      expect(await callTool('loom_conversation_append', { thread_id: 't', role: 'user', content: 'x', namespace: 'elsewhere' })).toMatch(/unknown argument: namespace \(the session's namespace is the one the MCP URL names: \/mcp\?namespace=<namespace>\)$/);
      // Keys an object's prototype has, and JSON's __proto__, are unknown like any other.
      expect(await callTool('loom_conversation_append', JSON.parse('{"thread_id":"t","role":"user","content":"x","__proto__":{"a":1},"constructor":1,"toString":2}'))).toMatch(/unknown arguments: __proto__, constructor, toString$/);
      // Unknown keys inside an argument: the brief's sections, an event.
      const nested = await callTool('loom_brief_save', JSON.parse('{"brief_key":"strict/never","sections":{"goal":"g","gaol":"typo"},"events":[{"kind":"user","text":"x"},{"kind":"user","text":"y","when":"now","__proto__":{}}],"use_llm":false}'));
      expect(nested).toMatch(/unknown field: gaol at sections/);
      expect(nested).toMatch(/unknown fields: when, __proto__ at events\[1\]/);
      // A pasted secret where an argument's name goes: refused, withheld, the other names shown.
      // A token glued to a name (no token boundary for the detector) is withheld too.
      const secret = await callTool('loom_search', { query: 'ledger', [ghp!]: 1, limt: 2, [`${skKey}`]: 3, 'password=Hunter2Secret!9': 4, [`a_${ghp}`]: 5, [`x-${skKey}`]: 6 }, sessionId);
      expect(secret).toMatch(/: unknown arguments: \[withheld\], limt, \[withheld\], \[withheld\], \[withheld\], \[withheld\]$/);
      // Odd names are printable: quoted, control characters escaped, over 64 characters cut.
      expect(await callTool('loom_search', { query: 'ledger', 'a b': 1, '\u0000': 2, ['y'.repeat(100)]: 3 }, sessionId)).toContain(`unknown arguments: "a b", "\\u0000", ${JSON.stringify(`${'y'.repeat(64)}…`)}`);
      // Thousands of them: Limits.maxFieldErrors (50) named, the rest counted.
      const many = await callTool('loom_search', { query: 'ledger', ...Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`k${i}`, i])) }, sessionId);
      expect([many.split(', ').length, many]).toEqual([50, expect.stringMatching(/: k0, k1, .*, k49 and 2950 more$/)]);
      // None of them ran an op or wrote a turn; the brief was not saved.
      expect([opsRun() - opsBefore, await turnCount()]).toEqual([0, turnsBefore]);
      expect((await loom.admin.call('session.brief_get', { namespace: ns, brief_key: 'strict/never' })).status).toBe(404);
      expect(secretsIn(lines.join(''))).toEqual([]);
    }, 120_000);

    it('MCP-01, MCP-03 [issue 12: MCP errors]: a JSON-RPC batch past MAX_BATCH_MESSAGES is one -32600 error saying the limit, and none of it runs; a batch at the limit runs', async () => {
      expect(MAX_BATCH_MESSAGES).toBe(32);
      const append = (i: number, thread: string, content = `turn ${i}`) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'loom_conversation_append', arguments: { thread_id: thread, role: 'user', content } } });
      const opsBefore = opsRun();
      const turnsBefore = await turnCount();
      for (const size of [MAX_BATCH_MESSAGES + 1, 100, 5_000]) {
        const sent = JSON.stringify(Array.from({ length: size }, (_, i) => append(i, 'batch-over', `turn ${i}: ${FUZZ_SECRETS[i % FUZZ_SECRETS.length]!}`)));
        const answer = await post(sent, allSessionId);
        expect([size, answer.status, answer.body]).toEqual([size, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `invalid request: a batch of ${size} messages is over the limit of 32 per POST` } }]);
        expect([size, problems(sent, answer)]).toEqual([size, []]);
      }
      // Without a session, or with a bad token, the size is refused all the same (before anything else is read).
      const pings = JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })));
      for (const answer of [await post(pings), await post(pings, allSessionId, { authorization: `Bearer ${FUZZ_SECRETS[0]!}` })]) {
        expect([answer.status, answer.body.error.code, problems(pings, answer)]).toEqual([400, -32600, []]);
      }
      expect([opsRun() - opsBefore, await turnCount()]).toEqual([0, turnsBefore]);
      expect((await loom.admin.call('conversation.get', { namespace: ns, thread_id: 'batch-over' })).status).toBe(404);
      // At the limit every message runs and is answered.
      const opsAtLimit = opsRun();
      const atLimit = await post(JSON.stringify(Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => append(i, 'batch-at'))), allSessionId);
      expect([atLimit.status, Array.isArray(atLimit.body) && atLimit.body.length, (atLimit.body as Array<{ result?: { isError?: boolean } }>).filter((m) => m.result && !m.result.isError).length]).toEqual([200, MAX_BATCH_MESSAGES, MAX_BATCH_MESSAGES]);
      expect(opsRun() - opsAtLimit).toBe(MAX_BATCH_MESSAGES);
      expect((await loom.admin.ok('conversation.list', { namespace: ns, thread_id: 'batch-at', limit: 100 })).messages).toHaveLength(MAX_BATCH_MESSAGES);
    }, 120_000);
  });
});

/** An answer's body as JSON, or undefined when it is empty or not JSON (a hostile case may get either). */
function jsonOrUndefined(raw: string): unknown {
  try {
    return raw === '' ? undefined : JSON.parse(raw);
  } catch {
    return undefined;
  }
}
