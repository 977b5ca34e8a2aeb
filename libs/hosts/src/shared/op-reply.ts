import { LoomError, type ErrorCode, type FieldError } from '@loom/contracts';
import type { Logger } from '@loom/platform';

export type OpReply<T> = { ok: true; response: T } | { ok: false; error: { code: ErrorCode; message: string; fields?: FieldError[] } };

/**
 * Runs an op handed over NATS and answers what the op would have answered, errors included: a
 * LoomError as itself, anything else as `internal` with `internalMessage` (the log keeps the cause).
 */
export async function answerOp<T>(work: () => Promise<T>, logger: Logger, internalMessage: string, context: Record<string, unknown>): Promise<OpReply<T>> {
  try {
    return { ok: true, response: await work() };
  } catch (error) {
    if (error instanceof LoomError) return { ok: false, error: { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}) } };
    logger.error({ err: error, ...context }, internalMessage);
    return { ok: false, error: { code: 'internal', message: internalMessage } };
  }
}

/** A payload that failed its contract, answered as the 400 it is. */
export function refused(error: unknown, subject: string, logger: Logger): OpReply<never> {
  const e = error instanceof LoomError ? error : new LoomError('invalid_input', 'invalid payload');
  logger.warn({ err: e.message }, `refused an invalid ${subject} payload`);
  return { ok: false, error: { code: e.code, message: e.message, ...(e.fields ? { fields: e.fields } : {}) } };
}
