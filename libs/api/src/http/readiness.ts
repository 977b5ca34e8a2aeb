/** A check's answer: ready, or not ready (with why, when the check can say). */
export type CheckResult = boolean | { ready: false; reason: string };

/** Named checks of what the gateway needs to serve: storage, transport, and writes reaching storage. */
/** Which optional planes this process serves, and the ops marked experimental (PRHIST-05, SETTINGS-09). */
export type PlanesStatus = Record<string, { enabled: boolean; how_to_enable?: string; experimental_ops: string[] }>;

export class Readiness {
  constructor(
    private readonly checks: Record<string, () => Promise<CheckResult>>,
    /** The gateway's planes; a service with no ops has none. */
    readonly planes?: () => PlanesStatus,
  ) {}

  async check(): Promise<Record<string, boolean>> {
    return (await this.report()).checks;
  }

  /** Every check, and for each failing one that can say, why. */
  async report(): Promise<{ checks: Record<string, boolean>; reasons: Record<string, string> }> {
    const entries = await Promise.all(
      Object.entries(this.checks).map(async ([name, fn]) => [name, await fn().catch((): CheckResult => false)] as const),
    );
    const checks: Record<string, boolean> = {};
    const reasons: Record<string, string> = {};
    for (const [name, result] of entries) {
      checks[name] = result === true;
      if (typeof result === 'object') reasons[name] = result.reason;
    }
    return { checks, reasons };
  }
}
