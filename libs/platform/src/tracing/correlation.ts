import { AsyncLocalStorage } from 'node:async_hooks';

const store = new AsyncLocalStorage<string>();

/** Runs `fn` with `id` as the correlation id of everything it does, across awaits. */
export function withCorrelationId<T>(id: string, fn: () => T): T {
  return store.run(id, fn);
}

/** The correlation id of the op being served, if any: it rides in message headers and log lines. */
export function currentCorrelationId(): string | undefined {
  return store.getStore();
}
