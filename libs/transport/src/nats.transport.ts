import { ErrorCode, headers as natsHeaders, JSONCodec, type NatsConnection, type NatsError } from 'nats';
import { randomUUID } from 'node:crypto';
import { messageHeaders } from './message-headers';
import { NatsLink } from './nats-connection';
import { TransportError, type RequestClient } from './request-client';

const codec = JSONCodec<Record<string, unknown>>();

/**
 * Request/reply over NATS core with nats.js itself (not Nest's ClientNats): `request` fails at
 * once with "no responders" when no replica listens, which is what lets search fall back to
 * substring matching immediately instead of waiting out a timeout.
 */
export class NatsRequestClient implements RequestClient {
  private constructor(
    readonly link: NatsLink,
    /** Whether close() closes the link: only when this client made it. */
    private readonly ownsLink: boolean,
  ) {}

  /** A client on a connection of its own, under the one policy (reconnect forever). */
  static async connect(url: string, name: string): Promise<NatsRequestClient> {
    return new NatsRequestClient(await NatsLink.connect(url, name), true);
  }

  /** A client on the process's connection; the link's owner closes it. */
  static over(link: NatsLink): NatsRequestClient {
    return new NatsRequestClient(link, false);
  }

  get connection(): NatsConnection {
    return this.link.connection;
  }

  /** Connected to NATS now (false while it reconnects, and once closed). */
  get connected(): boolean {
    return this.link.connected;
  }

  private get nc(): NatsConnection {
    return this.link.connection;
  }

  async request<TRes>(subject: string, payload: unknown, options: { timeoutMs: number }): Promise<TRes> {
    if (this.nc.isClosed()) throw new TransportError('closed', subject, 'the NATS connection is closed');
    // While NATS reconnects a request would wait in the reconnect buffer for its whole timeout:
    // fail at once, so the caller falls back (an embed is deferred, a search uses words alone).
    if (!this.link.connected) throw new TransportError('disconnected', subject, 'the connection to NATS is down (reconnecting)');
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

  /** A round trip within a second; false at once while the connection is down (never hangs a probe). */
  async ping(): Promise<boolean> {
    return this.link.ping();
  }

  async close(): Promise<void> {
    if (this.ownsLink) await this.link.close();
  }
}
