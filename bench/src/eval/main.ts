import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedLoom } from '../topology/loom';
import { progress } from '../util/log';
import { requireBuilt, RESULTS_DIR, ROOT } from '../util/paths';
import { codingSet } from './coding-set';
import { locomoSet } from './locomo-set';
import { providerSpecs } from './providers';
import { renderMarkdown, type EvalMeta, type EvalResult } from './report';
import { runEval } from './run';
import { runTrackerEval } from './tracker';
import type { EvalSet } from './types';

const SETS = ['locomo', 'coding'] as const;
type SetName = (typeof SETS)[number];

const USAGE = `usage: npm run eval -- [--quick] [--providers hashed,use[,endpoint]] [--sets locomo,coding] [--floor X]
       npm run eval -- --tracker [--tracker-sets a.json,b.json]
                   (the tracker duplicate check on the committed public issue sets, then on
                   set files kept outside the repository, e.g. from tracker-set-gitbugs.ts)

  --quick        LoCoMo's first 2 conversations (the coding set is small and always whole)
  --providers    embedding providers, one embedded Loom each (default: hashed,use; plus
                 endpoint when LOOM_EVAL_EMBEDDINGS_BASE_URL is set)
  --sets         evaluation sets (default: locomo,coding)
  --floor X      set conversation_search_min_similarity to X before asking (default: Loom's
                 own, 0.30; -1 shows each model's ranking with nothing cut)

  LOOM_EVAL_EMBEDDINGS_BASE_URL, _MODEL, _API_KEY, _DIMS: an OpenAI-compatible embeddings
  endpoint to measure as provider "endpoint" (the same settings as LOOM_EMBEDDINGS_*).
`;

/** `--name a,b` or `--name=a,b`. */
function listFlag(argv: string[], name: string): string[] | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i]!;
    const value = a === `--${name}` ? argv[i + 1] : a.startsWith(`--${name}=`) ? a.slice(name.length + 3) : undefined;
    if (value !== undefined) return value.split(',').map((s) => s.trim()).filter(Boolean);
  }
  return undefined;
}

function commit(): string {
  try {
    const head = execSync('git rev-parse --short HEAD', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    const dirty = execSync('git status --porcelain', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() !== '';
    return `${head}${dirty ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  // The tracker's duplicate-check set is its own section (bench/src/eval/tracker.ts).
  if (argv.includes('--tracker')) return runTrackerEval(listFlag(argv, 'tracker-sets') ?? []);
  const quick = argv.includes('--quick');
  const setNames = listFlag(argv, 'sets') ?? [...SETS];
  for (const s of setNames) if (!(SETS as readonly string[]).includes(s)) throw new Error(`--sets takes ${SETS.join(', ')}, not "${s}"`);
  const providers = providerSpecs(listFlag(argv, 'providers'));
  const floorArg = listFlag(argv, 'floor')?.[0];
  const floor = floorArg === undefined ? undefined : Number(floorArg);
  if (floor !== undefined && !(floor >= 0 && floor <= 1)) throw new Error(`--floor takes a number from 0 to 1 (the setting's range), not "${floorArg}"`);
  requireBuilt();

  const started = new Date();
  const stamp = started.toISOString().replace(/\..*$/, '').replace(/:/g, '-') + 'Z';
  const meta: EvalMeta = {
    stamp,
    startedAt: started.toISOString(),
    quick,
    commit: commit(),
    node: process.version,
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    sets: setNames,
    providers: providers.map((p) => p.name),
    ...(floor === undefined ? {} : { floor }),
  };
  const sets: EvalSet[] = (setNames as SetName[]).map((name) => (name === 'locomo' ? locomoSet(quick ? { conversations: 2 } : {}) : codingSet()));
  progress(`Loom retrieval eval ${stamp}${quick ? ' (quick)' : ''}: sets ${setNames.join(', ')}; providers ${providers.map((p) => p.name).join(', ')}; commit ${meta.commit}`);

  const workDir = mkdtempSync(join(process.env['BENCH_DATA_DIR'] ?? tmpdir(), 'loom-eval-'));
  let figures;
  try {
    figures = await runEval(
      sets,
      providers,
      async (spec) => {
        const loom = await startEmbeddedLoom({ dataDir: join(workDir, spec.name), database: `eval_${spec.name.replace(/[^a-z0-9_]/gi, '_')}`, provider: spec.env['LOOM_EMBEDDINGS_PROVIDER']!, env: spec.env });
        return { url: loom.url, token: loom.token, stop: () => loom.close() };
      },
      progress,
      floor === undefined ? {} : { floor },
    );
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  meta.finishedAt = new Date().toISOString();
  meta.seconds = Math.round((Date.now() - started.getTime()) / 1000);
  const result: EvalResult = { meta, figures };
  const markdown = renderMarkdown(result);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const base = join(RESULTS_DIR, `eval-${stamp}${quick ? '-quick' : ''}`);
  writeFileSync(`${base}.json`, JSON.stringify(result, null, 2) + '\n');
  writeFileSync(`${base}.md`, markdown);
  // eval-latest.md is the newest full run; a quick run (a subset) never replaces it.
  if (!quick) writeFileSync(join(RESULTS_DIR, 'eval-latest.md'), markdown);
  progress(`results: ${base}.json, ${base}.md${quick ? ' (quick: eval-latest.md is left to full runs)' : ', bench/results/eval-latest.md'}`);
  process.stdout.write('\n' + markdown + '\n');
  if (figures.providers.some((p) => p.failure)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`eval failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
