import { BaseRpcContext, RpcException, Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { DurableWork, validateInput, type DurableSubject } from '@loom/contracts';
import { JSONCodec, type JsMsg, type Msg, type MsgHdrs, type Subscription } from 'nats';
import { isObservable, lastValueFrom } from 'rxjs';
import { ensureWorkConsumer, ensureWorkStream, keepInProgress } from './jetstream-work';
import type { NatsLink } from './nats-connection';

const codec = JSONCodec<Record<string, unknown>>();

/** What a handler sees as its context on NATS: the subject, the headers, and for durable work the delivery. */
export class LoomNatsContext extends BaseRpcContext<[string, MsgHdrs | undefined, JsMsg | undefined]> {
  getSubject(): string {
    return this.args[0];
  }
  getHeaders(): { get(name: string): string } {
    const headers = this.args[1];
    return { get: (name: string) => headers?.get(name) ?? '' };
  }
  /** How many times this unit of durable work has been delivered (1 the first time). */
  getDeliveryCount(): number {
    return this.args[2]?.info.redeliveryCount ?? 1;
  }
}

/**
 * Thrown by a durable-work handler to have the message delivered again after `delayMs`. An
 * RpcException, so it crosses Nest's exception layer with its delay intact.
 */
export class RetryLater extends RpcException {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super({ status: 'retry', retry_in_ms: delayMs, message: reason });
  }
}

/** The delay a handler asked for, from a RetryLater as thrown or as Nest passed it on. */
function requestedDelay(error: unknown): number | undefined {
  if (error instanceof RetryLater) return error.delayMs;
  const delay = (error as { retry_in_ms?: unknown } | undefined)?.retry_in_ms;
  return typeof delay === 'number' ? delay : undefined;
}

/** An ack, nak or term on a connection that just went away: the delivery times out and comes back anyway. */
function settleQuietly(settle: () => void): void {
  try {
    settle();
  } catch {
    // Nothing to do: JetStream redelivers what was not acked.
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}

export interface LoomNatsServerOptions {
  /** The queue group of request/reply and event subscriptions: the service's name. */
  queue: string;
  /** The payload class of each durable subject this service consumes: validated before the handler runs. */
  durable?: Partial<Record<DurableSubject, new () => object>>;
  /** How many deliveries of one durable subject run at once in this replica. */
  durableConcurrency?: number;
  /** Overrides the contract's ack wait of every durable subject (tests, which cannot wait 30 s). */
  ackWaitMs?: number;
  /** How long close() waits for handlers in flight. */
  gracePeriodMs?: number;
  log?: { warn(fields: Record<string, unknown>, message: string): void };
}

/**
 * The one Nest transport strategy of Loom's services on NATS, over the process's own connection
 * (`NatsLink`, which reconnects forever):
 * - `@MessagePattern(subject)`: core request/reply in the service's queue group, in Nest's
 *   packet shape (`{pattern, data, id}` in, `{id, response | err, isDisposed}` out);
 * - `@EventPattern(subject)` on a durable subject (`DurableWork`): a JetStream durable pull
 *   consumer shared by the replicas. The payload is validated first (an invalid one is
 *   terminated, never retried); the message is acked only once the handler has finished, told
 *   "still working" while it runs, and delivered again on a throw (`RetryLater` picks the delay).
 * Nest's own NATS transport is at-most-once for events, which is why durable work is not on it.
 */
export class LoomNatsServer extends Server implements CustomTransportStrategy {
  private subscriptions: Subscription[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;
  private readonly pulls: Promise<void>[] = [];

  constructor(
    private readonly link: NatsLink,
    private readonly options: LoomNatsServerOptions,
  ) {
    super();
  }

  async listen(callback: (...optionalParams: unknown[]) => unknown): Promise<void> {
    try {
      for (const [pattern, handler] of this.messageHandlers) {
        const durable = this.options.durable?.[pattern as DurableSubject];
        if (handler.isEventHandler && durable) {
          await ensureWorkStream(this.link.connection);
          const consumer = await ensureWorkConsumer(this.link.connection, pattern as DurableSubject, this.options.ackWaitMs);
          this.pulls.push(this.pull(pattern as DurableSubject, consumer, durable, handler));
        } else {
          this.subscriptions.push(
            this.link.connection.subscribe(pattern, { queue: this.options.queue, callback: (_error, message) => this.track(this.serve(pattern, message, handler)) }),
          );
        }
      }
    } catch (error) {
      callback(error);
      return;
    }
    callback();
  }

  /** Stops taking work, then waits (up to the grace period) for what is in hand. The connection is the host's. */
  async close(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.subscriptions.filter((s) => !s.isClosed()).map(async (s) => s.drain().catch(() => undefined)));
    this.subscriptions = [];
    const grace = new Promise((resolve) => setTimeout(resolve, this.options.gracePeriodMs ?? 10_000).unref());
    await Promise.race([Promise.all([...this.inFlight, ...this.pulls]), grace]);
  }

  on(): never {
    throw new Error('LoomNatsServer reports its connection through NatsLink, not through events');
  }

  unwrap<T>(): T {
    return this.link.connection as T;
  }

  private track<T>(work: Promise<T>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async serve(pattern: string, message: Msg, handler: MessageHandler): Promise<void> {
    let packet: { data?: unknown; id?: string };
    try {
      packet = codec.decode(message.data) as { data?: unknown; id?: string };
    } catch {
      this.options.log?.warn({ subject: pattern }, 'ignored a message that is not JSON');
      return;
    }
    const context = new LoomNatsContext([pattern, message.headers, undefined]);
    let reply: Record<string, unknown>;
    try {
      const result: unknown = await handler(packet.data, context);
      reply = { id: packet.id, response: isObservable(result) ? await lastValueFrom(result, { defaultValue: undefined }) : result, isDisposed: true };
    } catch (error) {
      reply = { id: packet.id, err: describe(error), isDisposed: true };
    }
    // Without an id the message was an event: nobody waits for an answer.
    if (packet.id !== undefined && message.reply) message.respond(codec.encode(reply));
  }

  private async pull(subject: DurableSubject, consumerName: string, payloadType: new () => object, handler: MessageHandler): Promise<void> {
    const ackWaitMs = this.options.ackWaitMs ?? DurableWork.subjects[subject].ackWaitMs;
    const concurrency = this.options.durableConcurrency ?? 1;
    const js = this.link.connection.jetstream();
    // A closed connection never comes back (the policy reconnects forever, so only a close ends it).
    while (!this.stopped && !this.link.connection.isClosed()) {
      try {
        const consumer = await js.consumers.get(DurableWork.stream, consumerName);
        // Short fetches: a stop or a reconnect is noticed within a few seconds.
        const batch = await consumer.fetch({ max_messages: concurrency, expires: 2_000 });
        const running: Promise<void>[] = [];
        for await (const message of batch) {
          if (this.stopped) {
            // Not ours to finish: another replica (or this one after a restart) gets it at once.
            settleQuietly(() => message.nak());
            continue;
          }
          const work = this.settle(subject, message, payloadType, handler, ackWaitMs);
          this.track(work);
          running.push(work);
        }
        await Promise.all(running);
      } catch (error) {
        if (this.stopped || this.link.connection.isClosed()) return;
        this.options.log?.warn({ subject, err: (error as Error).message }, 'fetching durable work failed; retrying in a second');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        // A server that came back without its store (no persistence) lost the stream: make it again.
        if (/not found/i.test((error as Error).message)) {
          await ensureWorkStream(this.link.connection)
            .then(() => ensureWorkConsumer(this.link.connection, subject, this.options.ackWaitMs))
            .catch(() => undefined);
        }
      }
    }
  }

  private async settle(subject: string, message: JsMsg, payloadType: new () => object, handler: MessageHandler, ackWaitMs: number): Promise<void> {
    let payload: object;
    try {
      payload = validateInput(payloadType, message.json());
    } catch (error) {
      this.options.log?.warn({ subject, err: (error as Error).message }, `dropped an invalid ${subject} payload (terminated, never redelivered)`);
      settleQuietly(() => message.term());
      return;
    }
    const stopKeepingAlive = keepInProgress(message, ackWaitMs);
    try {
      const result: unknown = await handler(payload, new LoomNatsContext([subject, message.headers, message]));
      if (isObservable(result)) await lastValueFrom(result, { defaultValue: undefined });
      stopKeepingAlive();
      // Acked only now: the work is done. A crash before this line delivers it again.
      await message.ackAck().catch(() => settleQuietly(() => message.ack()));
    } catch (error) {
      stopKeepingAlive();
      const delayMs = requestedDelay(error) ?? Math.min(60_000, 1_000 * 2 ** Math.min(6, message.info.redeliveryCount - 1));
      this.options.log?.warn({ subject, deliveries: message.info.redeliveryCount, retry_in_ms: delayMs, err: describe(error) }, 'durable work not finished; delivered again later');
      settleQuietly(() => message.nak(delayMs));
    }
  }
}
