import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { startTestLoom } from '@loom/testing/fuzz';
import { progress } from '../util/log';
import { RESULTS_DIR, ROOT } from '../util/paths';
import { evaluateTracker, loadTrackerSet, renderTrackerMarkdown, renderTrackerSummary, setRepository, TrackerSetFiles, type TrackerFigures } from './tracker-eval';

function commit(): string {
  try {
    return execSync('git rev-parse --short HEAD', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'unknown';
  }
}

/**
 * `npm run eval -- --tracker`: the tracker duplicate check on the public issue sets (ClickHouse,
 * then nineteen other public repositories: TrackerSetFiles), on an embedded Loom in this process (each set's table is created in its engine). Writes
 * bench/results/eval-tracker-<time>.{json,md}. Takes seconds.
 *
 * `extraFiles` (from `--tracker-sets a.json,b.json`): sets kept outside the repository, such as
 * the ones tracker-set-gitbugs.ts converts from a published third-party dataset; run after the
 * committed ones, each in its own namespace.
 */
export async function runTrackerEval(extraFiles: readonly string[] = []): Promise<void> {
  const started = new Date();
  const stamp = started.toISOString().replace(/\..*$/, '').replace(/:/g, '-') + 'Z';
  const sets = [
    ...TrackerSetFiles.map((file) => ({ file: `bench/src/eval/${file}`, set: loadTrackerSet(join(__dirname, file)) })),
    ...extraFiles.map((file) => ({ file, set: loadTrackerSet(isAbsolute(file) ? file : resolve(file)) })),
  ];
  for (const { file, set } of sets) progress(`tracker eval ${stamp}: ${file}: ${set.pairs.length} recorded duplicates, ${set.unlinked.length} issues with no recorded link, ${set.issues.length} issues`);
  const dataDir = mkdtempSync(join(process.env['BENCH_DATA_DIR'] ?? tmpdir(), 'loom-eval-tracker-'));
  const loom = await startTestLoom({ withEmbedder: false, env: { LOOM_DATA_DIR: dataDir, LOOM_TRACKER_ORG: 'ClickHouse', LOOM_LOG_LEVEL: 'warn' } });
  try {
    const before = loadavg();
    // One namespace and one tracker source per repository: a check's pool is that repository's issues.
    const results: Array<{ file: string; repository: string; built?: string; figures: TrackerFigures }> = [];
    // The ranker alone too (no duplicate links), so the links' share of the figure shows.
    const rankerAlone: Array<{ file: string; repository: string; figures: TrackerFigures }> = [];
    for (const [index, { file, set }] of sets.entries()) {
      // Each set says how it was built in its own `about`.
      results.push({ file, repository: setRepository(set), built: set.about, figures: await evaluateTracker(loom, set, `eval-tracker-${index}`) });
      rankerAlone.push({ file, repository: setRepository(set), figures: await evaluateTracker(loom, set, `eval-tracker-plain-${index}`, { links: false }) });
    }
    const after = loadavg();
    // Figures of a shared machine: the load says how much the timing can be trusted.
    const load = `${before.map((x) => x.toFixed(1)).join('/')} before, ${after.map((x) => x.toFixed(1)).join('/')} after`;
    const markdown = [
      renderTrackerSummary(results, "Tracker duplicate check: summary (with the tracker's duplicate links, as shipped)"),
      renderTrackerSummary(rankerAlone, 'Tracker duplicate check: the ranker alone (no duplicate links)'),
      ...results.map((r) => renderTrackerMarkdown(r.figures, { stamp, commit: commit(), set: r.file, load, repository: r.repository, ...(r.built ? { built: r.built } : {}) })),
    ].join('\n');
    mkdirSync(RESULTS_DIR, { recursive: true });
    const base = join(RESULTS_DIR, `eval-tracker-${stamp}`);
    writeFileSync(`${base}.json`, JSON.stringify({ stamp, commit: commit(), load, sets: results, ranker_alone: rankerAlone }, null, 2) + '\n');
    writeFileSync(`${base}.md`, markdown);
    progress(`results: ${base}.json, ${base}.md`);
    process.stdout.write('\n' + markdown + '\n');
  } finally {
    await loom.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
