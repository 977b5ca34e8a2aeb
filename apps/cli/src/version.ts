import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version in Loom's package.json, found upwards from here (the CLI runs from apps/cli/src in
 * tests, dist/apps/cli/src once built). A copy of dist/ without it still runs: only
 * `--version` says it cannot tell.
 */
export function loomVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'loom' && manifest.version) return manifest.version;
    }
    if (dirname(dir) === dir) return 'unknown (no package.json of Loom above the CLI)';
  }
}
