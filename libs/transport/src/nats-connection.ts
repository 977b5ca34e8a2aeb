import { connect, type NatsConnection } from 'nats';

/**
 * The one NATS connection policy of every Loom process: reconnect forever, every half second
 * (plus jitter), and notice a dead server within two missed pings. The client's defaults give up
 * after about ten tries (roughly 20 s), after which a process stays up and never serves again.
 */
export const NATS_CONNECTION_POLICY = {
  maxReconnectAttempts: -1,
  reconnectTimeWait: 500,
  reconnectJitter: 250,
  pingInterval: 5_000,
  maxPingOut: 2,
} as const;

export type NatsLinkState = 'connected' | 'reconnecting' | 'closed';

/** What a process watches of its connection: readiness reads it, metrics count its changes. */
export interface NatsLinkObserver {
  onStateChange?(state: NatsLinkState): void;
  onReconnect?(): void;
}

/** A NATS connection under the policy, with its state kept as the client reports it. */
export class NatsLink {
  private current: NatsLinkState = 'connected';
  private readonly observers: NatsLinkObserver[] = [];

  private constructor(readonly connection: NatsConnection) {
    void this.watch();
    void connection.closed().then(() => this.set('closed'));
  }

  static async connect(url: string, name: string): Promise<NatsLink> {
    return new NatsLink(await connect({ servers: url, name, ...NATS_CONNECTION_POLICY }));
  }

  get state(): NatsLinkState {
    return this.connection.isClosed() ? 'closed' : this.current;
  }

  get connected(): boolean {
    return this.state === 'connected';
  }

  observe(observer: NatsLinkObserver): void {
    this.observers.push(observer);
    observer.onStateChange?.(this.state);
  }

  /** True once the server has answered a round trip within `timeoutMs`; never waits longer. */
  async ping(timeoutMs = 1_000): Promise<boolean> {
    if (!this.connected) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.connection.flush().then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
      ]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain().catch(() => this.connection.close());
  }

  private set(state: NatsLinkState): void {
    if (this.current === state) return;
    this.current = state;
    for (const o of this.observers) o.onStateChange?.(state);
  }

  private async watch(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnecting') this.set('reconnecting');
      else if (status.type === 'reconnect') {
        this.set('connected');
        for (const o of this.observers) o.onReconnect?.();
      }
    }
  }
}
