/** Named checks of what the gateway needs to serve: storage and transport. */
export class Readiness {
  constructor(private readonly checks: Record<string, () => Promise<boolean>>) {}

  async check(): Promise<Record<string, boolean>> {
    const entries = await Promise.all(
      Object.entries(this.checks).map(async ([name, fn]) => [name, await fn().catch(() => false)] as const),
    );
    return Object.fromEntries(entries);
  }
}
