import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { requireBuilt, RESULTS_DIR, ROOT, snapshotDist } from '../util/paths';
import { discoverSections } from './discover';
import { renderDocument, type MachineInfo, type SectionOutcome } from './document';
import { takeFigures } from './figures';

const started = Date.now();

/** Progress goes to stderr, so stdout stays free for whoever pipes the run. */
function log(line: string): void {
  const s = Math.floor((Date.now() - started) / 1000);
  process.stderr.write(`[reliability ${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}] ${line}\n`);
}

function parseArgs(argv: string[]): { long: boolean; only: string[] | undefined; help: boolean } {
  const only: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i]!;
    if (a === '--only') only.push(...(argv[++i] ?? '').split(','));
    else if (a.startsWith('--only=')) only.push(...a.slice('--only='.length).split(','));
    else if (a !== '--quick' && a !== '--help' && a !== '-h') throw new Error(`unknown argument "${a}" (usage: npm run reliability -- [--quick] [--only <id,...>])`);
  }
  const ids = only.map((s) => s.trim()).filter(Boolean);
  return { long: !argv.includes('--quick'), only: ids.length > 0 ? ids : undefined, help: argv.includes('--help') || argv.includes('-h') };
}

function commit(): string {
  try {
    const head = execSync('git rev-parse --short HEAD', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    const dirty = execSync('git status --porcelain --untracked-files=no', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() !== '';
    return `${head}${dirty ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const all = discoverSections(join(__dirname, 'sections'));
  if (args.help) {
    process.stdout.write(`usage: npm run reliability -- [--quick] [--only <id,...>]\nsections: ${all.map((s) => `${s.id} (${s.order})`).join(', ')}\n`);
    return;
  }
  const unknown = (args.only ?? []).filter((id) => !all.some((s) => s.id === id));
  if (unknown.length > 0) throw new Error(`--only names no section ${unknown.join(', ')}; the sections are ${all.map((s) => s.id).join(', ')}`);
  const sections = args.only ? all.filter((s) => args.only!.includes(s.id)) : all;
  requireBuilt();

  const date = new Date();
  const stamp = date.toISOString().replace(/\..*$/, '').replace(/:/g, '-') + 'Z';
  const machine: MachineInfo = {
    date: date.toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: commit(),
    cores: `${cpus().length} cores (${cpus()[0]?.model?.trim() ?? 'unknown'})`,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
  log(`${args.long ? 'full' : 'quick'} run of ${sections.length} section(s): ${sections.map((s) => s.id).join(', ')}; commit ${machine.commit}`);

  // Loom's processes run from a copy of dist/, so a rebuild during a long run cannot change the code under test.
  const workDir = mkdtempSync(join(tmpdir(), 'loom-reliability-'));
  const outcomes: SectionOutcome[] = [];
  const figures: Record<string, unknown> = {};
  try {
    await snapshotDist(workDir);
    for (const section of sections) {
      const t = Date.now();
      log(`=== ${section.id}: ${section.title} ===`);
      const outcome: SectionOutcome = { section: { id: section.id, title: section.title, proves: section.proves, order: section.order }, seconds: 0 };
      try {
        outcome.body = await section.run({ long: args.long, log: (line) => log(`[${section.id}] ${line}`) });
      } catch (error) {
        // Paths relative to the repository: the document is committed.
        outcome.error = (error instanceof Error ? (error.stack ?? error.message) : String(error)).replaceAll(`${ROOT}/`, '');
        log(`[${section.id}] FAILED: ${outcome.error.slice(0, 2000)}`);
      }
      outcome.seconds = Math.round((Date.now() - t) / 1000);
      const recorded = takeFigures(section.id);
      if (recorded !== undefined) figures[section.id] = recorded;
      log(`=== ${section.id} ${outcome.error === undefined ? 'done' : 'FAILED'} in ${outcome.seconds} s ===`);
      outcomes.push(outcome);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }

  const markdown = renderDocument(machine, args, outcomes);
  const docPath = join(ROOT, 'docs', 'reliability.md');
  writeFileSync(docPath, markdown);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const jsonPath = join(RESULTS_DIR, `reliability-${stamp}${args.long ? '' : '-quick'}.json`);
  const results = {
    machine,
    long: args.long,
    only: args.only ?? null,
    seconds: Math.round((Date.now() - started) / 1000),
    sections: outcomes.map((o) => ({ ...o.section, seconds: o.seconds, status: o.error === undefined ? 'ran' : 'failed', ...(o.error !== undefined ? { error: o.error } : {}), figures: figures[o.section.id] ?? null, markdown: o.body ?? null })),
  };
  writeFileSync(jsonPath, JSON.stringify(results, null, 2) + '\n');
  log(`wrote docs/reliability.md and ${jsonPath.slice(ROOT.length + 1)}`);
  const failed = outcomes.filter((o) => o.error !== undefined);
  if (failed.length > 0) {
    log(`${failed.length} section(s) FAILED: ${failed.map((o) => o.section.id).join(', ')}`);
    process.exitCode = 1;
  }
}

main().then(
  // Keep-alive sockets to Loom processes that are gone would hold the run open for a while.
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`reliability run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
