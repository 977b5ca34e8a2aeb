import { createServer } from 'node:http';
import type { Logger, LoomMetrics } from '@loom/platform';

/** What a worker needs to serve: each check true, or false with the process not ready. */
export type ReadinessChecks = Record<string, () => Promise<boolean>>;

/**
 * /metrics, /healthz and /readyz on a port of their own, for a process with no HTTP API. /readyz
 * answers 503 while any check is false (NATS or ClickHouse unreachable), with each check named.
 */
export async function serveMetrics(metrics: LoomMetrics, port: number, host: string, ready: ReadinessChecks = {}): Promise<{ close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (req.url === '/readyz') {
      void Promise.all(Object.entries(ready).map(async ([name, check]) => [name, await check().catch(() => false)] as const)).then((results) => {
        const checks = Object.fromEntries(results);
        const ok = results.every(([, v]) => v);
        res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ready' : 'not_ready', checks }));
      });
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * A worker's /metrics, when it has a port: a port it cannot take is logged with what to do, and
 * the worker goes on without metrics, since its work is what matters.
 */
export async function serveWorkerMetrics(
  metrics: LoomMetrics,
  port: number | undefined,
  host: string,
  logger: Logger,
  portVariable: string,
  ready: ReadinessChecks = {},
): Promise<{ close(): Promise<void> } | undefined> {
  if (!port) return undefined;
  try {
    return await serveMetrics(metrics, port, host, ready);
  } catch (error) {
    logger.error({ port, err: (error as Error).message }, `cannot serve /metrics on ${portVariable}; set it to a free port (or 0 for none). The work goes on without metrics.`);
    return undefined;
  }
}

/** A NATS connection answers a PING within a second (false at once while it reconnects would need its status; a bounded flush is enough for a probe). */
export async function natsAnswers(nc: { flush(): Promise<void>; isClosed(): boolean }): Promise<boolean> {
  if (nc.isClosed()) return false;
  try {
    await Promise.race([nc.flush(), new Promise((_, reject) => setTimeout(() => reject(new Error('no PONG')), 1_000).unref())]);
    return true;
  } catch {
    return false;
  }
}
