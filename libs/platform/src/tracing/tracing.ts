import { context, propagation, trace, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { TracesConfig } from '../config/loom.config';

let installed: { exporter: InMemorySpanExporter | undefined; provider: BasicTracerProvider } | undefined;

/** How long an export or a final flush may take: a sink that does not answer never holds up a stop. */
const EXPORT_TIMEOUT_MS = 5_000;

/**
 * Installs the process's tracer provider once. Spans are always created and propagated (so one
 * op is one trace across services); the mode only decides where finished spans go:
 * - `otlp`: batched to an OTLP/HTTP endpoint (an OpenTelemetry collector, ClickStack,
 *   Langfuse's OTLP endpoint), with the configured headers;
 * - `none`: nowhere. Nothing is sent anywhere unless a sink is configured.
 */
export function installTracing(traces: TracesConfig, serviceName = 'loom'): { exporter: InMemorySpanExporter | undefined } {
  if (installed) return installed;
  const processors: SpanProcessor[] = [];
  let exporter: InMemorySpanExporter | undefined;
  if (traces.mode === 'console') processors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
  if (traces.mode === 'memory') {
    exporter = new InMemorySpanExporter();
    processors.push(new SimpleSpanProcessor(exporter));
  }
  if (traces.mode === 'otlp' && traces.otlp) {
    const otlp = new OTLPTraceExporter({ url: traces.otlp.url, headers: traces.otlp.headers, timeoutMillis: EXPORT_TIMEOUT_MS });
    processors.push(new BatchSpanProcessor(otlp, { scheduledDelayMillis: traces.otlp.flushMs, exportTimeoutMillis: EXPORT_TIMEOUT_MS }));
  }
  // OTEL_RESOURCE_ATTRIBUTES, then OTEL_SERVICE_NAME over the process's own name.
  const resource = resourceFromAttributes({ ...traces.resourceAttributes, 'service.name': traces.serviceName ?? serviceName });
  const provider = new BasicTracerProvider({ spanProcessors: processors, resource });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  installed = { exporter, provider };
  return installed;
}

/** Sends the spans still waiting in a batch; a stopping process calls it. Never waits past the export timeout. */
export async function flushTracing(): Promise<void> {
  if (!installed) return;
  await Promise.race([installed.provider.forceFlush().catch(() => undefined), new Promise((r) => setTimeout(r, EXPORT_TIMEOUT_MS).unref())]);
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
