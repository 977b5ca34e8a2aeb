import http from 'node:http';
import { elapsedMs } from './stats';

export interface CallResult<T = any> {
  status: number;
  body: T;
  ms: number;
}

/**
 * A lean HTTP client for Loom's ops (node:http with keep-alive): the load generator shares two
 * cores with Loom, so it must cost as little CPU per request as possible (fetch costs ~2x more).
 */
export class LoomClient {
  private readonly agent: http.Agent;
  private readonly host: string;
  private readonly port: number;

  constructor(
    readonly url: string,
    readonly token: string,
    maxSockets = 256,
  ) {
    const parsed = new URL(url);
    this.host = parsed.hostname;
    this.port = Number(parsed.port);
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  call<T = any>(op: string, body: unknown, timeoutMs = 120_000): Promise<CallResult<T>> {
    const data = JSON.stringify(body);
    const started = process.hrtime.bigint();
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.host,
          port: this.port,
          path: `/v1/ops/${op}`,
          method: 'POST',
          agent: this.agent,
          timeout: timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(data),
            authorization: `Bearer ${this.token}`,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              /* keep the text */
            }
            resolve({ status: res.statusCode ?? 0, body: parsed as T, ms: elapsedMs(started) });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${op} timed out after ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(data);
    });
  }

  async ok<T = any>(op: string, body: unknown): Promise<T> {
    const result = await this.call<T>(op, body);
    if (result.status !== 200) throw new Error(`${op} answered ${result.status}: ${JSON.stringify(result.body)}`);
    return result.body;
  }

  async metrics(): Promise<string> {
    const response = await fetch(`${this.url}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return response.text();
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Sum and count of a Prometheus histogram in /metrics text (all label sets added). */
export function histogramTotals(metricsText: string, name: string): { sum: number; count: number } {
  let sum = 0;
  let count = 0;
  for (const line of metricsText.split('\n')) {
    if (line.startsWith(`${name}_sum`)) sum += Number(line.split(' ').pop());
    else if (line.startsWith(`${name}_count`)) count += Number(line.split(' ').pop());
  }
  return { sum, count };
}
