import { coversAllNamespaces, resolveNamespace, resolveUserId, type AuthService } from '@loom/auth';
import { ALL_AGENTS, LoomError, type OpName, type OpRequest, type OpResponse } from '@loom/contracts';
import type { ConversationPlane, NamespaceSet } from '@loom/conversations';
import { ContextPackService, type MemoryService, type ObservationsService } from '@loom/memory';
import { scopeFor, type BriefSaver, type BriefsService } from '@loom/briefs';
import type { ErasureService } from '@loom/erasure';
import type { RunsService } from '@loom/runs';
import type { QuarantineService } from '@loom/clickhouse';
import type { CodeHistory } from '@loom/history';
import type { TrackerService } from '@loom/tracker';
import type { OpContext } from './op-context';
import type * as C from '@loom/contracts';

/**
 * Each op's handler takes the op's validated request and answers its declared response type
 * (Ops in libs/contracts): nothing crosses the wire as `unknown`.
 */
export type OpHandlers = { [K in OpName]: (ctx: OpContext, input: OpRequest<K>) => Promise<OpResponse<K>> };

/** Writes act as one agent; "*" is only a read filter. */
function writingAgent(ctx: OpContext, op: string): string {
  if (ctx.agent === ALL_AGENTS) {
    throw new LoomError('invalid_input', `${op} writes as one agent; "*" only filters reads`, { fields: [{ field: 'agent', message: 'must name one agent' }] });
  }
  return ctx.agent;
}

/** The services the ops call. */
export interface OpServices {
  plane: ConversationPlane;
  memory: MemoryService;
  observations: ObservationsService;
  briefs: BriefsService;
  /** Where session.brief_save runs: `briefs` itself unless a brief condenser does (LOOM_BRIEFS_RUNS_IN=service). */
  briefSaver?: BriefSaver;
  erasure: ErasureService;
  runs: RunsService;
  auth: AuthService;
  /** Quarantined rows of the append path (storage's). */
  quarantine: QuarantineService;
  tracker: TrackerService;
  /** The code-history plane. */
  code: CodeHistory;
}

/** Adapters from ops to services: take the validated input, call one service method, return. */
export function createOpHandlers({ plane, memory, observations, briefs, briefSaver = briefs, erasure, runs, auth, quarantine, tracker, code }: OpServices): OpHandlers {
  /** Every namespace the token covers: a person's data is erased (and exported) wherever it is. */
  const callerNamespaces = (ctx: OpContext): NamespaceSet => (coversAllNamespaces(ctx.principal) ? { all: true } : { all: false, namespaces: ctx.principal.namespaces });
  const contextPack = new ContextPackService(memory, plane.search, observations);
  return {
    'conversation.set_logging': async (ctx, input) => {
      await plane.recording.setLogging(ctx.namespace, input.enabled);
      return { namespace: ctx.namespace, conversation_logging_enabled: input.enabled };
    },
    'conversation.get_logging': async (ctx) => ({ namespace: ctx.namespace, conversation_logging_enabled: await plane.recording.isRecording(ctx.namespace) }),
    'conversation.append': (ctx, input) => plane.append.append(ctx.namespace, writingAgent(ctx, 'conversation.append'), input),
    'conversation.create': (ctx, input) => plane.threads.create(ctx.namespace, input),
    'conversation.update': (ctx, input) => plane.threads.update(ctx.namespace, input),
    'conversation.get': (ctx, input) => plane.read.get(ctx.namespace, ctx.agent, input),
    'conversation.list': (ctx, input) => plane.read.list(ctx.namespace, ctx.agent, input),
    'conversation.threads': (ctx, input) => plane.read.recentThreads(ctx.namespace, ctx.agent, input),
    'conversation.search': (ctx, input) => {
      let scope: NamespaceSet;
      if ((input.namespace_scope ?? 'all_mine') === 'namespace') scope = { all: false, namespaces: [ctx.namespace] };
      else if (coversAllNamespaces(ctx.principal)) scope = { all: true };
      else scope = { all: false, namespaces: ctx.principal.namespaces };
      return plane.search.search(scope, ctx.agent, input);
    },
    'conversation.compact': (ctx, input) => plane.compaction.compact(ctx.namespace, writingAgent(ctx, 'conversation.compact'), input),
    'conversation.delete': (ctx, input) => plane.deletion.delete(ctx.namespace, writingAgent(ctx, 'conversation.delete'), input),
    'conversation.save_message': (ctx, input) =>
      plane.saved.save(ctx.namespace, writingAgent(ctx, 'conversation.save_message'), resolveUserId(ctx.principal, input.user_id, 'conversation.save_message'), input),
    'conversation.unsave_message': (ctx, input) =>
      plane.saved.unsave(ctx.namespace, writingAgent(ctx, 'conversation.unsave_message'), resolveUserId(ctx.principal, input.user_id, 'conversation.unsave_message'), input),
    'conversation.search_saved_messages': (ctx, input) =>
      plane.savedSearch.search(ctx.namespace, resolveUserId(ctx.principal, input.user_id, 'conversation.search_saved_messages'), input),
    'conversation.list_saved_messages': (ctx, input) =>
      plane.saved.list(ctx.namespace, resolveUserId(ctx.principal, input.user_id, 'conversation.list_saved_messages'), input),
    'conversation.saved_status': (ctx, input) => plane.saved.status(ctx.namespace, resolveUserId(ctx.principal, input.user_id, 'conversation.saved_status'), input),
    'memory.set': (ctx, input) => memory.set(ctx.namespace, input),
    'memory.set_from_messages': (ctx, input) => memory.setFromMessages(ctx.namespace, input),
    'memory.search': (ctx, input) => memory.search(ctx.namespace, input),
    'memory.recall': (ctx, input) => memory.recall(ctx.namespace, input),
    'memory.extraction_status': (ctx, input) => memory.extractionStatus(ctx.namespace, input.extraction_id),
    'context.pack': (ctx, input) => contextPack.pack(ctx.namespace, ctx.agent, input),
    'observe.record': (ctx, input) => observations.record(ctx.namespace, writingAgent(ctx, 'observe.record'), input),
    'observe.list': (ctx, input) => observations.list(ctx.namespace, ctx.agent, input),
    'observe.crystallize': (ctx, input) => observations.crystallize(ctx.namespace, input),
    'session.brief_save': (ctx, input) => briefSaver.save(ctx.namespace, writingAgent(ctx, 'session.brief_save'), scopeFor(ctx.principal), input),
    'session.brief_get': (ctx, input) => briefs.get(ctx.namespace, scopeFor(ctx.principal), input),
    'session.brief_list': (ctx, input) => briefs.list(ctx.namespace, ctx.agent, scopeFor(ctx.principal), input),
    'session.brief_delete': (ctx, input) => briefs.delete(ctx.namespace, scopeFor(ctx.principal), input),
    'erasure.request': (ctx, input) => {
      // Every namespace named must be one the token covers.
      for (const ns of input.namespace_list ?? []) resolveNamespace(ctx.principal, ns);
      return erasure.erase(callerNamespaces(ctx), ctx.namespace, input);
    },
    'erasure.status': (ctx, input) => erasure.status(ctx.namespace, input.erasure_id),
    'erasure.export': (ctx, input) => erasure.export(callerNamespaces(ctx), ctx.namespace, input),
    'run.begin': (ctx, input) => runs.begin(ctx.namespace, writingAgent(ctx, 'run.begin'), input),
    'run.complete': (ctx, input) => runs.complete(ctx.namespace, input),
    'run.get': (ctx, input) => runs.get(ctx.namespace, input.run_id),
    'run.list': (ctx, input) => runs.list(ctx.namespace, ctx.agent, input),
    'run.report_usage': (ctx, input) => runs.reportUsage(ctx.namespace, writingAgent(ctx, 'run.report_usage'), input),
    'token.create': async (ctx, input) => {
      const issued = await auth.createToken(ctx.principal, {
        namespace: ctx.namespace,
        role: input.role,
        ...(input.read_scope ? { readScope: input.read_scope } : {}),
        ...(input.read_user_id ? { readUserId: input.read_user_id } : {}),
        ...(input.read_session_id ? { readSessionId: input.read_session_id } : {}),
        ...(input.label ? { label: input.label } : {}),
      });
      return { token: issued.token, token_id: issued.tokenId, namespace: ctx.namespace, role: input.role };
    },
    'token.revoke': async (ctx, input) => {
      const revoked = await auth.revoke(ctx.principal, input.token_id);
      if (!revoked) throw new LoomError('not_found', `no token "${input.token_id}" that this token can revoke`);
      return { token_id: input.token_id, revoked: true };
    },
    'token.list': async (ctx, input): Promise<C.ListTokensResponse> => ({
      // A namespace named in the body narrows the list; none: every token the caller could revoke.
      tokens: await auth.listTokens(ctx.principal, { ...(input.namespace !== undefined ? { namespace: ctx.namespace } : {}), includeRevoked: input.include_revoked === true }),
    }),
    'token.whoami': (ctx): Promise<C.WhoamiResponse> =>
      Promise.resolve({
        token_id: ctx.principal.tokenId,
        role: ctx.principal.role,
        namespaces: ctx.principal.namespaces,
        namespace: ctx.namespace,
        read_scope: ctx.principal.readScope,
        read_user_id: ctx.principal.readUserId ?? null,
        read_session_id: ctx.principal.readSessionId ?? null,
      }),
    'settings.get': () => plane.settings.all(),
    'settings.set': (_ctx, input) => plane.settings.set(input.key, input.value),
    'quarantine.list': async (_ctx, input): Promise<C.QuarantineListResponse> => {
      return { rows: await quarantine.list({ limit: input.limit ?? 100, includeRows: input.include_rows === true }) };
    },
    'quarantine.retry': async (_ctx, input): Promise<C.QuarantineRetryResponse> => {
      return { results: await quarantine.retry(input.ids) };
    },
    'quarantine.drop': async (_ctx, input): Promise<C.QuarantineDropResponse> => {
      return { results: await quarantine.drop(input.ids) };
    },
    'tracker.status': (ctx) => tracker.status(ctx.namespace),
    'tracker.source_register': (ctx, input) => tracker.register(ctx.namespace, input),
    'tracker.duplicate_check': (ctx, input) => tracker.duplicateCheck(ctx.namespace, input),
    'tracker.issue_links': (ctx, input) => tracker.issueLinks(ctx.namespace, input),
    'tracker.flaky_tests': (ctx, input) => tracker.flakyTests(ctx.namespace, input),
    'tracker.incidents': (ctx, input) => tracker.incidents(ctx.namespace, input),
    'code.add': (ctx, input) => code.add(ctx.namespace, input),
    'code.github_sync': (ctx, input) => code.syncGithub(ctx.namespace, input),
    'code.list': (ctx) => code.list(ctx.namespace),
    'history.path': (ctx, input) => code.path(ctx.namespace, input),
    'history.symbol': (ctx, input) => code.symbol(ctx.namespace, input),
    'history.line': (ctx, input) => code.line(ctx.namespace, input),
    'history.review_brief': (ctx, input) => code.reviewBrief(ctx.namespace, input),
    'history.duplicate_check': (ctx, input) => code.duplicateCheck(ctx.namespace, input),
    'history.bisect': (ctx, input) => code.bisect(ctx.namespace, input),
  };
}
