/**
 * Who goes first on an engine that runs one statement at a time. chDB takes a process's
 * statements in the order they arrive, so a search that arrives while a background read (a kept
 * copy's next page) is queued waits for it, and a search of several statements waits once per
 * statement. At 1M turns those pages made the first search of a namespace wait for minutes.
 *
 * A background statement here waits until no other statement has run for `quietMs` (a search's
 * statements follow each other closer than that), and at most `maxWaitMs`, so background work
 * still moves under a steady stream of searches. A statement of a search waits at most for the
 * one background statement already running.
 */
export interface StatementGateOptions {
  /** How long the engine must have had no other statement before a background one starts. */
  quietMs: number;
  /** The longest a background statement waits for a quiet moment. */
  maxWaitMs: number;
}

export const DEFAULT_STATEMENT_GATE: StatementGateOptions = { quietMs: 25, maxWaitMs: 1_000 };

export class StatementGate {
  private running = 0;
  private lastEnded = 0;
  private readonly options: StatementGateOptions;

  constructor(
    options: Partial<StatementGateOptions> = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.options = { ...DEFAULT_STATEMENT_GATE, ...options };
  }

  /** Runs a statement that goes first (anything but background reads). */
  async foreground<T>(run: () => Promise<T>): Promise<T> {
    this.running += 1;
    try {
      return await run();
    } finally {
      this.running -= 1;
      this.lastEnded = this.now();
    }
  }

  /**
   * Runs a statement of background work once the engine is quiet (or it has waited long enough).
   * It counts as running too, so two background reads never queue together ahead of a search.
   */
  async background<T>(run: () => Promise<T>): Promise<T> {
    const begun = this.now();
    for (;;) {
      const now = this.now();
      const quietFor = this.running > 0 ? 0 : now - this.lastEnded;
      if (quietFor >= this.options.quietMs || now - begun >= this.options.maxWaitMs) break;
      const wait = Math.max(1, Math.min(this.options.quietMs - quietFor, this.options.maxWaitMs - (now - begun)));
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    return this.foreground(run);
  }
}
