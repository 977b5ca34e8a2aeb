import { round, summarize, type LatencySummary } from '../util/stats';

export interface OpOutcome {
  ok: boolean;
  /** A short error label (status and code), counted per label. */
  error?: string;
}

export interface DriveOptions {
  concurrency: number;
  /** Stop starting new ops after this long... */
  durationMs?: number;
  /** ...or after this many ops (whichever comes first). */
  totalOps?: number;
  /** Ops before the measured window starts (run at the same concurrency, not counted). */
  warmupOps?: number;
  op: (seq: number, worker: number) => Promise<OpOutcome>;
  /** Called every `progressEveryMs` with the running figures. */
  onProgress?: (done: number, elapsedMs: number, ratePerSec: number) => void;
  progressEveryMs?: number;
  /** Throughput per window of this length, to show whether a rate is sustained. */
  windowMs?: number;
  /** Called once the warm-up is over, just before the measured window starts. */
  onStart?: () => void;
}

export interface DriveResult {
  concurrency: number;
  ops: number;
  ok: number;
  failed: number;
  errors: Record<string, number>;
  durationMs: number;
  /** Successful ops per second over the measured window. */
  throughput: number;
  latencyMs: LatencySummary;
  /** Successful ops per second in each window (the lowest shows whether the rate held). */
  windowRates: number[];
}

/** A closed loop: `concurrency` workers, each starting its next op when the previous answers. */
export async function drive(options: DriveOptions): Promise<DriveResult> {
  let seq = 0;
  const warmup = options.warmupOps ?? 0;
  if (warmup > 0) {
    await Promise.all(
      Array.from({ length: options.concurrency }, async (_, worker) => {
        while (seq < warmup) await options.op(seq++, worker).catch(() => undefined);
      }),
    );
  }
  options.onStart?.();
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const windowMs = options.windowMs ?? 5_000;
  const windowCounts: number[] = [];
  let ok = 0;
  let failed = 0;
  const started = Date.now();
  const deadline = options.durationMs === undefined ? Infinity : started + options.durationMs;
  const limit = options.totalOps === undefined ? Infinity : options.totalOps;
  let issued = 0;
  let timer: NodeJS.Timeout | undefined;
  if (options.onProgress) {
    const every = options.progressEveryMs ?? 5_000;
    timer = setInterval(() => {
      const elapsed = Date.now() - started;
      options.onProgress?.(ok + failed, elapsed, (ok / elapsed) * 1000);
    }, every);
  }
  try {
    await Promise.all(
      Array.from({ length: options.concurrency }, async (_, worker) => {
        while (Date.now() < deadline && issued < limit) {
          issued += 1;
          const t0 = process.hrtime.bigint();
          let outcome: OpOutcome;
          try {
            outcome = await options.op(seq++, worker);
          } catch (error) {
            outcome = { ok: false, error: error instanceof Error ? error.message.slice(0, 120) : String(error) };
          }
          const now = Date.now();
          const w = Math.floor((now - started) / windowMs);
          if (outcome.ok) {
            ok += 1;
            latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
            windowCounts[w] = (windowCounts[w] ?? 0) + 1;
          } else {
            failed += 1;
            const label = outcome.error ?? 'failed';
            errors[label] = (errors[label] ?? 0) + 1;
          }
        }
      }),
    );
  } finally {
    if (timer) clearInterval(timer);
  }
  const durationMs = Date.now() - started;
  // Only complete windows count towards the sustained-rate figure.
  const fullWindows = Math.floor(durationMs / windowMs);
  const windowRates: number[] = [];
  for (let i = 0; i < fullWindows; i += 1) windowRates.push(round(((windowCounts[i] ?? 0) / windowMs) * 1000, 1));
  return {
    concurrency: options.concurrency,
    ops: ok + failed,
    ok,
    failed,
    errors,
    durationMs,
    throughput: round((ok / durationMs) * 1000, 1),
    latencyMs: summarize(latencies),
    windowRates,
  };
}
