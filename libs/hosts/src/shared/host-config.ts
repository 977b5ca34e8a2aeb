import { ConfigError, type LoomConfig } from '@loom/platform';

/** What every service of the split topology reads: where to listen, log and trace, NATS and storage. */
export const ServiceSections = ['host', 'logLevel', 'traces', 'natsUrl', 'clickhouse', 'dataDir'] as const satisfies readonly (keyof LoomConfig)[];

/**
 * A split-topology service needs NATS and (unless it keeps no data) a ClickHouse server: says
 * why, with the config's other problems, when either is missing.
 */
export function requireSplit(config: Pick<LoomConfig, 'natsUrl'> & Partial<Pick<LoomConfig, 'clickhouse'>>, needs: { nats: string; clickhouse?: string }): void {
  const problems: string[] = [];
  if (!config.natsUrl) problems.push(`LOOM_NATS_URL is required: ${needs.nats} (for one process with everything in it, run \`loom up\`)`);
  if (needs.clickhouse && !config.clickhouse?.url) {
    problems.push(`LOOM_CLICKHOUSE_URL is required: the embedded engine belongs to one process, so ${needs.clickhouse} reads a ClickHouse server`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

/** The variables a split-topology service cannot start without, for `loadConfigSections`. */
export function splitRequirements(needs: { nats: string; clickhouse?: string }): Record<string, string> {
  return {
    LOOM_NATS_URL: `${needs.nats} (for one process with everything in it, run \`loom up\`)`,
    ...(needs.clickhouse ? { LOOM_CLICKHOUSE_URL: `the embedded engine belongs to one process, so ${needs.clickhouse} reads a ClickHouse server` } : {}),
  };
}
