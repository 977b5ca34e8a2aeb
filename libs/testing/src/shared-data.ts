import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * A file of the shared test material (`../shared/data`, next to the repository: real
 * transcripts and LoCoMo, never copied in). LOOM_SHARED_DATA points elsewhere when a checkout
 * lives apart from it. Missing material is an error, never a skipped test.
 */
export function sharedDataPath(...parts: string[]): string {
  const candidates = [process.env['LOOM_SHARED_DATA'], join(ROOT, '..', 'shared', 'data'), '/work/shared/data'].filter((p): p is string => Boolean(p));
  const base = candidates.find((dir) => existsSync(dir));
  if (!base) throw new Error(`the shared test data is not at ${candidates.join(' or ')}; set LOOM_SHARED_DATA to its data/ directory`);
  return join(base, ...parts);
}
