import 'reflect-metadata';
import { loadGatewayConfig, runHost, startGateway } from '@loom/hosts';

/** The gateway as its own process (split topology): LOOM_CLICKHOUSE_URL and LOOM_NATS_URL set. */
runHost(loadGatewayConfig, async (config) => {
  const gateway = await startGateway(config);
  if (!config.natsUrl) {
    gateway.runtime.logger.warn('LOOM_NATS_URL is unset and this process runs no embedder: every embed fails open and search answers by substring. Set LOOM_NATS_URL, or run `loom up` for the all-in-one.');
  }
  return gateway;
});
