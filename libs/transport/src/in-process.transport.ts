import { BaseRpcContext, Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { firstValueFrom, isObservable } from 'rxjs';
import { messageHeaders } from './message-headers';
import { processHub, type InProcessHub } from './in-process.hub';
import { TransportError, type RequestClient } from './request-client';

/** What an in-process handler sees as its context: the subject and the message headers. */
export class InProcessContext extends BaseRpcContext<[string, Record<string, string>]> {
  getSubject(): string {
    return this.args[0];
  }
  getHeaders(): { get(name: string): string } {
    const headers = this.args[1];
    return { get: (name: string) => headers[name] ?? '' };
  }
}

/** A Nest transport strategy that serves `@MessagePattern` handlers from the process hub. */
export class InProcessServer extends Server implements CustomTransportStrategy {
  private unregister: Array<() => void> = [];

  constructor(private readonly hub: InProcessHub = processHub) {
    super();
  }

  listen(callback: (...optionalParams: unknown[]) => unknown): void {
    for (const [pattern, handler] of this.messageHandlers) {
      this.unregister.push(
        this.hub.register(pattern, async (data, headers) => {
          const result = await handler(data, new InProcessContext([pattern, headers]));
          return isObservable(result) ? firstValueFrom(result) : result;
        }),
      );
    }
    callback();
  }

  close(): void {
    for (const off of this.unregister) off();
    this.unregister = [];
  }

  on(): never {
    throw new Error('the in-process transport has no events to listen to');
  }

  unwrap<T>(): T {
    return this.hub as T;
  }
}

/** The caller's side of the in-process transport. */
export class InProcessRequestClient implements RequestClient {
  constructor(private readonly hub: InProcessHub = processHub) {}

  async request<TRes>(subject: string, payload: unknown, options: { timeoutMs: number }): Promise<TRes> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TransportError('timeout', subject, `no answer on ${subject} within ${options.timeoutMs} ms`)), options.timeoutMs);
    });
    try {
      return (await Promise.race([this.hub.request(subject, payload, messageHeaders()), timeout])) as TRes;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {}
}
