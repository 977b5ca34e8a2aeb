import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Written to a temp file and preloaded (`node -r`): records every LOOM_ or OTEL_ variable the process reads. */
const RECORDER = `
const reads = new Set();
const real = process.env;
process.env = new Proxy(real, {
  get(target, key) {
    if (typeof key === 'string' && /^(LOOM|OTEL)_/.test(key)) reads.add(key);
    return Reflect.get(target, key);
  },
  has(target, key) {
    if (typeof key === 'string' && /^(LOOM|OTEL)_/.test(key)) reads.add(key);
    return Reflect.has(target, key);
  },
});
process.on('exit', () => process.stderr.write('\\nLOOM_CONFIG_READS ' + JSON.stringify([...reads].sort()) + '\\n'));
`;

/**
 * The configuration variables a built app reads, taken from the app itself rather than from a
 * list: it is started with a recorder preloaded and a log level no app accepts, so it parses its
 * configuration, reports every bad variable and exits before it connects to anything.
 */
export function configReadsOf(mainJs: string, args: string[] = []): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'loom-config-reads-'));
  try {
    const recorder = join(dir, 'record.js');
    writeFileSync(recorder, RECORDER);
    const env: Record<string, string> = { LOOM_LOG_LEVEL: 'not-a-level' };
    for (const key of ['PATH', 'NODE_PATH', 'HOME']) if (process.env[key]) env[key] = process.env[key]!;
    const run = spawnSync(process.execPath, ['-r', recorder, mainJs, ...args], { env, encoding: 'utf8', timeout: 60_000 });
    const line = run.stderr.split('\n').find((l) => l.startsWith('LOOM_CONFIG_READS '));
    if (!line || !run.stderr.includes('LOOM_LOG_LEVEL')) {
      throw new Error(`${mainJs} did not stop at its configuration (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
    }
    return JSON.parse(line.slice('LOOM_CONFIG_READS '.length)) as string[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
