import { withLease, type LeaseManager } from '@loom/leases';
import type { Logger } from '@loom/platform';

/** One gateway replica sweeps at a time. */
export const DEFERRED_EMBEDS_LEASE = 'conversation_embeds/deferred';

/** Empty sweeps in a row after which a replica stops looking until NATS drops again. */
const EMPTY_SWEEPS_TO_REST = 3;

/**
 * Embeds, once the embedder can be reached again, the turns appended while the connection to
 * NATS was down (ADR 0020), and indexes those stored while the thread leases could not be
 * taken (ADR 0026). Every `intervalMs`, if the transport says it is up, the replica that
 * takes the lease embeds what is waiting; the others skip that turn. The look is a scan of the
 * embedding table, so a replica looks only after a start or after its connection was down, until
 * a few looks in a row find nothing.
 */
export class DeferredEmbeddingsWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  /** Looks left before resting; reset by a start and by every time the transport was seen down. */
  private looksLeft = EMPTY_SWEEPS_TO_REST;

  constructor(
    /** Run in order under the lease, each answering what it found and what it wrote. */
    private readonly sweeps: Array<() => Promise<{ found: number; written: number }>>,
    private readonly leases: LeaseManager,
    private readonly transportUp: () => boolean,
    private readonly intervalMs: number,
    private readonly logger?: Logger,
  ) {}

  start(): void {
    this.schedule();
  }

  /** One sweep under the lease: the turns given a vector, or undefined when skipped. */
  async runOnce(): Promise<number | undefined> {
    if (!this.transportUp()) {
      this.looksLeft = EMPTY_SWEEPS_TO_REST;
      return undefined;
    }
    if (this.looksLeft <= 0) return undefined;
    const outcome = await withLease(this.leases, DEFERRED_EMBEDS_LEASE, async () => {
      const total = { found: 0, written: 0 };
      for (const sweep of this.sweeps) {
        const done = await sweep();
        total.found += done.found;
        total.written += done.written;
      }
      return total;
    });
    if (!outcome.acquired) return undefined;
    this.looksLeft = outcome.value.found === 0 ? this.looksLeft - 1 : EMPTY_SWEEPS_TO_REST;
    return outcome.value.written;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .then((n) => {
          if (n) this.logger?.info({ turns: n }, 'embedded turns appended while NATS was down');
        })
        .catch((error: unknown) => this.logger?.warn({ err: error }, 'embedding deferred turns failed; the next sweep tries again'))
        .finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }
}
