import { execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedLoom } from '../topology/loom';
import type { LoomClient } from '../util/http';
import { progress } from '../util/log';
import { RESULTS_DIR, ROOT, requireBuilt, snapshotDist } from '../util/paths';
import { Rng } from '../util/rng';
import { summarize, type LatencySummary } from '../util/stats';
import { cloneBundle, git, reintroduceRegressions, sharedBundle, syntheticRepository } from './repos';

/**
 * Issue 13's measurements of the code-history plane on a real repository (the shared
 * clickhouse-js history): ingest time, path/symbol/line query latency, line history against
 * `git log -L`, the pre-PR duplicate check on repeated dependency bumps, and bisect on fixes
 * reverted back into the history. Plus the ingest of a synthetic 10k-commit history.
 *   npm run eval:history [-- --quick] [-- --no-10k]
 */

interface Figures {
  meta: { stamp: string; git: string; node: string; cpus: string; memoryGb: number; loadBefore: number[]; loadAfter?: number[]; seconds?: number; quick: boolean };
  ingest?: { repository: string; commits: number; seconds: number; commitsPerSec: number };
  ingest10k?: { commits: number; seconds: number; commitsPerSec: number; target: string };
  latency?: Record<'path' | 'symbol' | 'line', LatencySummary>;
  lineAgreement?: { n: number; agree: number; rate: number; note: string; disagreements: { file: string; line: number; loom: string[]; git: string[] }[] };
  duplicates?: { n: number; hitAt1: number; hitAt5: number; mrr: number; examples: { query: string; top: string; expected: string }[] };
  bisect?: Record<'description' | 'withPaths', { n: number; hitAt1: number; hitAt5: number; mrr: number; candidates: number }>;
  bisectExamples?: { description: string; rank: number; top: string; culprit: { score: number; reasons: string[] } | null }[];
  notes: string[];
}

const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const NS = 'history-eval';

async function main(): Promise<void> {
  requireBuilt();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace(/-\d{3}Z$/, 'Z');
  const work = mkdtempSync(join(tmpdir(), 'loom-history-eval-'));
  await snapshotDist(work);
  const figures: Figures = {
    meta: { stamp, git: execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim(), node: process.version, cpus: `${cpus().length} x ${cpus()[0]?.model ?? '?'}`, memoryGb: Math.round(totalmem() / 2 ** 30), loadBefore: loadavg(), quick: QUICK },
    notes: [],
  };
  const started = Date.now();
  const bundle = sharedBundle();
  const loom = await startEmbeddedLoom({ dataDir: join(work, 'data'), database: 'history_eval', provider: 'hashed', env: { LOOM_CODE_INGEST_ENABLED: 'true' } });
  const client = loom.client(8);
  try {
    if (!bundle) figures.notes.push('the shared clickhouse-js bundle was not found (LOOM_SHARED_DATA or ../shared/data): the real-repository figures were not measured');
    else await realRepository(client, cloneBundle(bundle, join(work, 'clickhouse-js')), work, figures, () => loom.client(8));
    if (!args.has('--no-10k')) await synthetic(client, join(work, 'synthetic'), QUICK ? 1_000 : 10_000, figures);
  } finally {
    await loom.close();
  }
  figures.meta.seconds = Math.round((Date.now() - started) / 1000);
  figures.meta.loadAfter = loadavg();
  mkdirSync(RESULTS_DIR, { recursive: true });
  const name = `history-${stamp}${QUICK ? '-quick' : ''}`;
  writeFileSync(join(RESULTS_DIR, `${name}.json`), JSON.stringify(figures, null, 2) + '\n');
  const md = render(figures);
  writeFileSync(join(RESULTS_DIR, `${name}.md`), md);
  if (!QUICK) writeFileSync(join(RESULTS_DIR, 'history-latest.md'), md);
  progress(`history eval written to bench/results/${name}.md`);
  rmSync(work, { recursive: true, force: true });
}

async function ok<T = any>(client: LoomClient, op: string, body: Record<string, unknown>, timeoutMs = 3_600_000): Promise<T> {
  const answer = await client.call<T>(op, { namespace: NS, ...body }, timeoutMs);
  if (answer.status !== 200) throw new Error(`${op} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer.body;
}

async function timed(client: LoomClient, op: string, body: Record<string, unknown>): Promise<{ ms: number; status: number; body: any }> {
  const answer = await client.call(op, { namespace: NS, ...body });
  return { ms: answer.ms, status: answer.status, body: answer.body };
}

async function realRepository(client: LoomClient, repo: string, work: string, figures: Figures, freshClient: () => LoomClient): Promise<void> {
  progress('ingesting clickhouse-js');
  const t0 = Date.now();
  const added = await ok(client, 'code.add', { path: repo, name: 'clickhouse-js', wait: true });
  const seconds = (Date.now() - t0) / 1000;
  figures.ingest = { repository: 'clickhouse-js', commits: added.repository.commits_indexed, seconds: round(seconds), commitsPerSec: round(added.repository.commits_indexed / seconds) };
  progress(`ingested ${added.repository.commits_indexed} mainline commits in ${seconds.toFixed(1)} s`);

  const rng = new Rng(3);
  const changedFiles = git(repo, ['log', '--first-parent', '--format=', '--name-only', '-m', '--diff-filter=AMR']).trim().split('\n').filter(Boolean);
  const headFiles = new Set(git(repo, ['ls-files']).trim().split('\n'));
  const liveFiles = [...new Set(changedFiles)].filter((f) => headFiles.has(f) && /\.(ts|js|md|json|yml)$/.test(f));
  const codeFiles = liveFiles.filter((f) => /\.ts$/.test(f));
  const samples = QUICK ? 40 : 200;
  const pick = <T>(list: readonly T[]): T => list[rng.int(list.length)] as T;

  // Symbols that exist in the index: ask for a sample of them by leaf.
  const symbolPool = new Set<string>();
  for (const file of codeFiles.slice(0, 80)) for (const m of git(repo, ['show', `HEAD:${file}`]).matchAll(/^\s*(?:export\s+)?(?:async\s+)?(?:function|class)\s+([A-Za-z_]\w*)/gm)) symbolPool.add(m[1] as string);
  const symbols = [...symbolPool];
  const lat: Record<'path' | 'symbol' | 'line', number[]> = { path: [], symbol: [], line: [] };
  const lineCases: { file: string; line: number }[] = [];
  for (let i = 0; i < samples; i++) {
    lat.path.push((await timed(client, 'history.path', { repository: 'clickhouse-js', path: pick(liveFiles) })).ms);
    const s = await timed(client, 'history.symbol', { repository: 'clickhouse-js', symbol: pick(symbols) });
    lat.symbol.push(s.ms);
    const file = pick(codeFiles);
    const lines = git(repo, ['show', `HEAD:${file}`]).split('\n').length - 1;
    const line = 1 + rng.int(Math.max(1, lines));
    lineCases.push({ file, line });
    lat.line.push((await timed(client, 'history.line', { repository: 'clickhouse-js', path: file, line })).ms);
  }
  figures.latency = { path: summarize(lat.path), symbol: summarize(lat.symbol), line: summarize(lat.line) };

  // Line history against git's own: the commits `git log -L` names that changed the line's text.
  let agree = 0;
  const disagreements: { file: string; line: number; loom: string[]; git: string[] }[] = [];
  const checked = lineCases.slice(0, QUICK ? 15 : 60);
  for (const { file, line } of checked) {
    const loom = (await ok(client, 'history.line', { repository: 'clickhouse-js', path: file, line, limit: 500 })).changes.map((c: { sha: string }) => c.sha);
    const gitL = git(repo, ['log', '--first-parent', '-m', '--format=%H', '-s', '-L', `${line},${line}:${file}`]).split('\n').filter((l) => /^[0-9a-f]{40}$/.test(l));
    if (JSON.stringify(loom) === JSON.stringify(gitL)) agree += 1;
    else if (disagreements.length < 10) disagreements.push({ file, line, loom: loom.map((s: string) => s.slice(0, 10)), git: gitL.map((s) => s.slice(0, 10)) });
  }
  figures.lineAgreement = { n: checked.length, agree, rate: round(agree / checked.length), note: 'same commits in the same order as `git log --first-parent -L n,n:file` (git follows the text with its own diff; renames show there as changes)', disagreements };

  await duplicates(client, repo, figures);
  // The replay blocks for a while: the old client's idle keep-alive sockets are closed by then.
  await bisect(repo, work, figures, freshClient);
}

const BUMP = /bump (\S+) from (\S+) to (\S+)/i;

/** Dependency bumps that repeat an earlier bump of the same package: is that earlier one ranked first? */
async function duplicates(client: LoomClient, repo: string, figures: Figures): Promise<void> {
  const mainline = git(repo, ['log', '--first-parent', '--reverse', '--format=%H%x1f%s']).trim().split('\n').map((l) => l.split('\x1f') as [string, string]);
  const seen = new Map<string, string[]>();
  const cases: { sha: string; subject: string; pkg: string }[] = [];
  for (const [sha, subject] of mainline) {
    const m = BUMP.exec(subject);
    if (!m) continue;
    const pkg = (m[1] as string).toLowerCase();
    if ((seen.get(pkg) ?? []).length > 0) cases.push({ sha, subject, pkg });
    seen.set(pkg, [...(seen.get(pkg) ?? []), sha]);
  }
  const chosen = QUICK ? cases.slice(-20) : cases;
  let hit1 = 0;
  let hit5 = 0;
  let rr = 0;
  const examples: { query: string; top: string; expected: string }[] = [];
  for (const c of chosen) {
    const diff = git(repo, ['show', '--first-parent', '-m', '--format=', c.sha]).slice(0, 1_900_000);
    const answer = await ok(client, 'history.duplicate_check', { repository: 'clickhouse-js', title: c.subject, diff, before: c.sha, limit: 20 });
    const isSame = (subject: string): boolean => BUMP.exec(subject)?.[1]?.toLowerCase() === c.pkg;
    const rank = answer.candidates.findIndex((x: { subject: string }) => isSame(x.subject));
    if (rank === 0) hit1 += 1;
    if (rank >= 0 && rank < 5) hit5 += 1;
    if (rank >= 0) rr += 1 / (rank + 1);
    if (examples.length < 5) examples.push({ query: c.subject, top: answer.candidates[0]?.subject ?? '(none)', expected: `an earlier bump of ${c.pkg}` });
  }
  const n = chosen.length || 1;
  figures.duplicates = { n: chosen.length, hitAt1: round(hit1 / n), hitAt5: round(hit5 / n), mrr: round(rr / n), examples };
}

/** Fixes reverted back into a replay of the history (neutral message): is the revert ranked first among about 60 commits? */
async function bisect(repo: string, work: string, figures: Figures, freshClient: () => LoomClient): Promise<void> {
  const doctored = join(work, 'regressions');
  git(work, ['clone', '-q', repo, doctored]);
  progress('replaying the history with fixes reverted a few commits after they landed');
  const regressions = reintroduceRegressions(doctored, 60, QUICK ? 6 : 20);
  progress(`${regressions.length} regressions reintroduced; ingesting the replayed history`);
  const client = freshClient();
  await ok(client, 'code.add', { path: doctored, name: 'regressions', wait: true });
  const results = { description: [] as number[], withPaths: [] as number[] };
  const sizes: number[] = [];
  for (const r of regressions) {
    const description = r.fix.subject.replace(/^fix(\([^)]*\))?:?\s*/i, '').replace(/\s*\(#\d+\)$/, '');
    const paths = [...new Set(r.fix.files.map((f) => f.split('/').slice(0, -1).join('/')).filter(Boolean))].slice(0, 2);
    for (const [key, extra] of [['description', {}], ['withPaths', { paths }]] as const) {
      const answer = await ok(client, 'history.bisect', { repository: 'regressions', description, good: r.good, bad: r.bad, limit: 200, ...extra });
      if (key === 'description') {
        sizes.push(answer.range.commits);
        const hit = answer.candidates.find((c: { sha: string }) => c.sha === r.culprit);
        (figures.bisectExamples ??= []).push({ description, rank: answer.candidates.indexOf(hit), top: `${answer.candidates[0]?.subject} (${answer.candidates[0]?.score}: ${answer.candidates[0]?.reasons.join('; ')})`, culprit: hit ? { score: hit.score, reasons: hit.reasons } : null });
      }
      results[key].push(answer.candidates.findIndex((c: { sha: string }) => c.sha === r.culprit));
    }
  }
  const score = (ranks: number[]) => {
    const n = ranks.length || 1;
    return { n: ranks.length, hitAt1: round(ranks.filter((r) => r === 0).length / n), hitAt5: round(ranks.filter((r) => r >= 0 && r < 5).length / n), mrr: round(ranks.reduce((s, r) => s + (r >= 0 ? 1 / (r + 1) : 0), 0) / n), candidates: Math.round(sizes.reduce((a, b) => a + b, 0) / (sizes.length || 1)) };
  };
  figures.bisect = { description: score(results.description), withPaths: score(results.withPaths) };
}

async function synthetic(client: LoomClient, dir: string, commits: number, figures: Figures): Promise<void> {
  progress(`writing a synthetic ${commits}-commit history`);
  syntheticRepository(dir, commits);
  const t0 = Date.now();
  const added = await ok(client, 'code.add', { path: dir, name: 'synthetic', wait: true });
  const seconds = (Date.now() - t0) / 1000;
  figures.ingest10k = { commits: added.repository.commits_indexed, seconds: round(seconds), commitsPerSec: round(added.repository.commits_indexed / seconds), target: '10k commits in minutes, not hours' };
  progress(`ingested the synthetic history (${added.repository.commits_indexed} commits) in ${seconds.toFixed(1)} s`);
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function render(f: Figures): string {
  const l = f.latency;
  const lines = [
    `# Code history on a real repository (issue 13)`,
    '',
    `Run ${f.meta.stamp} of ${f.meta.git}${f.meta.quick ? ' (quick)' : ''}; ${f.meta.cpus}, ${f.meta.memoryGb} GiB, Node ${f.meta.node}; load average ${f.meta.loadBefore.map((x) => x.toFixed(1)).join('/')} before, ${f.meta.loadAfter?.map((x) => x.toFixed(1)).join('/') ?? '?'} after; ${f.meta.seconds ?? '?'} s in all.`,
    '',
    '| figure | value | target |',
    '|---|---|---|',
  ];
  if (f.ingest) lines.push(`| ingest of ${f.ingest.repository} (${f.ingest.commits} mainline commits) | ${f.ingest.seconds} s (${f.ingest.commitsPerSec} commits/s) | minutes, not hours |`);
  if (f.ingest10k) lines.push(`| ingest of a synthetic ${f.ingest10k.commits}-commit history | ${f.ingest10k.seconds} s (${f.ingest10k.commitsPerSec} commits/s) | ${f.ingest10k.target} |`);
  if (l) for (const k of ['path', 'symbol', 'line'] as const) lines.push(`| history.${k} latency (n=${l[k].count}) | p50 ${l[k].p50} ms, p95 ${l[k].p95} ms | reported |`);
  if (f.lineAgreement) lines.push(`| line history agrees with git log -L | ${f.lineAgreement.agree}/${f.lineAgreement.n} (${f.lineAgreement.rate}) | reported |`);
  if (f.duplicates) lines.push(`| pre-PR duplicate check, repeated dependency bumps (n=${f.duplicates.n}) | earlier bump ranked first ${f.duplicates.hitAt1}, in top 5 ${f.duplicates.hitAt5}, MRR ${f.duplicates.mrr} | reported |`);
  if (f.bisect) {
    lines.push(`| bisect, reverted fix from its description alone (n=${f.bisect.description.n}, ${f.bisect.description.candidates} commits on average from the fix, good, to bad) | first ${f.bisect.description.hitAt1}, top 5 ${f.bisect.description.hitAt5}, MRR ${f.bisect.description.mrr} | reported |`);
    lines.push(`| bisect, with the fix's directories as suspected paths (n=${f.bisect.withPaths.n}) | first ${f.bisect.withPaths.hitAt1}, top 5 ${f.bisect.withPaths.hitAt5}, MRR ${f.bisect.withPaths.mrr} | reported |`);
  }
  if (f.lineAgreement) lines.push('', `Line agreement: ${f.lineAgreement.note}.`);
  if (f.duplicates?.examples.length) lines.push('', 'Duplicate-check examples:', ...f.duplicates.examples.map((e) => `- "${e.query}" -> top: "${e.top}" (expected ${e.expected})`));
  if (f.notes.length) lines.push('', ...f.notes.map((n) => `- ${n}`));
  return lines.join('\n') + '\n';
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
