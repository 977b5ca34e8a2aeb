import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { coversAllNamespaces, requireNamespaceWideToken, resolveNamespace, type AuthService, type Principal } from '@loom/auth';
import type { Storage } from '@loom/clickhouse';
import { Limits, LoomError, NAMESPACE_PATTERN, Ops, rawJsonDepth, roleAtLeast, type OpName } from '@loom/contracts';
import { newId, type Logger } from '@loom/platform';
import type { RunsService } from '@loom/runs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { InitializeRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { withoutHigh, type OpDispatcher } from '../ops/op-dispatcher';
import { McpSessions, type McpSession } from './mcp-sessions';
import { PROTO_KEY, registerLoomTools } from './mcp-tools';

/** The JSON-RPC envelope (message, params, arguments) around an op's body. */
const MAX_MESSAGE_DEPTH = Limits.maxJsonDepth + 3;
/**
 * The most messages one POST may batch: each `tools/call` in a batch runs an op, so a batch is
 * refused whole, before any of it runs, past this many.
 */
export const MAX_BATCH_MESSAGES = 32;
/**
 * Sessions served from this replica's memory (each an McpServer and its transport). The least
 * recently used makes room: a session it held is read from storage again when it returns.
 */
const LIVE_SESSIONS = 1_000;

interface LiveSession {
  session: McpSession;
  /** The tools this session lists. */
  tools: ReadonlySet<string>;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  lastUsed: number;
}

export interface McpRequest {
  /** The body as text (POST), before parsing. */
  body: string | undefined;
  toolset: string | undefined;
  namespace: string | undefined;
}

/**
 * The MCP endpoint (`/mcp`) on the official SDK: an `McpServer` and a Streamable HTTP transport
 * per session, POST answered as JSON, GET a server-sent-events stream, DELETE ends the session.
 * Loom checks the bearer token on every request before the transport sees it. Each session gets
 * an implicit run in the run ledger, touched by every request and closed by `sweep` after
 * LOOM_MCP_SESSION_RUN_IDLE_SECONDS without one. Sessions are stored, so any gateway replica
 * serves a session another one started.
 */
export class McpEndpoint {
  private readonly live = new Map<string, LiveSession>();
  /** One adoption per session id at a time: concurrent first requests share it. */
  private readonly adopting = new Map<string, Promise<LiveSession | undefined>>();
  private readonly sessions: McpSessions;

  constructor(
    private readonly auth: AuthService,
    private readonly dispatcher: OpDispatcher,
    private readonly runs: RunsService,
    private readonly idleSeconds: number,
    storage: Storage,
    private readonly logger?: Logger,
  ) {
    this.sessions = new McpSessions(storage);
  }

  /** Answers one HTTP request on `/mcp` (POST, GET or DELETE), writing to `res`. */
  async handle(req: IncomingMessage, res: ServerResponse, request: McpRequest): Promise<void> {
    let message: unknown;
    if (req.method === 'POST') {
      const raw = request.body ?? '';
      // Refused before parsing: the tool call re-serialises its arguments, which recurses.
      if (rawJsonDepth(raw, MAX_MESSAGE_DEPTH) > MAX_MESSAGE_DEPTH) return send(res, 400, rpcError(null, -32600, `invalid request: the body is nested deeper than ${MAX_MESSAGE_DEPTH} levels`));
      try {
        message = JSON.parse(raw);
      } catch {
        return send(res, 400, rpcError(null, -32700, 'parse error: the body is not JSON'));
      }
      // JSON-RPC 2.0: an empty batch is an invalid request (the SDK would accept it with a 202).
      if (Array.isArray(message) && message.length === 0) return send(res, 400, rpcError(null, -32600, 'invalid request: an empty batch'));
      if (Array.isArray(message) && message.length > MAX_BATCH_MESSAGES) {
        return send(res, 400, rpcError(null, -32600, `invalid request: a batch of ${message.length} messages is over the limit of ${MAX_BATCH_MESSAGES} per POST`));
      }
    }
    const id = messageId(message);
    try {
      const principal = await this.auth.authenticate(req.headers.authorization);
      // How the SDK hands the caller's token to the tools: each op runs with it, so the session
      // never acts with more than the token of the request at hand.
      (req as IncomingMessage & { auth?: AuthInfo }).auth = { token: bearerToken(req.headers.authorization), clientId: principal.tokenId, scopes: [] };
      const header = req.headers['mcp-session-id'];
      const sessionId = typeof header === 'string' && header !== '' ? header : undefined;
      if (req.method === 'POST' && sessionId === undefined && isInitializeRequest(message)) {
        const live = this.start(principal, request, clientName(message.params.clientInfo));
        return await live.transport.handleRequest(req, res, message);
      }
      if (sessionId === undefined && initializeMethod(message)) return send(res, 400, rpcError(id, -32602, `invalid initialize request: ${initializeProblems(message)}`));
      if (sessionId === undefined) return send(res, 400, rpcError(id, -32000, 'Bad Request: send the Mcp-Session-Id header that initialize answered (or initialize first)'));
      const live = await this.open(sessionId);
      if (!live) return send(res, 404, rpcError(id, -32001, 'no MCP session with this Mcp-Session-Id: send initialize first'));
      // A session id is no credential: the caller's own token must reach the session's namespace.
      requireNamespaceWideToken(principal, 'MCP');
      resolveNamespace(principal, live.session.namespace);
      live.lastUsed = Date.now();
      if (live.session.runId !== '') await this.runs.touch(live.session.namespace, live.session.runId);
      await live.transport.handleRequest(req, res, forTools(message, live.tools));
    } catch (error) {
      // Loom's own errors say what went wrong and carry their HTTP status (401, 403, 400, 503...).
      if (LoomError.isLoomError(error) && error.code !== 'internal' && !res.headersSent) return send(res, error.status, rpcError(id, error.code === 'invalid_input' ? -32602 : -32001, error.message));
      this.logger?.error({ err: error }, 'MCP request failed');
      if (!res.headersSent) send(res, 500, rpcError(id, -32603, 'internal error'));
    }
  }

  /**
   * A new session for an `initialize`. Its implicit run begins, and the session is stored, once
   * the transport has accepted the request (`onsessioninitialized`): a request it refuses (a
   * wrong Accept header, say) leaves nothing behind.
   */
  private start(principal: Principal, request: McpRequest, client: string): LiveSession {
    // The tools serve namespace-wide tokens only (each op they call refuses bounded ones).
    requireNamespaceWideToken(principal, 'MCP initialize');
    if (request.namespace !== undefined && !NAMESPACE_PATTERN.test(request.namespace)) {
      throw new LoomError('invalid_input', 'the namespace query parameter must be 1-128 characters of letters, digits, _ . : - (or "@me")');
    }
    // A session lives in one namespace: a token for several must say which, rather than land in
    // the default one unnoticed.
    if (request.namespace === undefined && (coversAllNamespaces(principal) || principal.namespaces.length > 1)) {
      const which = coversAllNamespaces(principal) ? 'every namespace' : `several namespaces (${principal.namespaces.join(', ')})`;
      throw new LoomError('invalid_input', `this token covers ${which}: name the session's namespace in the MCP URL, e.g. /mcp?namespace=<namespace>`);
    }
    const namespace = resolveNamespace(principal, request.namespace);
    // The implicit run is what run.begin would make, so it takes run.begin's role: a viewer's
    // session has none.
    const runId = roleAtLeast(principal.role, Ops['run.begin'].role) ? newId('run_') : '';
    const session: McpSession = { id: randomUUID(), namespace, runId, toolset: request.toolset === 'all' ? 'all' : 'core' };
    const live = this.connect(session, {
      onsessioninitialized: async () => {
        try {
          if (runId !== '') await this.runs.begin(namespace, 'mcp', { goal: `MCP session of ${client}`, run_id: runId }, 'mcp');
          await this.sessions.create(session);
        } catch (error) {
          this.logger?.error({ err: error }, 'starting an MCP session failed');
          // The SDK answers this with a 400 that quotes the error: keep storage's words out of it.
          throw new Error('the session could not be started; retry');
        }
        this.remember(live);
      },
    });
    return live;
  }

  /** The session, from this replica's memory or, started elsewhere, adopted from storage. */
  private async open(sessionId: string): Promise<LiveSession | undefined> {
    const known = this.live.get(sessionId);
    if (known) {
      // Most recently used last: the first in the map is the one to let go.
      this.live.delete(sessionId);
      this.live.set(sessionId, known);
      return known;
    }
    let adoption = this.adopting.get(sessionId);
    if (!adoption) {
      adoption = this.adopt(sessionId).finally(() => this.adopting.delete(sessionId));
      this.adopting.set(sessionId, adoption);
    }
    return adoption;
  }

  private async adopt(sessionId: string): Promise<LiveSession | undefined> {
    const session = await this.sessions.find(sessionId);
    if (!session) return undefined;
    const live = this.connect(session, {});
    markInitialized(live.transport, session.id);
    this.remember(live);
    return live;
  }

  /** An McpServer with the session's tools, connected to a transport of its own. */
  private connect(session: McpSession, options: { onsessioninitialized?: () => Promise<void> }): LiveSession {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => session.id,
      // Every tool answers once: a JSON answer per POST. Server-to-client messages would use the GET stream.
      enableJsonResponse: true,
      ...options,
      onsessionclosed: () => this.end(session),
    });
    const server = new McpServer(
      { name: 'loom', version: '0.1.0' },
      {
        capabilities: { tools: {} },
        instructions:
          `Namespace ${session.namespace}.` +
          (session.runId !== '' ? ` Run ${session.runId}.` : '') +
          (session.toolset === 'core' ? ' More tools (session briefs, saved messages, context packs, runs) at /mcp?toolset=all.' : ''),
      },
    );
    const tools = registerLoomTools(server, session, (op, body, authorization) => this.op(op, body, authorization));
    const live: LiveSession = { session, tools, server, transport, lastUsed: Date.now() };
    transport.onclose = () => {
      if (this.live.get(session.id) === live) this.live.delete(session.id);
    };
    // connect() only wires callbacks and starts the transport, which does nothing on HTTP.
    server.connect(transport).catch((error: unknown) => this.logger?.error({ err: error }, 'connecting an MCP session failed'));
    return live;
  }

  private remember(live: LiveSession): void {
    if (this.live.size >= LIVE_SESSIONS) {
      const oldest = this.live.values().next().value!;
      this.live.delete(oldest.session.id);
      oldest.server.close().catch((error: unknown) => this.logger?.warn({ err: error }, 'closing an evicted MCP session failed'));
    }
    this.live.set(live.session.id, live);
  }

  /** DELETE: the client ended its session. Its implicit run ends with no verdict (`ended`). */
  private async end(session: McpSession): Promise<void> {
    await this.sessions.close(session);
    if (session.runId === '') return;
    try {
      await this.runs.complete(session.namespace, { run_id: session.runId, status: 'ended' });
    } catch (error) {
      // Completed through loom_run_complete, or closed idle, before the client left.
      if (!(LoomError.isLoomError(error) && error.code === 'conflict')) throw error;
    }
  }

  /**
   * Closes the implicit runs of sessions idle for LOOM_MCP_SESSION_RUN_IDLE_SECONDS, and lets go
   * of this replica's copies of sessions idle that long (storage still has them).
   */
  async sweep(now = new Date()): Promise<number> {
    for (const live of [...this.live.values()]) {
      if (now.getTime() - live.lastUsed > this.idleSeconds * 1000) {
        this.live.delete(live.session.id);
        await live.server.close();
      }
    }
    const closed = await this.runs.closeIdle(this.idleSeconds, now);
    if (closed > 0) this.logger?.info({ closed }, 'closed idle MCP session runs');
    return closed;
  }

  /** Ends this replica's streams (open GET streams would hold the HTTP server open); the sessions stay stored. */
  async close(): Promise<void> {
    const all = [...this.live.values()];
    this.live.clear();
    await Promise.all(all.map((live) => live.server.close()));
  }

  private async op(name: OpName, body: Record<string, unknown>, authorization: string | undefined): Promise<object> {
    const result = await this.dispatcher.dispatch(name, JSON.stringify(body), authorization, randomUUID());
    if (result.status !== 200) throw new Error((result.body as { error?: { message?: string } }).error?.message ?? `${name} answered ${result.status}`);
    return result.body as object;
  }
}

/**
 * Makes a new transport serve a session initialised on another replica (or before a restart).
 * SDK 1.32 has no public way to do it (modelcontextprotocol/typescript-sdk#1658; the proposed
 * `existingSessionId` option does the same): the Node transport wraps a web-standard one whose
 * `sessionId` and `_initialized` the initialize request would have set. Checked, so an SDK that
 * moves them fails here, loudly, and the replica test with it.
 */
function markInitialized(transport: StreamableHTTPServerTransport, sessionId: string): void {
  const inner = (transport as unknown as { _webStandardTransport?: { sessionId?: string; _initialized?: boolean } })._webStandardTransport;
  if (!inner || typeof inner._initialized !== 'boolean') throw new Error('this version of @modelcontextprotocol/sdk cannot adopt a stored MCP session; see markInitialized');
  inner.sessionId = sessionId;
  inner._initialized = true;
}

const CLIENT_NAME_CHARS = 100;

/**
 * The client's name as the run's goal: text it chose, so kept to well-formed Unicode with no
 * control or format characters (no terminal escapes, no bidi overrides), spaces collapsed, and
 * at most CLIENT_NAME_CHARS characters.
 */
export function clientName(clientInfo: unknown): string {
  const raw = typeof clientInfo === 'object' && clientInfo !== null ? (clientInfo as { name?: unknown }).name : undefined;
  if (typeof raw !== 'string') return 'an MCP client';
  const cleaned = raw
    .slice(0, CLIENT_NAME_CHARS * 4)
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
  const name = Array.from(cleaned).slice(0, CLIENT_NAME_CHARS).join('').trim();
  return name === '' ? 'an MCP client' : name;
}

function bearerToken(authorization: string | undefined): string {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
}

function messageId(message: unknown): string | number | null {
  const id = typeof message === 'object' && message !== null && !Array.isArray(message) ? (message as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** What the SDK's "Tool … not found" says in place of a name this session does not list. */
const UNLISTED_TOOL = "(not in this session's tools/list)";

/**
 * Each tools/call of the message (each of a batch) as the SDK must read it:
 * - The SDK answers a call of an unknown tool with "Tool <name> not found", the name as sent: a
 *   token pasted where a tool name goes would come back. A name the session does not list is
 *   replaced, so the answer is the same tool error without it.
 * - A `__proto__` key in the arguments, at any depth, is renamed PROTO_KEY, so the tool's schema
 *   refuses it as unknown rather than the SDK dropping it unseen.
 */
function forTools(message: unknown, tools: ReadonlySet<string>): unknown {
  if (Array.isArray(message)) return message.map((m) => forTools(m, tools));
  if (typeof message !== 'object' || message === null || (message as { method?: unknown }).method !== 'tools/call') return message;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return message;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  const listed = typeof name !== 'string' || tools.has(name);
  return { ...message, params: { ...params, ...(listed ? {} : { name: UNLISTED_TOOL }), ...(args === undefined ? {} : { arguments: withProtoKeysRenamed(args) }) } };
}

/** `value` with each own `__proto__` key renamed PROTO_KEY (the depth is bounded by MAX_MESSAGE_DEPTH, checked before parsing). */
function withProtoKeysRenamed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withProtoKeysRenamed);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key === '__proto__' ? PROTO_KEY : key] = withProtoKeysRenamed(item);
  return out;
}

function initializeMethod(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize';
}

/** What makes an initialize request invalid, field by field (the protocol's schema, as the SDK reads it). */
function initializeProblems(message: unknown): string {
  const parsed = InitializeRequestSchema.safeParse(message);
  if (parsed.success) return 'none';
  return parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; ');
}

/** A JSON-RPC error. Its message may quote what the caller sent (a namespace it has no access to): what reads as high is withheld, as in the op API's errors. */
function rpcError(id: string | number | null, code: number, message: string): object {
  return { jsonrpc: '2.0', id, error: { code, message: withoutHigh(message) } };
}

function send(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
