import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Float32File, Float32Rows, float32Bytes } from './exact-vectors';

/** A deterministic vector with zeros, negatives and extremes, as Float32 bytes. */
function row(seed: number, dimensions: number): Buffer {
  const values = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i += 1) {
    const x = Math.sin(seed * 7.31 + i * 1.7) * 1000;
    values[i] = i % 5 === 0 ? 0 : x - Math.floor(x) - 0.5;
  }
  return Buffer.from(values.buffer);
}

/** The engine's `1 - cosineDistance` in Float64 over the stored Float32 values. */
function engineScore(bytes: Buffer, query: readonly number[]): number {
  const values = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  let dot = 0;
  let a = 0;
  let b = 0;
  for (let i = 0; i < values.length; i += 1) {
    dot += values[i]! * query[i]!;
    a += values[i]! * values[i]!;
    b += query[i]! * query[i]!;
  }
  return 1 - (1 - dot / Math.sqrt(a * b));
}

describe('Exact kept vectors in memory and in a file [ADR 0040, ADR 0043]', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'loom-exact-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('CONV-SEARCH-01 both stores score every row as the engine does, across the file\'s written blocks and its unwritten tail', () => {
    const dimensions = 48;
    const rows = Array.from({ length: 2_500 }, (_, i) => row(i, dimensions));
    const query = Array.from(new Float32Array(row(99_999, dimensions).buffer));
    const queryNorm = query.reduce((n, x) => n + x * x, 0);
    const memory = new Float32Rows();
    const file = Float32File.create(dir);
    try {
      for (const r of rows) {
        memory.append(r);
        file.append(r);
      }
      // 2,500 rows: two blocks of 1,024 written, 452 still in memory.
      expect(file.bytes).toBe(2_048 * dimensions * 4);
      for (const i of [0, 1, 1_023, 1_024, 2_047, 2_048, 2_499]) {
        expect(file.score(i, query, queryNorm)).toBe(engineScore(rows[i]!, query));
        expect(memory.score(i, query, queryNorm)).toBe(engineScore(rows[i]!, query));
      }
    } finally {
      file.release();
    }
  });

  it('[ADR 0043] the file is unlinked when it is opened: nothing is left in the directory, even while it is in use', () => {
    const file = Float32File.create(dir);
    file.append(row(1, 16));
    expect(readdirSync(dir)).toEqual([]);
    file.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('[ADR 0043] a released file refuses to score (its descriptor may name another file by then), and releasing twice is harmless', () => {
    const file = Float32File.create(dir);
    for (let i = 0; i < 1_100; i += 1) file.append(row(i, 16));
    file.release();
    file.release();
    expect(() => file.score(0, new Array<number>(16).fill(1), 16)).toThrow('used after it was released');
    expect(() => file.append(row(0, 16))).toThrow('used after it was released');
  });

  it('[ADR 0043] a row of another width is refused, and a directory that cannot be written says why', () => {
    const file = Float32File.create(dir);
    const memory = new Float32Rows();
    try {
      for (const store of [file, memory]) {
        store.append(row(1, 16));
        expect(() => store.append(row(2, 8))).toThrow('a row has 64 bytes here, got 32');
      }
    } finally {
      file.release();
    }
    expect(() => Float32File.create(join(dir, 'missing'))).toThrow(/ENOENT/);
  });

  it('float32Bytes decodes the base64 the read statement sends', () => {
    const bytes = row(3, 8);
    expect(float32Bytes(bytes.toString('base64')).equals(bytes)).toBe(true);
  });
});
