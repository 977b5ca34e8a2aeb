import { isDeploymentWideOp, isPerUserOp, NamespacedRequest, OpNames, Ops, principalKeyPrefix, roleAtLeast, type OpName, type ReadScope, type Role } from '@loom/contracts';
import { createLogger } from '@loom/platform';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { LoomApi } from './api.client';
import { startTestLoom, type TestLoom } from './embedded-loom';
import { startOpenAiCompatibleServer } from './openai-compatible.server';
import { createOutagesTable, createTrackerTables, trackerRegistrationWithIncidents } from './tracker-source';
import { writeGitFixture, type GitFixture } from './fixtures/git-repo';
import { githubDataFor, startFakeGithub } from './fixtures/github-api';

/**
 * The access matrix (issue 9, requirement 6): every op of the Ops table, called by each role in
 * each read scope, on the token's own namespace, on another namespace and for another user, with
 * the outcome each case must have derived from the table (`role`, `perUser`, `deploymentWide`)
 * and the documented scope rules, never from what the server happens to answer.
 */

export type Outcome = 'allow' | 'forbidden' | 'unauthorized';
export type Target = 'own' | 'other-namespace' | 'other-user';
export const Targets: readonly Target[] = ['own', 'other-namespace', 'other-user'];

/** Who calls: no token, an unknown token, a namespace token (role × scope), or an every-namespace token. */
export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'unknown-token' }
  | { kind: 'namespace'; role: Role; scope: ReadScope }
  | { kind: 'every-namespace'; role: Role };

export function callerName(c: Caller): string {
  if (c.kind === 'namespace') return `${c.role}/${c.scope}`;
  if (c.kind === 'every-namespace') return `${c.role}/every-namespace`;
  return c.kind;
}

/** The users and session bounded tokens are pinned to, and the other user. */
export const MATRIX_USER = 'alice';
export const MATRIX_SESSION = 's1';
export const OTHER_USER = 'bob';

/** What a fixture builds its body from. */
export interface FixtureTarget {
  namespace: string;
  /** The user the body names: the caller's own, or another. */
  user: string;
  /** A brief key: the caller's own plain key, or another principal's stored `~…~` key. */
  briefKey: string;
  /** Where the caller's own brief keys are stored: '' for a namespace-wide token, else its `~…~` prefix. */
  ownPrefix: string;
  /** Something unique to this case, for ids that must be new. */
  unique: string;
  /** Ids made ready in this namespace by `setUp` (threads, runs, erasures, extractions). */
  ready: ReadyIds;
  /** Calls an op as the every-namespace admin, for fixtures that need a fresh thing to act on. */
  admin: LoomApi;
}

export interface ReadyIds {
  thread: string;
  message: string;
  run: string;
  erasure: string;
  extraction: string;
  observeSession: string;
  /** The embedded database holding this namespace's tracker tables (its registered source). */
  trackerDatabase: string;
}

type Fixture = (t: FixtureTarget) => Record<string, unknown> | Promise<Record<string, unknown>>;

const sections = { goal: 'access matrix' };

/**
 * A minimal valid body for each op. Typed against every op name, and checked at run time by
 * `missingFixtures`: a new op in the table fails the matrix until it has one here.
 */
export const Fixtures: Record<OpName, Fixture> = {
  'conversation.set_logging': () => ({ enabled: true }),
  'conversation.get_logging': () => ({}),
  'conversation.append': (t) => ({ thread_id: t.ready.thread, role: 'user', content: 'the matrix appends a turn', user_id: t.user }),
  'conversation.create': (t) => ({ thread_id: `new-${t.unique}`, title: 'matrix thread' }),
  'conversation.update': (t) => ({ thread_id: t.ready.thread, title: 'matrix thread (updated)' }),
  'conversation.get': (t) => ({ thread_id: t.ready.thread }),
  'conversation.list': (t) => ({ thread_id: t.ready.thread, limit: 5 }),
  'conversation.threads': () => ({ limit: 5 }),
  'conversation.search': () => ({ query: 'ledger migration', namespace_scope: 'namespace', limit: 3 }),
  'conversation.compact': (t) => ({ thread_id: t.ready.thread }),
  'conversation.delete': async (t) => {
    const thread = `doomed-${t.unique}`;
    await t.admin.ok('conversation.append', { namespace: t.namespace, thread_id: thread, role: 'user', content: 'a thread to delete' });
    return { thread_id: thread, confirm_thread_id: thread };
  },
  'conversation.save_message': (t) => ({ user_id: t.user, conversation_id: t.ready.thread, message_id: t.ready.message }),
  'conversation.unsave_message': (t) => ({ user_id: t.user, conversation_id: t.ready.thread, message_id: t.ready.message }),
  'conversation.search_saved_messages': (t) => ({ user_id: t.user, query: 'ledger' }),
  'conversation.list_saved_messages': (t) => ({ user_id: t.user, limit: 5 }),
  'conversation.saved_status': (t) => ({ user_id: t.user, conversation_id: t.ready.thread, message_ids: [t.ready.message] }),
  'memory.set': (t) => ({ text: 'Invoices live in ledger_v2.', user_id: t.user }),
  'memory.set_from_messages': (t) => ({ messages: [{ role: 'user', content: 'We moved invoices to ledger_v2.' }], user_id: t.user, defer: true }),
  'memory.search': () => ({ query: 'where do invoices live' }),
  'memory.recall': () => ({ query: 'ledger_v2' }),
  'memory.extraction_status': (t) => ({ extraction_id: t.ready.extraction }),
  'context.pack': (t) => ({ query: 'resume the ledger migration', user_id: t.user }),
  'observe.record': (t) => ({ session_id: t.ready.observeSession, observations: [{ obs_id: `obs-${t.unique}`, tool: 'Bash', summary: 'Bash: npm test', outcome: 'ok' }] }),
  'observe.list': (t) => ({ session_id: t.ready.observeSession }),
  'observe.crystallize': (t) => ({ session_id: t.ready.observeSession, defer: true }),
  'session.brief_save': (t) => ({ brief_key: t.briefKey, sections }),
  'session.brief_get': (t) => ({ brief_key: t.briefKey }),
  'session.brief_list': () => ({}),
  'session.brief_delete': async (t) => {
    // A brief of its own to delete, saved by the every-namespace admin under the stored key the
    // caller addresses, so it exists whoever the caller is and a refusal is never a 404.
    const key = `${t.briefKey}-${t.unique}`;
    await t.admin.ok('session.brief_save', { namespace: t.namespace, brief_key: key.startsWith('~') ? key : t.ownPrefix + key, sections });
    return { brief_key: key };
  },
  'erasure.request': (t) => ({ user_id: `ghost-${t.unique}`, wait: false }),
  'erasure.status': (t) => ({ erasure_id: t.ready.erasure }),
  'erasure.export': (t) => ({ user_id: t.user, limit: 1 }),
  'run.begin': () => ({ goal: 'the access matrix' }),
  'run.complete': async (t) => {
    const { run } = await t.admin.ok<{ run: { run_id: string } }>('run.begin', { namespace: t.namespace, goal: 'to be completed' });
    return { run_id: run.run_id, status: 'succeeded' };
  },
  'run.get': (t) => ({ run_id: t.ready.run }),
  'run.list': () => ({ agent: '*', limit: 5 }),
  'run.report_usage': (t) => ({ run_id: t.ready.run, reports: [{ usage_id: `u-${t.unique}`, model: 'claude-sonnet-4-5', input_tokens: 1, output_tokens: 1 }] }),
  'token.create': () => ({ role: 'viewer', label: 'matrix' }),
  'token.revoke': async (t) => {
    const created = await t.admin.ok<{ token_id: string }>('token.create', { namespace: t.namespace, role: 'viewer', label: 'to revoke' });
    return { token_id: created.token_id };
  },
  'token.list': () => ({}),
  'token.whoami': () => ({}),
  'settings.get': () => ({}),
  // The default value: the matrix changes nothing another test would notice.
  'settings.set': () => ({ key: 'conversation_search_excerpt_chars', value: 240 }),
  'quarantine.list': () => ({ limit: 5 }),
  // An id no row has: the op answers per id (`not_found`), so a caller allowed in gets a 200.
  'quarantine.retry': () => ({ ids: ['0'.repeat(32)] }),
  'quarantine.drop': () => ({ ids: ['0'.repeat(32)] }),
  'tracker.status': () => ({}),
  // Registers the same source again: the namespace's tracker stays on for the other cases.
  'tracker.source_register': (t) => trackerRegistrationWithIncidents(t.ready.trackerDatabase),
  'tracker.duplicate_check': () => ({ title: 'Not-ready Set is passed', body: 'Code: 49. (LOGICAL_ERROR)', limit: 3 }),
  'tracker.issue_links': () => ({ issue: '101' }),
  'tracker.flaky_tests': () => ({ limit: 5 }),
  'tracker.incidents': () => ({ limit: 5 }),
  // The repository setUp indexed; adding it again resumes from its checkpoint (nothing new).
  'code.add': () => ({ path: matrixRepository().path, name: MATRIX_REPOSITORY, wait: true }),
  // Served by the matrix's loopback GitHub (LOOM_GITHUB_API_URL in startMatrixLoom).
  'code.github_sync': () => ({ repository: MATRIX_REPOSITORY, github: 'acme/demo' }),
  'code.list': () => ({}),
  'history.path': () => ({ repository: MATRIX_REPOSITORY, path: 'src/connection.ts' }),
  'history.symbol': () => ({ repository: MATRIX_REPOSITORY, symbol: 'query' }),
  'history.line': () => ({ repository: MATRIX_REPOSITORY, path: 'src/connection.ts', line: 4 }),
  'history.review_brief': () => ({ repository: MATRIX_REPOSITORY, pr_number: 2 }),
  'history.duplicate_check': () => ({ repository: MATRIX_REPOSITORY, title: 'Fix the query timeout' }),
  'history.bisect': () => ({ repository: MATRIX_REPOSITORY, description: 'queries time out' }),
};

const MATRIX_REPOSITORY = 'mx-repo';
let matrixRepo: GitFixture | undefined;
/** One small git repository for the whole matrix, written on first use. */
function matrixRepository(): GitFixture {
  return (matrixRepo ??= writeGitFixture());
}

export function missingFixtures(): string[] {
  return OpNames.filter((op) => typeof (Fixtures as Partial<Record<string, Fixture>>)[op] !== 'function');
}

const isSavedMessageOp = (op: OpName) => isPerUserOp(op) && op.startsWith('conversation.');

/** Whether the op's body names a namespace; those that do not (settings) act on the deployment. */
export function takesNamespace(op: OpName): boolean {
  return new Ops[op].request() instanceof NamespacedRequest;
}

/**
 * The outcome a case must have, from the Ops table and the documented rules:
 * - no token or an unknown one: 401;
 * - a role below the op's: 403;
 * - a bounded token (own_user, own_session) on an op that is not perUser: 403 (SAVE-TOKEN-06);
 * - a deploymentWide op from a token that does not cover every namespace: 403;
 * - a namespace the token does not cover: 403 (ops whose body names no namespace have none to name);
 * - saved-message ops refuse own_session tokens (SAVE-TOKEN-05) and, under an own_user token,
 *   a body naming another user (SAVE-TOKEN-02): 403;
 * - token.whoami takes any token and names no user, so "another user" does not apply to it;
 * - brief ops take bounded tokens on their own keys; another principal's `~…~` key is 403
 *   (BRIEF-ADDR-07), while a namespace-wide token may name it (BRIEF-ADDR-06);
 * - everything else is allowed (200).
 */
export function expectedOutcome(op: OpName, caller: Caller, target: Target): Outcome {
  if (caller.kind === 'anonymous' || caller.kind === 'unknown-token') return 'unauthorized';
  const scope: ReadScope = caller.kind === 'namespace' ? caller.scope : 'all';
  const everyNamespace = caller.kind === 'every-namespace';
  if (!roleAtLeast(caller.role, Ops[op].role)) return 'forbidden';
  if (!isPerUserOp(op) && scope !== 'all') return 'forbidden';
  if (isDeploymentWideOp(op) && !everyNamespace) return 'forbidden';
  if (target === 'other-namespace' && !everyNamespace && takesNamespace(op)) return 'forbidden';
  if (isSavedMessageOp(op)) {
    if (scope === 'own_session') return 'forbidden';
    if (scope === 'own_user' && target === 'other-user') return 'forbidden';
  } else if (isPerUserOp(op) && scope !== 'all' && target === 'other-user' && op !== 'session.brief_list' && op !== 'token.whoami') {
    return 'forbidden';
  }
  return 'allow';
}

export function outcomeOf(status: number): Outcome | `status ${number}` {
  if (status === 200) return 'allow';
  if (status === 403) return 'forbidden';
  if (status === 401) return 'unauthorized';
  return `status ${status}`;
}

export interface MatrixCase {
  surface: 'http' | 'mcp';
  op: string;
  caller: string;
  target: Target;
  expected: Outcome;
  actual: string;
  status: number;
  detail?: string;
}

export interface MatrixReport {
  cases: MatrixCase[];
  mismatches: MatrixCase[];
  counts: { cases: number; allowed: number; forbidden: number; refused: number; mismatches: number };
  /** Every token secret the matrix saw (minted, bootstrap, created by token.create cases). */
  secrets: string[];
  ms: number;
}

interface CallerClient {
  caller: Caller;
  api: LoomApi;
  token: string | undefined;
}

/** The namespaces of one matrix run: the callers' own, and another none of them covers. */
export interface MatrixNamespaces {
  own: string;
  other: string;
}

/**
 * Runs the whole matrix on a started Loom. `concurrency` cases run at once (each case builds
 * whatever it consumes, so order does not matter).
 */
export async function runAccessMatrix(loom: TestLoom, options: { concurrency?: number; log?: (line: string) => void } = {}): Promise<MatrixReport> {
  const started = Date.now();
  const suffix = randomBytes(4).toString('hex');
  const ns: MatrixNamespaces = { own: `mx-own-${suffix}`, other: `mx-other-${suffix}` };
  const secrets = new Set<string>([loom.admin.token]);
  const ready = { [ns.own]: await setUp(loom, ns.own, secrets), [ns.other]: await setUp(loom, ns.other, secrets) };
  const callers = await mintCallers(loom, ns.own, secrets);
  options.log?.(`access matrix: ${OpNames.length} ops × ${callers.length} callers × ${Targets.length} targets`);

  const work: Array<() => Promise<MatrixCase>> = [];
  let n = 0;
  for (const op of OpNames) {
    for (const c of callers) {
      for (const target of Targets) {
        const unique = `${suffix}-${n++}`;
        work.push(() => runCase(loom, op, c, target, ns, ready, unique, secrets));
      }
    }
  }
  const cases = await pool(work, options.concurrency ?? 6);
  cases.push(...(await runMcpMatrix(loom, callers, ns)));
  const mismatches = cases.filter((c) => c.actual !== c.expected);
  return {
    cases,
    mismatches,
    counts: {
      cases: cases.length,
      allowed: cases.filter((c) => c.actual === 'allow').length,
      forbidden: cases.filter((c) => c.actual === 'forbidden').length,
      refused: cases.filter((c) => c.actual !== 'allow' && c.actual !== 'forbidden').length,
      mismatches: mismatches.length,
    },
    secrets: [...secrets],
    ms: Date.now() - started,
  };
}

export interface MatrixLoom {
  loom: TestLoom;
  /** Everything the gateway and embedder logged, at debug level. */
  logs(): string;
  /** Every request the loopback LLM received (compaction summaries, extractions). */
  providerRequests(): string;
  close(): Promise<void>;
}

/**
 * A fresh embedded Loom for the matrix: its whole log captured at debug level, and a loopback
 * LLM so ops that need one (conversation.compact) answer rather than 501.
 */
export async function startMatrixLoom(): Promise<MatrixLoom> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const llm = await startOpenAiCompatibleServer({ chat: () => 'The earlier turns moved invoices to the new ledger.' });
  const github = await startFakeGithub({ data: githubDataFor(matrixRepository()) });
  const loom = await startTestLoom({
    // The tracker plane on (LOOM_TRACKER_ORG here, a source per namespace in setUp), so its ops answer.
    env: { LOOM_CONVERSATION_TITLER_ENABLED: 'false', LOOM_LLM_BASE_URL: llm.baseUrl, LOOM_LLM_MODEL: 'matrix-model', LOOM_LOG_LEVEL: 'debug', LOOM_TRACKER_ORG: 'acme', LOOM_CODE_INGEST_ENABLED: 'true', LOOM_GITHUB_API_URL: github.baseUrl },
    logger: createLogger('gateway', 'debug', sink),
  });
  return {
    loom,
    logs: () => lines.join(''),
    providerRequests: () => JSON.stringify(llm.requests),
    close: async () => {
      await loom.gateway.runtime.storage.command(`DROP DATABASE IF EXISTS ${trackerDatabaseOf(loom)}`).catch(() => undefined);
      await loom.close();
      await llm.close();
      await github.close();
    },
  };
}

/** Token secrets that appear in `logs`. */
export function leakedSecrets(logs: string, secrets: readonly string[]): string[] {
  return secrets.filter((s) => logs.includes(s));
}

async function setUp(loom: TestLoom, namespace: string, secrets: Set<string>): Promise<ReadyIds> {
  const admin = loom.admin;
  const call = <T = any>(op: string, body: Record<string, unknown>) => admin.ok<T>(op, { namespace, ...body });
  await call('conversation.set_logging', { enabled: true });
  const thread = 'mx-thread';
  await call('conversation.append', { thread_id: thread, msg_id: 'm1', role: 'user', content: 'we moved invoices to the new ledger', user_id: MATRIX_USER });
  await call('conversation.append', { thread_id: thread, msg_id: 'm2', role: 'assistant', content: 'the ledger migration is done', user_id: OTHER_USER });
  const { run } = await call<{ run: { run_id: string } }>('run.begin', { goal: 'the matrix run' });
  const erasure = await call<{ erasure_id: string }>('erasure.request', { user_id: 'nobody', wait: false });
  const extraction = await call<{ extraction_id: string }>('memory.set_from_messages', { messages: [{ role: 'user', content: 'invoices live in ledger_v2' }], defer: true });
  await call('observe.record', { session_id: 'mx-session', observations: [{ obs_id: 'o1', tool: 'Bash', summary: 'Bash: npm test', outcome: 'ok' }] });
  // Briefs every caller may read: the namespace's own, each bounded principal's, another user's.
  await call('session.brief_save', { brief_key: 'plan', sections });
  const trackerDatabase = trackerDatabaseOf(loom);
  await createTrackerTables(loom.gateway.runtime.storage, trackerDatabase);
  await createOutagesTable(loom.gateway.runtime.storage, trackerDatabase);
  await call('tracker.source_register', trackerRegistrationWithIncidents(trackerDatabase));
  await call('code.add', { path: matrixRepository().path, name: MATRIX_REPOSITORY, wait: true });
  for (const extra of [
    { read_scope: 'own_user', read_user_id: MATRIX_USER },
    { read_scope: 'own_session', read_user_id: MATRIX_USER, read_session_id: MATRIX_SESSION },
    { read_scope: 'own_user', read_user_id: OTHER_USER },
  ]) {
    const created = await call<{ token: string }>('token.create', { role: 'writer', ...extra });
    secrets.add(created.token);
    await admin.withToken(created.token).ok('session.brief_save', { namespace, brief_key: 'plan', sections });
  }
  return { thread, message: 'm1', run: run.run_id, erasure: erasure.erasure_id, extraction: extraction.extraction_id, observeSession: 'mx-session', trackerDatabase };
}

/** One tracker database per matrix Loom, beside its own (both namespaces register it). */
function trackerDatabaseOf(loom: TestLoom): string {
  return `${loom.gateway.runtime.storage.tables.database}_tracker`;
}

async function mintCallers(loom: TestLoom, namespace: string, secrets: Set<string>): Promise<CallerClient[]> {
  // A well-formed token nobody minted: refused, and (like every bearer) never logged.
  const unknown = 'loom_' + randomBytes(32).toString('base64url');
  secrets.add(unknown);
  const callers: CallerClient[] = [
    { caller: { kind: 'anonymous' }, api: loom.admin.withToken(''), token: undefined },
    { caller: { kind: 'unknown-token' }, api: loom.admin.withToken(unknown), token: unknown },
  ];
  const roles: Role[] = ['viewer', 'writer', 'admin'];
  for (const role of roles) {
    for (const scope of ['all', 'own_user', 'own_session'] as const) {
      const extra = scope === 'all' ? {} : scope === 'own_user' ? { read_user_id: MATRIX_USER } : { read_user_id: MATRIX_USER, read_session_id: MATRIX_SESSION };
      const created = await loom.admin.ok<{ token: string }>('token.create', { namespace, role, read_scope: scope, ...extra, label: `matrix ${role}/${scope}` });
      secrets.add(created.token);
      callers.push({ caller: { kind: 'namespace', role, scope }, api: loom.admin.withToken(created.token), token: created.token });
    }
  }
  for (const role of roles) {
    // Every-namespace tokens are minted as `loom token create --namespace '*'` does.
    const issued = await loom.gateway.runtime.auth.createToken('cli', { namespace: '*', role, label: `matrix ${role}/every-namespace` });
    secrets.add(issued.token);
    callers.push({ caller: { kind: 'every-namespace', role }, api: loom.admin.withToken(issued.token), token: issued.token });
  }
  return callers;
}

function bodyTarget(c: Caller, target: Target, ns: MatrixNamespaces, ready: Record<string, ReadyIds>, unique: string, admin: LoomApi): FixtureTarget {
  const namespace = target === 'other-namespace' ? ns.other : ns.own;
  const ownPrefix =
    c.kind !== 'namespace' || c.scope === 'all' ? '' : principalKeyPrefix(c.scope === 'own_user' ? { user: MATRIX_USER } : { user: MATRIX_USER, session: MATRIX_SESSION });
  // Another user's brief is named by its stored key (which a bounded token may never send).
  const briefKey = target === 'other-user' ? `${principalKeyPrefix({ user: OTHER_USER })}plan` : 'plan';
  return { namespace, user: target === 'other-user' ? OTHER_USER : MATRIX_USER, briefKey, ownPrefix, unique, ready: ready[namespace]!, admin };
}

async function runCase(
  loom: TestLoom,
  op: OpName,
  c: CallerClient,
  target: Target,
  ns: MatrixNamespaces,
  ready: Record<string, ReadyIds>,
  unique: string,
  secrets: Set<string>,
): Promise<MatrixCase> {
  const t = bodyTarget(c.caller, target, ns, ready, unique, loom.admin);
  const fields = await Fixtures[op](t);
  const body = takesNamespace(op) ? { namespace: t.namespace, ...fields } : fields;
  const answer = await c.api.call(op, body);
  if (op === 'token.create' && answer.status === 200) secrets.add((answer.body as { token: string }).token);
  const expected = expectedOutcome(op, c.caller, target);
  const actual = outcomeOf(answer.status);
  return {
    surface: 'http',
    op,
    caller: callerName(c.caller),
    target,
    expected,
    actual,
    status: answer.status,
    ...(actual !== expected ? { detail: JSON.stringify(answer.body).slice(0, 300) } : {}),
  };
}

/**
 * MCP: `initialize` takes run.begin's role for its implicit run (a viewer's session has none,
 * bounded tokens are refused), and each tool call is the op it runs, with that op's role.
 */
async function runMcpMatrix(loom: TestLoom, callers: CallerClient[], ns: MatrixNamespaces): Promise<MatrixCase[]> {
  const cases: MatrixCase[] = [];
  let id = 1;
  const rpc = async (token: string | undefined, method: string, params: object, query: string, session?: string) => {
    const response = await fetch(`${loom.url}/mcp${query}`, {
      method: 'POST',
      // The Accept header every Streamable HTTP client sends (the SDK's transport answers 406 without it).
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}), ...(session ? { 'mcp-session-id': session } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    });
    return { status: response.status, session: response.headers.get('mcp-session-id'), body: (await response.json()) as any };
  };
  for (const c of callers) {
    const token = c.token;
    for (const target of ['own', 'other-namespace'] as const) {
      const namespace = target === 'own' ? ns.own : ns.other;
      const expectedInit = mcpInitializeOutcome(c.caller, target);
      const init = await rpc(token, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'matrix', version: '1' } }, `?toolset=all&namespace=${namespace}`);
      const initActual = outcomeOf(init.status);
      const hasRun = /Run \S+\./.test(init.body?.result?.instructions ?? '');
      const runExpected = expectedInit === 'allow' && c.caller.kind !== 'anonymous' && c.caller.kind !== 'unknown-token' && roleAtLeast(c.caller.role, Ops['run.begin'].role);
      cases.push({
        surface: 'mcp',
        op: 'initialize',
        caller: callerName(c.caller),
        target,
        expected: expectedInit,
        // A session with a run for a caller run.begin would refuse (or none for one it takes) is a mismatch too.
        actual: initActual === 'allow' && hasRun !== runExpected ? `run ${hasRun ? 'begun' : 'missing'}` : initActual,
        status: init.status,
      });
      if (init.status !== 200 || !init.session) continue;
      const listed = ((await rpc(token, 'tools/list', {}, '', init.session)).body?.result?.tools ?? []).map((t: { name: string }) => t.name);
      for (const [tool, args, ops] of [
        ['loom_search', { query: 'ledger' }, ['memory.search', 'conversation.search']],
        ['loom_conversation_append', { thread_id: 'mcp-matrix', role: 'user', content: 'over MCP' }, ['conversation.append']],
        ['loom_brief_save', { brief_key: 'mcp-matrix', sections: { goal: 'over MCP' }, use_llm: false }, ['session.brief_save']],
        ['loom_brief_list', {}, ['session.brief_list']],
        ['loom_saved_save', { user_id: 'u1', conversation_id: 'mcp-matrix', message_id: 'saved-1', role: 'user', content: 'saved over MCP' }, ['conversation.save_message']],
        ['loom_saved_search', { user_id: 'u1', query: 'ledger' }, ['conversation.search_saved_messages']],
        ['loom_context_pack', { query: 'ledger' }, ['context.pack']],
        ['loom_history_path', { repository: MATRIX_REPOSITORY, path: 'src/connection.ts' }, ['history.path']],
        ['loom_history_bisect', { repository: MATRIX_REPOSITORY, description: 'queries time out' }, ['history.bisect']],
        ['loom_run_begin', { goal: 'over MCP' }, ['run.begin']],
        ['loom_run_complete', { status: 'ended' }, ['run.complete']],
      ] as const) {
        const expected = ops.map((op) => expectedOutcome(op, c.caller, target)).find((o) => o !== 'allow') ?? 'allow';
        // A tool the session does not offer (the run tools, to a caller run.begin refuses) is refused too.
        if (!listed.includes(tool)) {
          cases.push({ surface: 'mcp', op: `tools/call ${tool}`, caller: callerName(c.caller), target, expected, actual: 'forbidden', status: 200, ...(expected !== 'forbidden' ? { detail: 'not listed' } : {}) });
          continue;
        }
        const called = await rpc(token, 'tools/call', { name: tool, arguments: args }, '', init.session);
        const isError = called.status === 200 && called.body?.result?.isError === true;
        const actual = called.status !== 200 ? outcomeOf(called.status) : !isError ? 'allow' : /needs the \w+ role|not available to a token|no access to namespace/.test(called.body.result.content?.[0]?.text ?? '') ? 'forbidden' : 'tool error';
        cases.push({ surface: 'mcp', op: `tools/call ${tool}`, caller: callerName(c.caller), target, expected, actual, status: called.status, ...(actual !== expected ? { detail: JSON.stringify(called.body).slice(0, 300) } : {}) });
      }
    }
  }
  return cases;
}

function mcpInitializeOutcome(c: Caller, target: 'own' | 'other-namespace'): Outcome {
  if (c.kind === 'anonymous' || c.kind === 'unknown-token') return 'unauthorized';
  if (c.kind === 'namespace' && c.scope !== 'all') return 'forbidden';
  if (target === 'other-namespace' && c.kind !== 'every-namespace') return 'forbidden';
  return 'allow';
}

async function pool<T>(work: Array<() => Promise<T>>, concurrency: number): Promise<T[]> {
  const results: T[] = new Array(work.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, work.length) }, async () => {
      while (next < work.length) {
        const i = next++;
        results[i] = await work[i]!();
      }
    }),
  );
  return results;
}

/**
 * Every op of the Ops table called once, with its fixture, by the every-namespace admin on a
 * namespace set up as the matrix sets one up: what each answered. The OpenAPI test holds each
 * answer to the op's declared answer schema.
 */
export async function callEveryOp(loom: TestLoom): Promise<Array<{ op: OpName; status: number; body: unknown }>> {
  const namespace = `every-op-${randomBytes(4).toString('hex')}`;
  const ready = await setUp(loom, namespace, new Set());
  const out: Array<{ op: OpName; status: number; body: unknown }> = [];
  let n = 0;
  for (const op of OpNames) {
    const target: FixtureTarget = { namespace, user: MATRIX_USER, briefKey: 'plan', ownPrefix: '', unique: `every-${n++}`, ready, admin: loom.admin };
    const body = await Fixtures[op](target);
    const answer = await loom.admin.call(op, takesNamespace(op) ? { namespace, ...body } : body);
    out.push({ op, ...answer });
  }
  return out;
}
