import type { LoggerService } from '@nestjs/common';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import { prettyDestination, type LineSink } from './pretty';

/**
 * Structured JSON logs (one object a line), readable lines instead when they go to a terminal.
 * Callers log ids, counts and lengths — never the text of a turn, a vector, a brief or a token.
 */
export function createLogger(service: string, level: string, destination: pino.DestinationStream | undefined = defaultDestination()): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // A line written inside a traced op carries its trace and span ids, so a log search finds
      // the trace and a trace view finds the lines (W3C ids, as OTLP exports them).
      mixin: traceIds,
      // Belt and braces: if a caller slips, these keys never reach the sink.
      redact: { paths: ['content', 'text', 'texts', 'token', 'authorization', 'apiKey', '*.content', '*.token'], censor: '[redacted]' },
    },
    destination,
  );
}

/** The active span's ids, or nothing outside a trace. */
export function traceIds(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpanContext(context.active());
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/** Standard output: JSON for machines (a pipe, a file, a collector), readable lines on a terminal. */
export function defaultDestination(out: LineSink = process.stdout): pino.DestinationStream | undefined {
  return out.isTTY === true ? prettyDestination(out) : undefined;
}

/** Nest's logger interface over pino, so framework lines are JSON too. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  // Nest's own start-up chatter (module wiring, route mapping) is debug detail, not news.
  log(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}

export type { Logger };
