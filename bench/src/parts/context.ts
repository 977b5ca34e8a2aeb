import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchOptions {
  only: Set<'append' | 'search' | 'saved' | 'recall'>;
  quick: boolean;
  search1m: boolean;
  /** Search sizes to measure instead of the defaults (--search-sizes=100000). */
  searchSizes?: number[];
  /** Providers for the LoCoMo part. */
  providers: string[];
  keep: boolean;
}

export interface BenchContext {
  options: BenchOptions;
  /** Scratch space for data directories (removed at the end unless --keep). */
  workDir: string;
  dir(name: string): string;
}

export function makeContext(options: BenchOptions, workDir: string): BenchContext {
  return {
    options,
    workDir,
    dir: (name) => {
      const d = join(workDir, name);
      mkdirSync(d, { recursive: true });
      return d;
    },
  };
}
