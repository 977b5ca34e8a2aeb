import { Counter, Gauge } from 'prom-client';
import type { Logger, LoomMetrics } from '@loom/platform';
import type { NatsLink } from '@loom/transport';

/**
 * The NATS connection's state in /metrics (`loom_nats_connected`, `loom_nats_reconnects_total`)
 * and in the log: a lost connection is a warning, and its return says how long it took.
 */
export function reportNatsState(link: NatsLink, metrics: LoomMetrics, logger: Logger): void {
  const registry = metrics.registry;
  const connected =
    (registry.getSingleMetric('loom_nats_connected') as Gauge | undefined) ??
    new Gauge({ name: 'loom_nats_connected', help: '1 while the NATS connection is up, 0 while it reconnects (it never gives up)', registers: [registry] });
  const reconnects =
    (registry.getSingleMetric('loom_nats_reconnects_total') as Counter | undefined) ??
    new Counter({ name: 'loom_nats_reconnects_total', help: 'Times the NATS connection came back after a loss', registers: [registry] });
  let lostAt: number | undefined;
  link.observe({
    onStateChange: (state) => {
      connected.set(state === 'connected' ? 1 : 0);
      if (state === 'reconnecting' && lostAt === undefined) {
        lostAt = Date.now();
        logger.warn('lost the NATS connection; reconnecting until it is back (not ready meanwhile)');
      }
    },
    onReconnect: () => {
      reconnects.inc();
      logger.info({ down_ms: lostAt === undefined ? null : Date.now() - lostAt }, 'NATS connection back; serving again');
      lostAt = undefined;
    },
  });
}
