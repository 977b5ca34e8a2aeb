import { runMigrations, Storage } from '@loom/clickhouse';
import { loadConfig } from '@loom/platform';

/** `loom migrate`: applies pending migrations to the configured storage, with progress. */
export async function migrateCommand(): Promise<void> {
  const config = loadConfig();
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir });
  try {
    const report = await runMigrations(storage, {
      onProgress: (p) => process.stdout.write(`[${p.index}/${p.total}] applying ${p.migration}\n`),
    });
    process.stdout.write(
      report.applied.length === 0
        ? `schema is up to date (${report.alreadyApplied} migrations applied earlier)\n`
        : `applied ${report.applied.length} migration(s); ${report.alreadyApplied} were applied earlier\n`,
    );
  } finally {
    await storage.close();
  }
}
