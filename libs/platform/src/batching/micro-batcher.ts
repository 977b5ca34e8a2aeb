export interface MicroBatcherOptions {
  /** Most items one run takes. */
  maxItems: number;
  /** Wait this long for company before running; 0 runs as soon as a run slot is free. */
  lingerMs: number;
  /** Runs in flight at once; items that arrive meanwhile wait and form the next batch. */
  maxConcurrent: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: concurrent callers share one run of `run`, which answers each item in order.
 * Idle, an item runs at once (low latency); under load, items pile up while runs are in flight
 * and the next run takes them together (high throughput). One failed run fails its own items only.
 */
export class MicroBatcher<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: MicroBatcherOptions,
    private readonly onBatch?: (size: number) => void,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  get pending(): number {
    return this.queue.length + this.inFlight;
  }

  /** Items waiting for a run slot (not yet handed to `run`). */
  get queued(): number {
    return this.queue.length;
  }

  /** Runs in progress now (at most `maxConcurrent`). */
  get running(): number {
    return this.inFlight;
  }

  private schedule(): void {
    if (this.inFlight >= this.options.maxConcurrent) return;
    if (this.queue.length >= this.options.maxItems) {
      this.flush();
      return;
    }
    if (this.options.lingerMs === 0) {
      if (this.scheduled) return;
      this.scheduled = true;
      // A microtask lets callers that submit in the same tick join this run.
      queueMicrotask(() => {
        this.scheduled = false;
        this.flush();
      });
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.options.lingerMs);
  }

  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.queue.length === 0 || this.inFlight >= this.options.maxConcurrent) return;
    const batch = this.queue.splice(0, this.options.maxItems);
    this.inFlight += 1;
    this.onBatch?.(batch.length);
    this.run(batch.map((p) => p.item))
      .then(
        (results) => {
          if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} got ${results.length} results`);
          batch.forEach((p, i) => p.resolve(results[i]!));
        },
        (error: unknown) => {
          for (const p of batch) p.reject(error);
        },
      )
      .catch((error: unknown) => {
        for (const p of batch) p.reject(error);
      })
      .finally(() => {
        this.inFlight -= 1;
        if (this.queue.length > 0) this.schedule();
      });
  }
}
