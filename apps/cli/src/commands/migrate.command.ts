import { runMigrations, Storage } from '@loom/clickhouse';
import { loadConfig } from '@loom/platform';
import { NatsKvLock } from '@loom/transport';
import { connect } from 'nats';

/** `loom migrate`: applies pending migrations to the configured storage, with progress. */
export async function migrateCommand(): Promise<void> {
  const config = loadConfig();
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir });
  // With NATS configured, take the same lock the gateways take, so a Job and a rollout never race.
  const nc = config.natsUrl ? await connect({ servers: config.natsUrl, name: 'loom-migrate' }) : undefined;
  try {
    const report = await runMigrations(storage, {
      ...(nc ? { lock: new NatsKvLock(nc) } : {}),
      onProgress: (p) =>
        process.stdout.write(
          p.elapsedMs === undefined
            ? `[${p.index}/${p.total}] applying ${p.migration}\n`
            : `[${p.index}/${p.total}] ${p.migration} still running (${Math.round(p.elapsedMs / 1000)} s); a table copy takes a while, leave it be\n`,
        ),
    });
    process.stdout.write(
      report.applied.length === 0
        ? `schema is up to date (${report.alreadyApplied} migrations applied earlier)\n`
        : `applied ${report.applied.length} migration(s); ${report.alreadyApplied} were applied earlier\n`,
    );
  } finally {
    await nc?.drain();
    await storage.close();
  }
}
