import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { connect, ErrorCode, headers as natsHeaders, JSONCodec, type NatsConnection, type NatsError } from 'nats';
import { randomUUID } from 'node:crypto';
import { messageHeaders } from './message-headers';
import { TransportError, type RequestClient } from './request-client';

const codec = JSONCodec<Record<string, unknown>>();

/**
 * The one reconnect policy of every NATS connection Loom makes: reconnect forever, every half
 * second. nats.js's default gives up after 10 tries (about 20 s), after which a worker stays up
 * and never serves again.
 */
export const NATS_CONNECTION_POLICY = { maxReconnectAttempts: -1, reconnectTimeWait: 500 } as const;

/**
 * Request/reply over NATS core with nats.js itself (not Nest's ClientNats): `request` fails at
 * once with "no responders" when no replica listens, which is what lets search fall back to
 * substring matching immediately instead of waiting out a timeout.
 */
export class NatsRequestClient implements RequestClient {
  private up = true;

  private constructor(private readonly nc: NatsConnection) {
    // The connection's state, so a request made while NATS is down fails at once (the caller
    // falls back) instead of waiting in the reconnect buffer for its whole timeout.
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'disconnect') this.up = false;
        else if (status.type === 'reconnect') this.up = true;
      }
    })().catch(() => undefined);
  }

  static async connect(url: string, name: string): Promise<NatsRequestClient> {
    const nc = await connect({ servers: url, name, ...NATS_CONNECTION_POLICY });
    return new NatsRequestClient(nc);
  }

  /** Connected to NATS now (false while it reconnects, and once closed). */
  get connected(): boolean {
    return this.up && !this.nc.isClosed();
  }

  get connection(): NatsConnection {
    return this.nc;
  }

  async request<TRes>(subject: string, payload: unknown, options: { timeoutMs: number }): Promise<TRes> {
    if (this.nc.isClosed()) throw new TransportError('closed', subject, 'the NATS connection is closed');
    if (!this.up) throw new TransportError('disconnected', subject, 'the connection to NATS is down (reconnecting)');
    const hdrs = natsHeaders();
    for (const [key, value] of Object.entries(messageHeaders())) hdrs.set(key, value);
    const id = randomUUID();
    let reply;
    try {
      reply = await this.nc.request(subject, codec.encode({ pattern: subject, data: payload, id }), {
        timeout: options.timeoutMs,
        headers: hdrs,
      });
    } catch (error) {
      const code = (error as NatsError).code;
      if (code === ErrorCode.NoResponders) throw new TransportError('no_responders', subject, `nothing serves ${subject}`);
      if (code === ErrorCode.Timeout) throw new TransportError('timeout', subject, `no answer on ${subject} within ${options.timeoutMs} ms`);
      throw new TransportError('closed', subject, `NATS request failed: ${(error as Error).message}`);
    }
    const packet = codec.decode(reply.data) as { response?: unknown; err?: unknown };
    if (packet.err !== undefined && packet.err !== null) {
      throw new TransportError('handler_error', subject, typeof packet.err === 'string' ? packet.err : JSON.stringify(packet.err));
    }
    return packet.response as TRes;
  }

  /** A round trip within a second; false at once while the connection is down, so a probe never hangs. */
  async ping(): Promise<boolean> {
    if (!this.connected) return false;
    try {
      await Promise.race([this.nc.flush(), new Promise((_, reject) => setTimeout(() => reject(new Error('no PONG')), 1_000).unref())]);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}

/**
 * Nest's NATS server strategy in the service's queue group, so replicas share requests. On
 * SIGTERM it drains: requests in flight are answered before the connection closes, so a
 * replica can be scaled down without failing appends open.
 */
export function natsMicroserviceOptions(url: string, queue: string, name: string): MicroserviceOptions {
  return { transport: Transport.NATS, options: { servers: [url], queue, name, gracefulShutdown: true, gracePeriod: 10_000, ...NATS_CONNECTION_POLICY } };
}
