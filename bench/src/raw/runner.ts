import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { progress } from '../util/log';
import { launch } from '@loom/testing/processes';
import type { RawJob } from './child';
import { runtimeDistDir, runtimeEnv } from '../util/paths';

/** Runs raw-engine tasks in a child process (its own chDB directory) and returns their results. */
export async function runRawJob<T extends unknown[]>(label: string, job: RawJob): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'loom-bench-job-'));
  const jobPath = join(dir, 'job.json');
  const resultPath = join(dir, 'result.json');
  writeFileSync(jobPath, JSON.stringify(job));
  try {
    const child = launch(`raw:${label}`, process.execPath, [join(runtimeDistDir(), 'bench', 'src', 'raw', 'child.js'), jobPath, resultPath], runtimeEnv(), { onLine: (line) => progress(`  [${label}] ${line}`) });
    const code = await child.exited;
    if (code !== 0) throw new Error(`raw-engine child "${label}" failed (exit ${code}):\n${child.output()}`);
    return JSON.parse(readFileSync(resultPath, 'utf8')) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
