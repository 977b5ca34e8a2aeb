import { withLease, type LeaseManager } from '@loom/leases';
import type { Logger } from '@loom/platform';
import type { ConversationTitler, TitlerPassReport } from './titler.service';

/** One replica runs a pass at a time: every replica's worker asks for this lease first. */
export const TITLER_LEASE = 'conversation_titler/pass';

/**
 * Runs titler passes on a cadence: `intervalMs` after the end of one pass, the next starts. A
 * replica that cannot take the lease skips that turn; the holder is running a pass.
 */
export class TitlerWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly titler: ConversationTitler,
    private readonly leases: LeaseManager,
    private readonly intervalMs: number,
    private readonly logger?: Logger,
  ) {}

  start(): void {
    this.schedule();
  }

  /** One pass under the lease; undefined when another replica holds it. */
  async runOnce(now?: Date): Promise<TitlerPassReport | undefined> {
    const outcome = await withLease(this.leases, TITLER_LEASE, (lease) => this.titler.pass(now, lease.signal));
    return outcome.acquired ? outcome.value : undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const started = Date.now();
      this.running = this.runOnce()
        .then((report) => {
          if (report && report.threads.length > 0) {
            const counts: Record<string, number> = {};
            for (const t of report.threads) counts[t.outcome] = (counts[t.outcome] ?? 0) + 1;
            this.logger?.info({ ...counts, llm_calls: report.llmCalls, ms: Date.now() - started }, 'titler pass');
          }
        })
        .catch((error: unknown) => this.logger?.error({ err: error }, 'titler pass failed; the next pass tries again'))
        .finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }
}
