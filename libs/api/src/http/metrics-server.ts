import { createServer } from 'node:http';
import type { Logger, LoomMetrics } from '@loom/platform';

/** /metrics and /healthz on a port of their own, for a process with no HTTP API (the embedder). */
export async function serveMetrics(metrics: LoomMetrics, port: number, host: string): Promise<{ close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
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
): Promise<{ close(): Promise<void> } | undefined> {
  if (!port) return undefined;
  try {
    return await serveMetrics(metrics, port, host);
  } catch (error) {
    logger.error({ port, err: (error as Error).message }, `cannot serve /metrics on ${portVariable}; set it to a free port (or 0 for none). The work goes on without metrics.`);
    return undefined;
  }
}
