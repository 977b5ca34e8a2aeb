import { context, propagation, trace, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

let installed: { exporter: InMemorySpanExporter | undefined } | undefined;

/**
 * Installs the process's tracer provider once. Spans are always created and propagated (so one
 * op is one trace across services); `mode` only decides where finished spans go.
 */
export function installTracing(mode: 'none' | 'console' | 'memory'): { exporter: InMemorySpanExporter | undefined } {
  if (installed) return installed;
  const processors: SpanProcessor[] = [];
  let exporter: InMemorySpanExporter | undefined;
  if (mode === 'console') processors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
  if (mode === 'memory') {
    exporter = new InMemorySpanExporter();
    processors.push(new SimpleSpanProcessor(exporter));
  }
  const provider = new BasicTracerProvider({ spanProcessors: processors });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  installed = { exporter };
  return installed;
}

export function tracer(): Tracer {
  return trace.getTracer('loom');
}

/** Runs `fn` inside a span; records failure and always ends the span. */
export async function inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Writes the active trace context into a plain header map (for NATS headers). */
export function injectTraceHeaders(into: Record<string, string> = {}): Record<string, string> {
  propagation.inject(context.active(), into);
  return into;
}

/** Runs `fn` in the trace context carried by incoming headers. */
export function withExtractedContext<T>(headers: Record<string, string>, fn: () => T): T {
  return context.with(propagation.extract(context.active(), headers), fn);
}
