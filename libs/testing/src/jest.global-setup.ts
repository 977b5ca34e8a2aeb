import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REAL_DATA_LEFT_OUT_ENV, realDataMissingMessage, realDataRequired } from './real-data';
import { sharedDataDir } from './shared-data';

/** Once per jest run: CI without the real data fails before any test; elsewhere the left-out blocks are collected for one closing line. */
export default function globalSetup(): void {
  if (sharedDataDir()) return;
  if (realDataRequired()) throw new Error(`CI is set, so the real-data tier is required: ${realDataMissingMessage()}`);
  const file = join(mkdtempSync(join(tmpdir(), 'loom-real-data-')), 'left-out.tsv');
  writeFileSync(file, '');
  process.env[REAL_DATA_LEFT_OUT_ENV] = file;
}
