import { requireNamespaceWideToken, resolveNamespace, type AuthService } from '@loom/auth';
import { formatMillis, type Storage } from '@loom/clickhouse';
import { Limits, LoomError, NAMESPACE_PATTERN, Ops, rawJsonDepth, roleAtLeast, SearchModes } from '@loom/contracts';
import { nextVersion, type Logger } from '@loom/platform';
import type { RunsService } from '@loom/runs';
import { randomUUID } from 'node:crypto';
import type { OpDispatcher } from '../ops/op-dispatcher';

const PROTOCOL_VERSION = '2025-06-18';
/** The JSON-RPC envelope (message, params, arguments) around an op's body. */
const MAX_MESSAGE_DEPTH = Limits.maxJsonDepth + 3;

interface Tool {
  name: string;
  description: string;
  inputSchema: object;
  /** Runs the tool with the caller's token, through the same ops (auth, roles, validation) as the HTTP API. */
  call(args: Record<string, unknown>, op: (name: string, body: object) => Promise<unknown>): Promise<unknown>;
}

/**
 * The default listing. `conversation.search` is not a tool of its own: agents reach conversation
 * hits through the conversation section of `loom_search`. Nothing here asks the model to log
 * turns (capture belongs to transcript hooks).
 */
const CORE_TOOLS: Tool[] = [
  {
    name: 'loom_search',
    description: 'Search what this team knows: durable facts (memories) and, where the namespace records conversations, earlier conversation turns.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'what to look for' },
        limit: { type: 'integer', minimum: 1, maximum: 50 },
        search_mode: { type: 'string', enum: [...SearchModes], description: 'conversation turns by meaning and words (hybrid, the default), by meaning alone (vector) or by words alone (lexical)' },
      },
      required: ['query'],
    },
    call: async (args, op) => {
      const query = String(args['query'] ?? '');
      const limit = typeof args['limit'] === 'number' ? args['limit'] : 5;
      // An unknown mode reaches conversation.search, whose 400 names it.
      const mode = args['search_mode'] === undefined ? {} : { search_mode: args['search_mode'] };
      const [memories, conversations] = await Promise.all([op('memory.search', { query, limit }), op('conversation.search', { query, limit, namespace_scope: 'namespace', ...mode })]);
      return { memories: (memories as { hits: unknown[] }).hits, conversations: (conversations as { hits: unknown[] }).hits };
    },
  },
];

/** Mounted with `?toolset=all`. */
const ALL_TOOLS: Tool[] = [
  ...CORE_TOOLS,
  {
    name: 'loom_conversation_append',
    description: 'conversation.append: store one turn of a thread (kept only when the namespace records conversations).',
    inputSchema: {
      type: 'object',
      properties: {
        thread_id: { type: 'string' },
        role: { type: 'string', enum: ['user', 'assistant', 'system', 'tool'] },
        content: { type: 'string' },
        msg_id: { type: 'string' },
      },
      required: ['thread_id', 'role', 'content'],
    },
    call: (args, op) => op('conversation.append', args),
  },
];

interface McpSession {
  namespace: string;
  /** The implicit run; empty for a token that may not begin runs (a viewer). */
  runId: string;
  toolset: 'core' | 'all';
}

interface JsonRpcRequest {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
}

export interface McpReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Sessions this replica has seen, kept in memory; storage has them all. */
const CACHED_SESSIONS = 10_000;

/**
 * The MCP endpoint (`POST /mcp`, JSON-RPC over streamable HTTP, JSON answers). Each session gets
 * an implicit run in the run ledger, touched by every call and closed by `sweep` after
 * LOOM_MCP_SESSION_RUN_IDLE_SECONDS without one. Sessions are stored, so any gateway replica
 * serves a session another one started.
 */
export class McpEndpoint {
  private readonly sessions = new Map<string, McpSession>();

  constructor(
    private readonly auth: AuthService,
    private readonly dispatcher: OpDispatcher,
    private readonly runs: RunsService,
    private readonly idleSeconds: number,
    private readonly storage: Storage,
    private readonly logger?: Logger,
  ) {}

  async handle(raw: string, request: { authorization: string | undefined; sessionId: string | undefined; toolset: string | undefined; namespace: string | undefined }): Promise<McpReply> {
    let message: JsonRpcRequest;
    // Refused before parsing: the tool call re-serialises its arguments, which recurses.
    if (rawJsonDepth(raw, MAX_MESSAGE_DEPTH) > MAX_MESSAGE_DEPTH) return rpcError(null, -32600, `invalid request: the body is nested deeper than ${MAX_MESSAGE_DEPTH} levels`, 400);
    try {
      message = JSON.parse(raw) as JsonRpcRequest;
    } catch {
      return rpcError(null, -32700, 'parse error: the body is not JSON', 400);
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return rpcError(null, -32600, 'invalid request: send one JSON-RPC object', 400);
    const id = message.id ?? null;
    try {
      const principal = await this.auth.authenticate(request.authorization);
      if (message.method === 'initialize') {
        // The tools serve namespace-wide tokens only (each op they call refuses bounded ones).
        requireNamespaceWideToken(principal, 'MCP initialize');
        if (request.namespace !== undefined && !NAMESPACE_PATTERN.test(request.namespace)) {
          return rpcError(id, -32602, 'the namespace query parameter must be 1-128 characters of letters, digits, _ . : - (or "@me")', 400);
        }
        const namespace = resolveNamespace(principal, request.namespace);
        // The implicit run is what run.begin would make, so it takes run.begin's role: a viewer's
        // session has none.
        const run = roleAtLeast(principal.role, Ops['run.begin'].role)
          ? (await this.runs.begin(namespace, 'mcp', { goal: `MCP session of ${clientName(message.params?.['clientInfo'])}` }, 'mcp')).run
          : undefined;
        const sessionId = randomUUID();
        const session: McpSession = { namespace, runId: run?.run_id ?? '', toolset: request.toolset === 'all' ? 'all' : 'core' };
        await this.storage.insert(this.storage.tables.mcpSessions, [
          { session_id: sessionId, namespace, run_id: session.runId, toolset: session.toolset, created_at: formatMillis(), version: nextVersion() },
        ]);
        this.remember(sessionId, session);
        return {
          status: 200,
          headers: { 'mcp-session-id': sessionId },
          body: {
            jsonrpc: '2.0',
            id,
            result: {
              protocolVersion: PROTOCOL_VERSION,
              capabilities: { tools: {} },
              serverInfo: { name: 'loom', version: '0.1.0' },
              instructions: run ? `Namespace ${namespace}. Run ${run.run_id}.` : `Namespace ${namespace}.`,
            },
          },
        };
      }
      if (message.method?.startsWith('notifications/')) return { status: 202, headers: {}, body: undefined };
      const session = request.sessionId ? await this.session(request.sessionId) : undefined;
      if (!session) return rpcError(id, -32001, 'no MCP session with this Mcp-Session-Id: send initialize first', 404);
      // A session id is no credential: the caller's own token must reach the session's namespace.
      requireNamespaceWideToken(principal, 'MCP');
      resolveNamespace(principal, session.namespace);
      if (session.runId !== '') await this.runs.touch(session.namespace, session.runId);
      const tools = session.toolset === 'all' ? ALL_TOOLS : CORE_TOOLS;
      switch (message.method) {
        case 'ping':
          return ok(id, {});
        case 'tools/list':
          return ok(id, { tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) });
        case 'tools/call': {
          const name = String(message.params?.['name'] ?? '');
          const tool = tools.find((t) => t.name === name);
          if (!tool) return rpcError(id, -32602, `no tool "${name}" in this listing${session.toolset === 'core' ? ' (mount ?toolset=all for more)' : ''}`);
          const given = message.params?.['arguments'];
          // The session's namespace always wins: a tool call cannot name another one.
          const args = typeof given === 'object' && given !== null && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
          try {
            const result = await tool.call(args, (op, body) => this.op(op, { ...body, namespace: session.namespace }, request.authorization));
            return ok(id, { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result, isError: false });
          } catch (error) {
            return ok(id, { content: [{ type: 'text', text: (error as Error).message }], isError: true });
          }
        }
        default:
          return rpcError(id, -32601, `method "${message.method ?? ''}" is not supported`);
      }
    } catch (error) {
      if (LoomError.isLoomError(error) && (error.code === 'unauthorized' || error.code === 'forbidden')) return rpcError(id, -32001, error.message, error.status);
      this.logger?.error({ err: error }, 'MCP request failed');
      return rpcError(id, -32603, 'internal error');
    }
  }

  /** The session, from this replica's memory or from storage (one another replica started). */
  private async session(sessionId: string): Promise<McpSession | undefined> {
    const known = this.sessions.get(sessionId);
    if (known) return known;
    const [row] = await this.storage.query<{ namespace: string; run_id: string; toolset: string }>(
      `SELECT namespace, run_id, toolset FROM ${this.storage.tables.mcpSessions} FINAL WHERE session_id = {id:String}`,
      { id: sessionId },
    );
    if (!row) return undefined;
    const session: McpSession = { namespace: row.namespace, runId: row.run_id, toolset: row.toolset === 'all' ? 'all' : 'core' };
    this.remember(sessionId, session);
    return session;
  }

  private remember(sessionId: string, session: McpSession): void {
    // The oldest entry makes room: a session it held is read from storage again when it returns.
    if (this.sessions.size >= CACHED_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(sessionId, session);
  }

  /** Closes the implicit runs of sessions idle for LOOM_MCP_SESSION_RUN_IDLE_SECONDS. */
  async sweep(now = new Date()): Promise<number> {
    const closed = await this.runs.closeIdle(this.idleSeconds, now);
    if (closed > 0) this.logger?.info({ closed }, 'closed idle MCP session runs');
    return closed;
  }

  private async op(name: string, body: Record<string, unknown>, authorization: string | undefined): Promise<unknown> {
    const result = await this.dispatcher.dispatch(name, JSON.stringify(body), authorization, randomUUID());
    if (result.status !== 200) throw new Error((result.body as { error?: { message?: string } }).error?.message ?? `${name} answered ${result.status}`);
    return result.body;
  }
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

function ok(id: JsonRpcRequest['id'], result: unknown): McpReply {
  return { status: 200, headers: {}, body: { jsonrpc: '2.0', id, result } };
}

function rpcError(id: JsonRpcRequest['id'] | null, code: number, message: string, status = 200): McpReply {
  return { status, headers: {}, body: { jsonrpc: '2.0', id, error: { code, message } } };
}
