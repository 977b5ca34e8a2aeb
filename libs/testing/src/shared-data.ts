import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * Where the shared real material (real transcripts, LoCoMo; never copied into the repository)
 * is looked for: LOOM_SHARED_DATA when set, else `../shared/data` beside the checkout.
 */
export function sharedDataCandidates(): string[] {
  const fromEnv = process.env['LOOM_SHARED_DATA'];
  return fromEnv ? [fromEnv] : [join(ROOT, '..', 'shared', 'data')];
}

/** The shared data directory, or undefined when this checkout has none beside it. */
export function sharedDataDir(): string | undefined {
  return sharedDataCandidates().find((dir) => existsSync(dir));
}

/**
 * A file of the shared real material. Only the real-data tier (describeRealData) and the bench
 * read it; the core suite runs on fixtures the project writes (libs/testing/src/fixtures).
 */
export function sharedDataPath(...parts: string[]): string {
  const base = sharedDataDir();
  if (!base) throw new Error(`the shared data is not at ${sharedDataCandidates().join(' or ')}; set LOOM_SHARED_DATA to its data/ directory`);
  return join(base, ...parts);
}
