import { readFileSync, writeFileSync } from 'node:fs';
import { openEngine, type EngineTarget } from './engine';
import { runTask, type RawTask } from './tasks';

/**
 * Entry of the raw-engine child process: chDB binds one data directory per process, so every
 * task that opens a chDB directory (the baseline's own, or Loom's after Loom stopped) runs here.
 * argv: <job.json> <result.json>. Progress goes to stdout, one line each.
 */
export interface RawJob {
  target: EngineTarget;
  tasks: RawTask[];
}

async function main(): Promise<void> {
  const [jobPath, resultPath] = process.argv.slice(2);
  if (!jobPath || !resultPath) throw new Error('usage: child.js <job.json> <result.json>');
  const job = JSON.parse(readFileSync(jobPath, 'utf8')) as RawJob;
  const client = openEngine(job.target);
  const log = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const results: unknown[] = [];
  try {
    for (const task of job.tasks) results.push(await runTask(client, task, log));
  } finally {
    await client.close();
  }
  writeFileSync(resultPath, JSON.stringify(results));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`raw child failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
