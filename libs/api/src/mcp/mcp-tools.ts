import { BriefEventKinds, BriefListSections, CompletedRunStatuses, Limits, SavedSearchModes, SearchModes, TurnRoles, type OpName } from '@loom/contracts';
import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { keyAsNamed } from '../ops/op-dispatcher';
import type { McpSession } from './mcp-sessions';

/** Runs one op with the calling request's token; throws the op's error message when it is refused. */
export type OpCall = (op: OpName, body: Record<string, unknown>, authorization: string | undefined) => Promise<object>;

type Args = Record<string, unknown>;

interface ToolContext {
  session: McpSession;
  op: OpCall;
  /** The names registered for this session (what tools/list answers). */
  listed: Set<string>;
}

/**
 * The input schemas say what each argument is; the limits (lengths, ranges, formats) are the
 * op's own, checked by its validation, whose 400 names the field and comes back as the tool's
 * error. A tool's body is the op's body: the session's namespace is added by `call`, never taken
 * from the arguments (a `namespace` argument is refused as unknown, like any other).
 */
const userId = z.string().describe('the user the saved messages belong to');

/**
 * An object that refuses keys it does not know, as the op API refuses unknown fields: zod's own
 * object drops them, so a typo such as `limt` went unnoticed. The SDK answers the tool's error
 * (-32602, "Input validation error"), where each unknown key is named (printable, at most
 * Limits.maxFieldErrors of them) and one that reads as high is withheld. The listing's JSON
 * Schema says `additionalProperties: false`.
 */
function strict<T extends z.ZodRawShape>(shape: T, what: 'argument' | 'field'): z.ZodObject<T, z.core.$strict> {
  return z.strictObject(shape, { error: (issue) => (issue.code === 'unrecognized_keys' ? unknownKeys(issue.keys, what) : undefined) });
}

function unknownKeys(keys: readonly string[], what: 'argument' | 'field'): string {
  const named = keys.slice(0, Limits.maxFieldErrors).map(keyNamed);
  const more = keys.length > named.length ? ` and ${keys.length - named.length} more` : '';
  const hint = what === 'argument' && keys.includes('namespace') ? " (the session's namespace is the one the MCP URL names: /mcp?namespace=<namespace>)" : '';
  return `unknown ${what}${keys.length === 1 ? '' : 's'}: ${named.join(', ')}${more}${hint}`;
}

/**
 * JSON.parse keeps a `__proto__` key as the object's own, but the SDK's parse of a tools/call
 * drops it (zod skips that key), so no schema would see it. The endpoint renames it to this,
 * which no schema knows: it is refused like any unknown key, and named `__proto__`.
 */
export const PROTO_KEY = '\uFFFF__proto__';

/** An unknown key as the answer names it: as the op API names an unknown field (keyAsNamed), JSON's `__proto__` by its name. */
function keyNamed(key: string): string {
  return key === PROTO_KEY ? '__proto__' : keyAsNamed(key);
}

const briefSections = strict(
  {
    goal: z.string().optional(),
    status: z.string().optional(),
    ...Object.fromEntries(BriefListSections.map((s) => [s, z.array(z.string()).optional()])),
  },
  'field',
).describe('sections written by the agent itself; lists such as decisions, dead_ends and done build up across saves');

/**
 * The default listing. `conversation.search` is not a tool of its own: agents reach conversation
 * hits through the conversation section of `loom_search`. Nothing here asks the model to log
 * turns (capture belongs to transcript hooks).
 */
function registerCoreTools(server: McpServer, ctx: ToolContext): void {
  ctx.listed.add('loom_search');
  server.registerTool(
    'loom_search',
    {
      description: 'Search what this team knows: durable facts (memories) and, where the namespace records conversations, earlier conversation turns.',
      inputSchema: strict(
        {
          query: z.string().describe('what to look for'),
          limit: z.number().int().min(1).max(50).optional(),
          search_mode: z.enum(SearchModes).optional().describe('conversation turns by meaning and words (hybrid, the default), by meaning alone (vector) or by words alone (lexical)'),
        },
        'argument',
      ),
      annotations: { readOnlyHint: true },
    },
    async (args, extra) =>
      run(async () => {
        const authorization = bearer(extra.authInfo?.token);
        const limit = args.limit ?? 5;
        const mode = args.search_mode === undefined ? {} : { search_mode: args.search_mode };
        const [memories, conversations] = await Promise.all([
          ctx.op('memory.search', { query: args.query, limit, namespace: ctx.session.namespace }, authorization),
          ctx.op('conversation.search', { query: args.query, limit, namespace_scope: 'namespace', ...mode, namespace: ctx.session.namespace }, authorization),
        ]);
        return { memories: (memories as { hits: unknown[] }).hits, conversations: (conversations as { hits: unknown[] }).hits };
      }),
  );
}

/** Mounted with `?toolset=all`. */
function registerAllTools(server: McpServer, ctx: ToolContext): void {
  // The arguments reach the op as they are (the schema has checked their types), with the session's namespace.
  const tool: ToolMaker = (name, description, shape, op, body, readOnly) => {
    const inputSchema = strict(shape, 'argument');
    const callback: ToolCallback<typeof inputSchema> = async (args, extra) => run(() => ctx.op(op, { ...body(args), namespace: ctx.session.namespace }, bearer(extra.authInfo?.token)));
    ctx.listed.add(name);
    server.registerTool(name, { description, inputSchema, annotations: { readOnlyHint: readOnly } }, callback);
  };
  // The session's implicit run, unless the caller names another; none for a viewer's session.
  const sessionRun = (given: unknown) => given ?? (ctx.session.runId === '' ? undefined : ctx.session.runId);

  tool(
    'loom_conversation_append',
    "conversation.append: store one turn of a thread (kept only when the namespace records conversations). The turn carries this MCP session's run unless run_id names another.",
    { thread_id: z.string(), role: z.enum(TurnRoles), content: z.string(), msg_id: z.string().optional(), run_id: z.string().optional() },
    'conversation.append',
    (a) => ({ ...a, run_id: sessionRun(a['run_id']) }),
    false,
  );
  tool(
    'loom_brief_list',
    'session.brief_list: the session briefs of this namespace (key, project, branch, revision, one line each), newest first.',
    { mine_only: z.boolean().optional(), limit: z.number().int().optional(), agent: z.string().optional() },
    'session.brief_list',
    (a) => a,
    true,
  );
  tool(
    'loom_brief_get',
    'session.brief_get: one session brief (goal, status, decisions, dead ends, next steps...) by key, by the session that wrote it, or the latest of a project; `rendered` is the brief as text.',
    { brief_key: z.string().optional(), from_session: z.string().optional(), project: z.string().optional(), revision: z.number().int().optional(), full: z.boolean().optional(), agent: z.string().optional() },
    'session.brief_get',
    (a) => a,
    true,
  );
  tool(
    'loom_brief_save',
    'session.brief_save: revise a session brief with sections you wrote and/or events since the last save (condensed on the server). Without brief_key: auto/<project>/<branch>, else session/<session_id>.',
    {
      brief_key: z.string().optional(),
      project: z.string().optional(),
      branch: z.string().optional(),
      session_id: z.string().optional(),
      sections: briefSections.optional(),
      events: z.array(strict({ kind: z.enum(BriefEventKinds), text: z.string(), path: z.string().optional() }, 'field')).optional(),
      event_cursor: z.string().optional(),
      if_revision: z.number().int().optional(),
      use_llm: z.boolean().optional(),
      agent: z.string().optional(),
    },
    'session.brief_save',
    (a) => a,
    false,
  );
  tool(
    'loom_saved_search',
    "conversation.search_saved_messages: search one user's saved messages, by meaning and words (hybrid, the default), by meaning (semantic) or by words (lexical).",
    { user_id: userId, query: z.string(), search_mode: z.enum(SavedSearchModes).optional(), conversation_id: z.string().optional(), limit: z.number().int().optional() },
    'conversation.search_saved_messages',
    (a) => a,
    true,
  );
  tool(
    'loom_saved_save',
    "conversation.save_message: save one message of a thread for a user (role and content for a message the thread does not hold yet). It carries this MCP session's run unless run_id names another.",
    { user_id: userId, conversation_id: z.string(), message_id: z.string(), role: z.enum(TurnRoles).optional(), content: z.string().optional(), run_id: z.string().optional() },
    'conversation.save_message',
    (a) => ({ ...a, run_id: sessionRun(a['run_id']) }),
    false,
  );
  tool(
    'loom_context_pack',
    'context.pack: one text with what matters for a query: facts, the session\'s own turns (with session_id), the turns facts came from, and the session\'s latest tool actions.',
    { query: z.string(), user_id: z.string().optional(), session_id: z.string().optional(), limit: z.number().int().optional(), max_chars: z.number().int().optional() },
    'context.pack',
    (a) => a,
    true,
  );
  registerHistoryTools(tool);
  // Only for a session that has a run: run.begin's role is the one that began it.
  if (ctx.session.runId === '') return;
  tool(
    'loom_run_begin',
    'run.begin: begin a run (a unit of agent work with a goal) in the run ledger; complete it with loom_run_complete.',
    { goal: z.string(), run_id: z.string().optional(), agent: z.string().optional().describe('the agent doing the work; "mcp" when omitted, as for the session\'s own run') },
    'run.begin',
    (a) => ({ ...a, agent: a['agent'] ?? 'mcp' }),
    false,
  );
  tool(
    'loom_run_complete',
    `run.complete: end a run with its status (${CompletedRunStatuses.join(', ')}), outcome, memories used and what it wrote. Without run_id: this MCP session's run.`,
    { run_id: z.string().optional(), status: z.enum(CompletedRunStatuses), outcome: z.string().optional(), memories_used: z.array(z.string()).optional(), wrote: z.array(z.string()).optional() },
    'run.complete',
    (a) => ({ ...a, run_id: sessionRun(a['run_id']) }),
    false,
  );
}

type ToolMaker = (name: string, description: string, inputSchema: z.ZodRawShape, op: OpName, body: (args: Args) => Args, readOnly: boolean) => void;

/** The code-history plane's ops (answer 501 with how to turn it on while LOOM_CODE_INGEST_ENABLED is off). */
function registerHistoryTools(tool: ToolMaker): void {
  const repository = z.string().describe('the repository\'s name in Loom (code.list)');
  const limit = z.number().int().optional();
  tool('loom_history_path', 'history.path: the commits and PRs that touched a file (renames followed) or a directory, newest first, each with the tracker incidents it caused or fixed.', { repository, path: z.string(), limit }, 'history.path', (a) => a, true);
  tool('loom_history_symbol', 'history.symbol: the commits and PRs whose hunks changed a symbol (`query` or `Client.query`), newest first.', { repository, symbol: z.string(), path: z.string().optional(), limit }, 'history.symbol', (a) => a, true);
  tool('loom_history_line', 'history.line: the chain of commits that wrote a line (blame through history), newest first.', { repository, path: z.string(), line: z.number().int(), ref: z.string().optional(), limit }, 'history.line', (a) => a, true);
  tool('loom_history_review_brief', "history.review_brief: a merged PR's review brief: what changed and why, files, symbols, linked issues.", { repository, pr_number: z.number().int() }, 'history.review_brief', (a) => a, true);
  tool(
    'loom_history_duplicate_check',
    'history.duplicate_check: before opening a PR, the merged changes that already did the same thing (title, description and/or a unified diff), ranked with reasons.',
    { repository, title: z.string().optional(), description: z.string().optional(), diff: z.string().optional(), limit },
    'history.duplicate_check',
    (a) => a,
    true,
  );
  tool(
    'loom_history_bisect',
    'history.bisect: the commits most likely to have brought in a regression, from its description, a good and a bad commit (or since/until), and suspected paths or symbols; each with its evidence (with a tracker source, the incidents that name a commit as their cause or started soon after it landed).',
    { repository, description: z.string(), good: z.string().optional(), bad: z.string().optional(), since: z.string().optional(), until: z.string().optional(), paths: z.array(z.string()).optional(), symbols: z.array(z.string()).optional(), limit },
    'history.bisect',
    (a) => a,
    true,
  );
}

/** Registers the session's tools; answers their names. */
export function registerLoomTools(server: McpServer, session: McpSession, op: OpCall): ReadonlySet<string> {
  const ctx = { session, op, listed: new Set<string>() };
  registerCoreTools(server, ctx);
  if (session.toolset === 'all') registerAllTools(server, ctx);
  return ctx.listed;
}

/** The op's answer as text and as structured content; a refusal as the tool's error. */
async function run(work: () => Promise<object>): Promise<CallToolResult> {
  try {
    const result = await work();
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
  } catch (error) {
    return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
  }
}

function bearer(token: string | undefined): string | undefined {
  return token === undefined ? undefined : `Bearer ${token}`;
}
