import type { QuarantinedEvent } from '@loom/clickhouse';
import type { Logger, LoomMetrics } from '@loom/platform';

/** Storage's onQuarantine for a process: counts the row and logs its table and key, never its text. */
export function reportQuarantined(metrics: LoomMetrics, logger: Logger): (event: QuarantinedEvent) => void {
  return (e) => {
    metrics.writeQuarantined.inc({ table: e.table });
    logger.error(
      { table: e.table, row_key: e.key, error: e.error, quarantined_to: e.to },
      'storage refused a row on its own; the rest were stored and this row was quarantined (see loom quarantine list)',
    );
  };
}
