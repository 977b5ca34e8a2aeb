/** A check's answer: ready, or not ready (with why, when the check can say). */
export type CheckResult = boolean | { ready: false; reason: string };

/** Named checks of what the gateway needs to serve: storage, transport, and writes reaching storage. */
export class Readiness {
  constructor(private readonly checks: Record<string, () => Promise<CheckResult>>) {}

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
