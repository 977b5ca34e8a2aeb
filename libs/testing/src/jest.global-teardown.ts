import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { REAL_DATA_LEFT_OUT_ENV, realDataMissingMessage } from './real-data';

/** The one line saying the real-data tier was not run, and why (printed after jest's summary). */
export default function globalTeardown(): void {
  const file = process.env[REAL_DATA_LEFT_OUT_ENV];
  if (!file) return;
  const blocks = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  rmSync(dirname(file), { recursive: true, force: true });
  if (blocks.length === 0) return;
  const files = new Set(blocks.map((b) => b.split('\t')[0]));
  process.stdout.write(`\nreal-data tier NOT RUN (${blocks.length} block(s) in ${files.size} file(s)): ${realDataMissingMessage()}. CI=true makes it required.\n`);
}
