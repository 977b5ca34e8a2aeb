/**
 * The caller's side of request/reply. Both adapters speak Nest's packet shape
 * (`{ pattern, data, id }` in, `{ id, response | err }` out) so Nest microservices serve either.
 */
export interface RequestClient {
  /** Resolves with the handler's response; rejects with `TransportError` when no answer came. */
  request<TRes>(subject: string, payload: unknown, options: { timeoutMs: number }): Promise<TRes>;
  close(): Promise<void>;
}

/** `disconnected`: the connection to NATS is down right now (it reconnects by itself); nothing was sent. */
export type TransportFailure = 'no_responders' | 'timeout' | 'handler_error' | 'closed' | 'disconnected';

export class TransportError extends Error {
  constructor(
    readonly failure: TransportFailure,
    readonly subject: string,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}
