import { HashedEmbeddingProvider } from '@loom/providers';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { TurnGenerator } from '../workload/text';
import { elapsedMs, round } from './stats';

/**
 * How fast this machine is right now. A shared VM's speed drifts (throughput of the same run
 * varied ~2x over an hour while developing this bench), so each part records a CPU figure and a
 * file-system figure next to its results.
 */
export interface Calibration {
  at: string;
  /** Hashed embedding of 300 generated turns in JS (CPU bound), ms. */
  cpuMs: number;
  /** Create a directory with 8 small files, fsync one, rename the directory, 20 times; ms per round (about what a tiny MergeTree part costs the file system). */
  fsPartLikeMs: number;
}

const texts = (() => {
  const gen = new TurnGenerator(31337);
  return Array.from({ length: 300 }, (_, i) => gen.turn(i % TurnGenerator.topicCount).content);
})();

export async function calibrate(dir: string): Promise<Calibration> {
  const provider = new HashedEmbeddingProvider();
  await provider.embed(texts.slice(0, 20));
  const t = process.hrtime.bigint();
  await provider.embed(texts);
  const cpuMs = elapsedMs(t);
  mkdirSync(dir, { recursive: true });
  const rounds = 20;
  const f = process.hrtime.bigint();
  for (let r = 0; r < rounds; r += 1) {
    const tmp = join(dir, `tmp_${r}`);
    mkdirSync(tmp);
    for (let i = 0; i < 8; i += 1) {
      const fd = openSync(join(tmp, `c${i}.bin`), 'w');
      writeSync(fd, Buffer.alloc(512, i));
      if (i === 0) fsyncSync(fd);
      closeSync(fd);
    }
    renameSync(tmp, join(dir, `part_${r}`));
  }
  const fsPartLikeMs = elapsedMs(f) / rounds;
  rmSync(dir, { recursive: true, force: true });
  return { at: new Date().toISOString(), cpuMs: round(cpuMs, 1), fsPartLikeMs: round(fsPartLikeMs, 2) };
}
