import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { progress, warn } from './log';

/** The repository root (this file runs from dist/bench/src/util/, or from a snapshot of dist that is told the root). */
export const ROOT = process.env['BENCH_REPO_ROOT'] ?? resolve(__dirname, '..', '..', '..', '..');
export const DIST = join(ROOT, 'dist');
export const MIGRATIONS_SRC = join(ROOT, 'libs', 'clickhouse', 'migrations');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
export const NODE_MODULES = join(ROOT, 'node_modules');

/** Where Loom's apps and the raw-engine child are started from: dist/, or the run's snapshot of it. */
let runtimeDist = DIST;
export function runtimeDistDir(): string {
  return runtimeDist;
}

/** Environment for processes started from the snapshot: it lives outside the repo, so bare requires need NODE_PATH. */
export function runtimeEnv(): Record<string, string> {
  return runtimeDist === DIST ? {} : { NODE_PATH: NODE_MODULES, BENCH_REPO_ROOT: ROOT };
}

/**
 * Copies dist/ (apps, libs, bench; no source maps) into the run's work directory and runs
 * everything from there, so a rebuild of dist/ during the (long) run cannot change or break the
 * code under test half-way. Retries while dist/ looks half-built (path aliases not yet rewritten).
 * Also puts the migration .sql files where the runner looks for them (see ensureMigrations).
 */
export async function snapshotDist(workDir: string): Promise<string[]> {
  const target = join(workDir, 'dist');
  for (let attempt = 1; attempt <= 10; attempt += 1) {
    rmSync(target, { recursive: true, force: true });
    for (const dir of ['apps', 'libs', 'bench']) {
      cpSync(join(DIST, dir), join(target, dir), { recursive: true, filter: (src) => !src.endsWith('.map') && !src.endsWith('.d.ts') });
    }
    const unresolved = findUnresolvedAliases(target);
    if (unresolved.length === 0) {
      // The CLI reads its version from the package.json above it.
      cpSync(join(ROOT, 'package.json'), join(workDir, 'package.json'));
      runtimeDist = target;
      return ensureMigrations(target);
    }
    warn(`dist/ looks half-built (${unresolved[0]} still requires an @loom/ alias); retrying the snapshot in 5 s (${attempt}/10)`);
    await new Promise((r) => setTimeout(r, 5_000));
  }
  throw new Error('dist/ kept looking half-built (unresolved @loom/ requires): run `npm run build` and try again');
}

function findUnresolvedAliases(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.js') && /require\("@loom\//.test(readFileSync(p, 'utf8'))) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/**
 * `tsc` does not copy the migration .sql files, and the runner reads them from
 * <dist>/libs/clickhouse/migrations, so a fresh `npm run build` leaves Loom unable to start
 * ("ENOENT ... dist/libs/clickhouse/migrations"). Until the build copies them, the bench puts
 * them into its snapshot of dist and says so.
 */
function ensureMigrations(dist: string): string[] {
  const target = join(dist, 'libs', 'clickhouse', 'migrations');
  const sources = readdirSync(MIGRATIONS_SRC).filter((f) => f.endsWith('.sql'));
  const builtDir = join(DIST, 'libs', 'clickhouse', 'migrations');
  const missing = sources.filter((f) => !existsSync(join(builtDir, f)));
  if (missing.length > 0) {
    progress(`note: dist/libs/clickhouse/migrations lacks ${missing.length} .sql file(s) (the build does not copy them); the bench copies them from libs/clickhouse/migrations into its snapshot`);
  }
  // Always the source's files, so the snapshot's schema is the checked-out one.
  mkdirSync(target, { recursive: true });
  for (const f of sources) copyFileSync(join(MIGRATIONS_SRC, f), join(target, f));
  return missing;
}

export function requireBuilt(): void {
  for (const app of ['cli', 'gateway', 'embedder']) {
    if (!existsSync(join(DIST, 'apps', app, 'src', 'main.js'))) throw new Error(`dist/apps/${app} is missing: run \`npm run build\` first`);
  }
}
