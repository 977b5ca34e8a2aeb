import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { makeContext, type BenchOptions } from './parts/context';
import { runAppendPart, type AppendPartResult } from './parts/append';
import { runRecallPart, type RecallPartResult } from './parts/recall';
import { runSavedPart, type SavedPartResult } from './parts/saved';
import { runSearchPart, type SearchPartResult } from './parts/search';
import { renderMarkdown, type LatestResults, type PartEntry } from './report/markdown';
import { calibrate, type Calibration } from './util/calibrate';
import { progress, warn } from './util/log';
import { requireBuilt, RESULTS_DIR, ROOT, snapshotDist } from './util/paths';

type PartName = 'append' | 'search' | 'saved' | 'recall';
const PARTS: PartName[] = ['append', 'search', 'saved', 'recall'];

export interface RunMeta {
  stamp: string;
  startedAt: string;
  finishedAt?: string;
  seconds?: number;
  quick: boolean;
  search1m: boolean;
  /** Search sizes given with --search-sizes (instead of the defaults). */
  searchSizes?: number[];
  parts: PartName[];
  git: string;
  node: string;
  cpus: string;
  memoryGb: number;
  notes: string[];
  dataDir?: string;
  /** Machine speed before and after each part (see util/calibrate.ts). */
  calibration: Record<string, { before: Calibration; after?: Calibration }>;
}

export interface RunResult {
  meta: RunMeta;
  append?: AppendPartResult;
  search?: SearchPartResult;
  saved?: SavedPartResult;
  recall?: RecallPartResult;
  failures: Record<string, string>;
}

function parseOptions(argv: string[]): BenchOptions {
  const env = process.env;
  const only = new Set<PartName>();
  const onlyArgs: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i]!;
    if (a === '--only') onlyArgs.push(argv[++i] ?? '');
    else if (a.startsWith('--only=')) onlyArgs.push(a.slice('--only='.length));
  }
  if (env['BENCH_ONLY']) onlyArgs.push(env['BENCH_ONLY']);
  for (const list of onlyArgs) {
    for (const p of list.split(',').map((s) => s.trim()).filter(Boolean)) {
      if (!PARTS.includes(p as PartName)) throw new Error(`--only takes ${PARTS.join(' | ')} (comma-separated), not "${p}"`);
      only.add(p as PartName);
    }
  }
  const flag = (name: string, envName: string): boolean => argv.includes(`--${name}`) || ['1', 'true', 'yes'].includes((env[envName] ?? '').toLowerCase());
  const providerArg = argv.find((a) => a.startsWith('--providers='))?.slice('--providers='.length) ?? env['BENCH_PROVIDERS'];
  const sizesArg = argv.find((a) => a.startsWith('--search-sizes='))?.slice('--search-sizes='.length) ?? env['BENCH_SEARCH_SIZES'];
  return {
    only: only.size > 0 ? only : new Set(PARTS),
    quick: flag('quick', 'BENCH_QUICK'),
    search1m: flag('search-1m', 'BENCH_SEARCH_1M'),
    ...(sizesArg ? { searchSizes: sizesArg.split(',').map((x) => Number(x.trim())).filter((n) => Number.isInteger(n) && n > 0) } : {}),
    providers: providerArg ? providerArg.split(',').map((s) => s.trim()).filter(Boolean) : ['hashed', 'use'],
    keep: flag('keep', 'BENCH_KEEP'),
  };
}

function fsType(dir: string): string {
  try {
    return execSync(`df -T ${JSON.stringify(dir)} | tail -1 | awk '{print $1" "$2}'`, { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'unknown file system';
  }
}

function gitDescribe(): string {
  try {
    const head = execSync('git rev-parse --short HEAD', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    const dirty = execSync('git status --porcelain', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() !== '';
    return `${head}${dirty ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write('usage: npm run bench -- [--only append|search|saved|recall[,...]] [--quick] [--search-1m] [--search-sizes=10000,100000] [--providers=hashed,use] [--keep]\n');
    return;
  }
  requireBuilt();
  const started = new Date();
  const stamp = started.toISOString().replace(/\..*$/, '').replace(/:/g, '-') + 'Z';
  const parts = PARTS.filter((p) => options.only.has(p));
  const notes: string[] = [];
  const meta: RunMeta = {
    stamp,
    startedAt: started.toISOString(),
    quick: options.quick,
    search1m: options.search1m,
    ...(options.searchSizes ? { searchSizes: options.searchSizes } : {}),
    parts,
    git: gitDescribe(),
    node: process.version,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    notes,
    calibration: {},
  };
  progress(`Loom bench ${stamp}: parts ${parts.join(', ')}${options.quick ? ' (quick)' : ''}${options.search1m ? ' (search up to 1M turns)' : ''}; ${meta.cpus}`);
  // Data directories live on the default temp disk (like a real install); BENCH_DATA_DIR moves
  // them, e.g. to /dev/shm to see how much of an insert is the file system.
  const baseDir = process.env['BENCH_DATA_DIR'] ?? tmpdir();
  mkdirSync(baseDir, { recursive: true });
  const workDir = mkdtempSync(join(baseDir, 'loom-bench-'));
  meta.dataDir = `${baseDir} (${fsType(baseDir)})`;
  const copied = await snapshotDist(workDir);
  progress(`running Loom and the raw-engine children from a snapshot of dist/ in ${workDir}/dist`);
  if (copied.length > 0) notes.push(`dist/libs/clickhouse/migrations was missing ${copied.length} .sql files (the build does not copy them; \`node dist/apps/cli/src/main.js up\` fails with ENOENT without them); the bench copied them from libs/clickhouse/migrations into its snapshot of dist.`);
  // A shared machine's load moves every latency: say what it was (1-minute load average, per core count).
  notes.push(`load average at the start: ${loadavg().map((l) => l.toFixed(1)).join(' / ')} (1/5/15 min) on ${cpus().length} cores`);
  // Loom's own settings given to this run (every Loom the bench starts inherits them): a figure is read with them.
  const settings = Object.entries(process.env).filter(([name]) => name.startsWith('LOOM_')).map(([name, value]) => `${name}=${/TOKEN|KEY|SECRET|PASSWORD/.test(name) ? '(set)' : value}`);
  if (settings.length) notes.push(`Loom settings from the environment: ${settings.sort().join(', ')}`);
  const ctx = makeContext(options, workDir);
  const result: RunResult = { meta, failures: {} };
  const runPart = async <K extends PartName>(name: K, fn: () => Promise<NonNullable<RunResult[K]>>): Promise<void> => {
    if (!options.only.has(name)) return;
    const t = Date.now();
    progress(`=== part: ${name} ===`);
    // Each part starts with the disk caught up: an earlier part's writes still being written back
    // would otherwise slow this part's engine (the file-system probe read 4.5 ms instead of 0.6
    // at the start of the search part of a full run, and search was ~15% slower than alone).
    const synced = Date.now();
    execSync('sync');
    if (Date.now() - synced > 1_000) progress(`waited ${Math.round((Date.now() - synced) / 1000)} s for earlier writes to reach the disk`);
    const before = await calibrate(join(workDir, 'calibration'));
    meta.calibration[name] = { before };
    progress(`machine speed now: CPU probe ${before.cpuMs} ms, file-system probe ${before.fsPartLikeMs} ms per part-like write`);
    try {
      (result as unknown as Record<string, unknown>)[name] = await fn();
      progress(`=== ${name} done in ${Math.round((Date.now() - t) / 1000)} s ===`);
      meta.calibration[name]!.after = await calibrate(join(workDir, 'calibration'));
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      result.failures[name] = message.slice(0, 4000);
      warn(`part ${name} failed after ${Math.round((Date.now() - t) / 1000)} s: ${message.slice(0, 2000)}`);
    }
  };
  try {
    await runPart('append', () => runAppendPart(ctx));
    await runPart('search', () => runSearchPart(ctx));
    await runPart('saved', () => runSavedPart(ctx));
    await runPart('recall', () => runRecallPart(ctx));
  } finally {
    if (!options.keep) rmSync(workDir, { recursive: true, force: true });
    else progress(`data directories kept in ${workDir}`);
  }
  notes.push(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' / ')} (1/5/15 min)`);
  meta.finishedAt = new Date().toISOString();
  meta.seconds = Math.round((Date.now() - started.getTime()) / 1000);
  writeResults(result);
  if (Object.keys(result.failures).length > 0) process.exitCode = 1;
}

function writeResults(result: RunResult): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const { stamp, quick } = result.meta;
  const suffix = quick ? '-quick' : '';
  const jsonPath = join(RESULTS_DIR, `${stamp}${suffix}.json`);
  writeFileSync(jsonPath, JSON.stringify(result, null, 2) + '\n');
  // latest.json / latest.md keep the newest full (non-quick) result of each part, so a run of one
  // part (--only) leaves the others' figures in the summary, each labelled with its run.
  const latestPath = join(RESULTS_DIR, 'latest.json');
  let latest: LatestResults = { parts: {} };
  if (existsSync(latestPath)) {
    try {
      latest = JSON.parse(readFileSync(latestPath, 'utf8')) as LatestResults;
    } catch {
      latest = { parts: {} };
    }
  }
  const view: LatestResults = quick ? { parts: {} } : latest;
  for (const part of PARTS) {
    const value = result[part];
    if (value === undefined) continue;
    const entry: PartEntry = { meta: result.meta, result: value } as PartEntry;
    (view.parts as Record<string, PartEntry>)[part] = entry;
  }
  const markdown = renderMarkdown(view, result);
  const datedMd = join(RESULTS_DIR, `${stamp}${suffix}.md`);
  writeFileSync(datedMd, markdown);
  if (!quick) {
    writeFileSync(latestPath, JSON.stringify(view, null, 2) + '\n');
    writeFileSync(join(RESULTS_DIR, 'latest.md'), markdown);
    progress(`results: ${jsonPath}, ${datedMd}, bench/results/latest.md`);
  } else {
    progress(`results (quick run; latest.md is left to full runs): ${jsonPath}, ${datedMd}`);
  }
  process.stdout.write('\n' + markdown + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
