import { requireEveryNamespace, requireNamespaceWideToken, requireRole, resolveNamespace, type AuthService } from '@loom/auth';
import { Defaults, isDeploymentWideOp, isOpName, isPerUserOp, Limits, LoomError, Ops, printableKey, validateInput, type OpName } from '@loom/contracts';
import { inSpan, withCorrelationId, type Logger, type LoomMetrics } from '@loom/platform';
import { findHighShapes, readsAsHigh } from '@loom/sensitivity';
import type { OpHandlers } from './op-handlers';

/** Room for the rest of an append's fields around 1 MiB of content. */
const MAX_BODY_BYTES = Limits.maxContentBytes + 256 * 1024;

export interface DispatchResult {
  status: number;
  body: unknown;
}

/**
 * One op call, start to end: find the op, authenticate, check the role, parse and validate the
 * body, resolve the namespace, run the handler. Each step fails with its own status, and every
 * call is one span, one latency observation and one log line (ids and sizes, never text).
 */
export class OpDispatcher {
  constructor(
    private readonly handlers: OpHandlers,
    private readonly auth: AuthService,
    private readonly metrics: LoomMetrics,
    private readonly logger: Logger,
  ) {}

  async dispatch(opName: string, rawBody: string, authorization: string | undefined, correlationId: string): Promise<DispatchResult> {
    const started = process.hrtime.bigint();
    const op = isOpName(opName) ? opName : undefined;
    let namespace: string | undefined;
    let traceId: string | undefined;
    let status = 200;
    try {
      return await withCorrelationId(correlationId, () =>
        this.run(op, opName, rawBody, authorization, correlationId, (ns) => (namespace = ns), (id) => (traceId = id)),
      );
    } catch (error) {
      const mapped = toErrorResult(error, correlationId);
      status = mapped.status;
      if (status >= 500 && status !== 503) {
        this.logger.error({ op, namespace, correlation_id: correlationId, err: loggable(error) }, 'op failed');
      }
      return mapped;
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.opDuration.observe({ op: op ?? 'unknown', status: String(status) }, seconds);
      this.logger.info({ op: op ?? withoutHigh(opName).slice(0, 64), namespace, status, ms: Math.round(seconds * 1e4) / 10, bytes: rawBody.length, correlation_id: correlationId, trace_id: traceId }, 'op');
    }
  }

  /** The steps of one call, each failing with its own status; `onNamespace` reports the namespace for the log line. */
  private run(
    op: OpName | undefined,
    opName: string,
    rawBody: string,
    authorization: string | undefined,
    correlationId: string,
    onNamespace: (ns: string) => void,
    onTrace: (traceId: string) => void,
  ): Promise<DispatchResult> {
    return inSpan(`op ${op ?? 'unknown'}`, { 'loom.op': op ?? 'unknown', 'loom.correlation_id': correlationId }, async (span) => {
        // The op's log line is written after its span ends: it names the trace itself.
        onTrace(span.spanContext().traceId);
        if (!op) throw new LoomError('unknown_op', `there is no op "${opName}"; see the README for the list`);
        const principal = await this.auth.authenticate(authorization);
        requireRole(principal, Ops[op].role, op);
        if (!isPerUserOp(op)) requireNamespaceWideToken(principal, op);
        if (isDeploymentWideOp(op)) requireEveryNamespace(principal, op);
        const input = validateInput(Ops[op].request as new () => object, parseBody(rawBody), keyAsNamed) as { namespace?: string; agent?: string };
        const namespace = resolveNamespace(principal, input.namespace);
        onNamespace(namespace);
        span.setAttribute('loom.namespace', namespace);
        const handler = this.handlers[op] as (ctx: unknown, input: unknown) => Promise<unknown>;
        const body = await handler({ principal, namespace, agent: input.agent ?? Defaults.agent }, input);
        return { status: 200, body };
      });
  }
}

function parseBody(raw: string): unknown {
  if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) {
    throw new LoomError('payload_too_large', `the request body is over ${MAX_BODY_BYTES} bytes; content may be at most 1 MiB`);
  }
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new LoomError('invalid_input', 'the request body is not valid JSON', { fields: [{ field: '(body)', message: 'not valid JSON' }] });
  }
}

/**
 * The one error shape: `{ error: { code, message, fields?, correlation_id } }`. An error may
 * quote what the caller sent (an unknown ref, git's own complaint about it); whatever in it reads
 * as high is withheld, so a pasted secret is never sent back, nor logged.
 */
export function toErrorResult(error: unknown, correlationId: string): DispatchResult {
  if (LoomError.isLoomError(error)) {
    const fields = error.fields?.map((f) => ({ field: withoutHigh(f.field), message: withoutHigh(f.message) }));
    return {
      status: error.status,
      body: { error: { code: error.code, message: withoutHigh(error.message), ...(fields ? { fields } : {}), correlation_id: correlationId } },
    };
  }
  return {
    status: 500,
    body: { error: { code: 'internal', message: `an unexpected error; quote correlation id ${correlationId} when reporting it`, correlation_id: correlationId } },
  };
}

export type { OpName };

/** `text` with each span that reads as high replaced by `[withheld]`. */
export function withoutHigh(text: string): string {
  const shapes = findHighShapes(text);
  if (shapes.length === 0) return text;
  let out = '';
  let at = 0;
  for (const { start, end } of shapes) {
    if (end <= at) continue;
    out += `${text.slice(at, Math.max(at, start))}[withheld]`;
    at = end;
  }
  return out + text.slice(at);
}

/** How much of a key is checked for what reads as high: the 64 characters shown, and enough past them for a token that starts among them. */
const KEY_CHECKED_CHARS = 320;

/**
 * A key the caller sent (an unknown field, an MCP tool's unknown argument) as an answer names
 * it: printable (quoted when it is no plain name, cut at 64 characters, see printableKey), and
 * `[withheld]` when it reads as high. A token glued to a name (`a_ghp_…`, `x-sk-…`,
 * `foo.AKIA…`) has no token boundary for the detector, so each part after a separator among the
 * characters shown is checked too.
 */
export function keyAsNamed(key: string): string {
  const checked = key.slice(0, KEY_CHECKED_CHARS);
  if (readsAsHigh(checked)) return '[withheld]';
  for (const part of checked.slice(0, 64).matchAll(/[^A-Za-z0-9](?=[A-Za-z0-9])/g)) {
    if (readsAsHigh(checked.slice(part.index + 1))) return '[withheld]';
  }
  return withoutHigh(printableKey(key));
}

/** An error as the log shows it: its message and stack without what reads as high. */
function loggable(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  return { type: error.name, message: withoutHigh(error.message), stack: withoutHigh(error.stack ?? '') };
}
