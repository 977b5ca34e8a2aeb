import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Rng } from '../util/rng';
import { ROOT } from '../util/paths';

/** Runs git and returns its output (the eval's own repositories; failures are the eval's). */
export function git(cwd: string, args: readonly string[], input?: string): string {
  return execFileSync('git', ['-c', 'user.name=Loom Eval', '-c', 'user.email=eval@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 512 * 1024 * 1024,
    ...(input === undefined ? {} : { input }),
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** The real repository of the shared data (`repos/clickhouse-js.bundle`), or undefined when absent. */
export function sharedBundle(): string | undefined {
  const dir = process.env['LOOM_SHARED_DATA'] ?? resolve(ROOT, '..', 'shared', 'data');
  const bundle = join(dir, 'repos', 'clickhouse-js.bundle');
  return existsSync(bundle) ? bundle : undefined;
}

export function cloneBundle(bundle: string, into: string): string {
  execFileSync('git', ['clone', '-q', bundle, into]);
  return into;
}

/**
 * A synthetic history of `commits` mainline commits over TypeScript files with classes and
 * methods (written with git fast-import, in seconds): the ingest-speed figure at 10k commits.
 */
export function syntheticRepository(dir: string, commits: number, seed = 7): string {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main']);
  const rng = new Rng(seed);
  const files = Array.from({ length: 300 }, (_, i) => ({ path: `src/module${Math.floor(i / 20)}/file${i}.ts`, methods: Array.from({ length: 8 }, (_, m) => `  method${m}(x: number) {\n    return x + ${m};\n  }\n`) }));
  const render = (f: (typeof files)[number], i: number): string => `export class Service${i} {\n${f.methods.join('\n')}}\n`;
  const parts: string[] = [];
  let mark = 0;
  for (let c = 1; c <= commits; c++) {
    const touched = new Set<number>();
    const n = 1 + rng.int(3);
    while (touched.size < n) touched.add(rng.int(files.length));
    const when = 1_600_000_000 + c * 600;
    const message = `Change ${[...touched].map((i) => `Service${i}`).join(', ')} (#${c})`;
    parts.push(`commit refs/heads/main\nmark :${++mark}\ncommitter Synth <synth@example.com> ${when} +0000\ndata ${Buffer.byteLength(message)}\n${message}\n`);
    if (c > 1) parts.push(`from :${mark - 1}\n`);
    for (const i of touched) {
      const file = files[i] as (typeof files)[number];
      const m = rng.int(file.methods.length);
      file.methods[m] = `  method${m}(x: number) {\n    return x * ${c} + ${m};\n  }\n`;
      const body = render(file, i);
      parts.push(`M 100644 inline ${file.path}\ndata ${Buffer.byteLength(body)}\n${body}\n`);
    }
  }
  const stream = parts.join('');
  writeFileSync(join(dir, '.fast-import'), stream);
  execFileSync('sh', ['-c', 'git fast-import --quiet < .fast-import && rm .fast-import && git checkout -q -f main'], { cwd: dir });
  return dir;
}

export interface ReintroducedRegression {
  /** The fix that was reverted. */
  fix: { sha: string; subject: string; files: string[] };
  /** The commit of the doctored history that reverts it (message made neutral). */
  culprit: string;
  /** A range that holds the culprit: good (excluded) to bad (included), about `window` commits. */
  good: string;
  bad: string;
}

/** Files a fix's revert takes back: code, not the changelog, docs or lockfiles it also touched. */
const CODE_ONLY = ['.', ':!*.md', ':!*.json', ':!*.yml', ':!*.yaml', ':!*.lock'];

/**
 * The bisect set: the mainline is replayed commit by commit on a new branch, and a few commits
 * after each of `wanted` fixes the fix's code changes are reverted, with a neutral message
 * ("Update <dir>") as a regression would have: it does not say what it breaks. A later replayed
 * commit that conflicts with a revert keeps its own version of the conflicting files (so the
 * regression ends there); each regression's range starts at the fix (good: the bug is absent)
 * and stops before that.
 */
export function reintroduceRegressions(repo: string, window: number, wanted: number, seed = 11): ReintroducedRegression[] {
  const mainline = git(repo, ['rev-list', '--first-parent', '--reverse', 'HEAD']).trim().split('\n');
  const subjects = new Map(git(repo, ['log', '--first-parent', '--format=%H%x1f%s']).trim().split('\n').map((l) => l.split('\x1f') as [string, string]));
  const rng = new Rng(seed);
  const fixes = mainline
    .map((sha, position) => ({ sha, position, subject: subjects.get(sha) ?? '' }))
    .filter((c) => c.position > window && c.position < mainline.length - window && /^fix\b|^fix[(:]/i.test(c.subject) && /\(#\d+\)$/.test(c.subject));
  // Spread the picks over the history; more than wanted, since some will not revert cleanly.
  const picks = fixes.filter((_, i) => i % Math.max(1, Math.floor(fixes.length / (wanted * 2))) === 0);
  const plan = new Map<number, typeof picks>();
  for (const fix of picks) {
    const at = fix.position + 2 + rng.int(8);
    plan.set(at, [...(plan.get(at) ?? []), fix]);
  }
  git(repo, ['checkout', '-q', '-B', 'regressions', mainline[0] as string]);
  const replayed: string[] = [mainline[0] as string];
  // Where each mainline commit landed in the replay: a regression's range starts at its fix (the
  // bug is absent there), as a bisect's good commit would.
  const replayedAt = new Map<string, number>([[mainline[0] as string, 0]]);
  const conflicts: Set<string>[] = [new Set()];
  const made: { fix: (typeof picks)[number]; files: string[]; index: number; culprit: string }[] = [];
  for (let i = 1; i < mainline.length; i++) {
    const sha = mainline[i] as string;
    const parents = git(repo, ['rev-list', '--parents', '-n', '1', sha]).trim().split(' ').length - 1;
    let conflicted = new Set<string>();
    try {
      git(repo, ['cherry-pick', '--allow-empty', '--keep-redundant-commits', ...(parents > 1 ? ['-m', '1'] : []), sha]);
    } catch {
      conflicted = new Set(git(repo, ['diff', '--name-only', '--diff-filter=U']).trim().split('\n').filter(Boolean));
      git(repo, ['checkout', sha, '--', '.']);
      git(repo, ['add', '-A']);
      git(repo, ['commit', '-q', '--allow-empty', '-C', sha]);
    }
    replayed.push(git(repo, ['rev-parse', 'HEAD']).trim());
    replayedAt.set(sha, replayed.length - 1);
    conflicts.push(conflicted);
    for (const fix of plan.get(i) ?? []) {
      if (made.length >= wanted) break;
      const diff = git(repo, ['diff', `${fix.sha}^1`, fix.sha, '--', ...CODE_ONLY]);
      const files = git(repo, ['diff', '--name-only', `${fix.sha}^1`, fix.sha, '--', ...CODE_ONLY]).trim().split('\n').filter(Boolean);
      if (diff.trim() === '' || files.length > 8) continue;
      try {
        git(repo, ['apply', '-R', '--index'], diff);
      } catch {
        attempt(() => git(repo, ['reset', '-q', '--hard']));
        continue;
      }
      const dir = files[0]?.split('/').slice(0, -1).join('/') || 'project';
      git(repo, ['commit', '-q', '-m', `Update ${dir}`]);
      const culprit = git(repo, ['rev-parse', 'HEAD']).trim();
      replayed.push(culprit);
      conflicts.push(new Set());
      made.push({ fix, files, index: replayed.length - 1, culprit });
    }
  }
  return made.map((m) => {
    let end = Math.min(replayed.length - 1, m.index + Math.floor(window / 2));
    for (let j = m.index + 1; j <= end; j++) {
      if (m.files.some((f) => (conflicts[j] as Set<string>).has(f))) {
        end = j - 1;
        break;
      }
    }
    const start = Math.max(replayedAt.get(m.fix.sha) ?? 0, end - window);
    return { fix: { sha: m.fix.sha, subject: m.fix.subject, files: m.files }, culprit: m.culprit, good: replayed[start] as string, bad: replayed[end] as string };
  });
}

function attempt(work: () => unknown): void {
  try {
    work();
  } catch {
    // Nothing in progress to undo.
  }
}
