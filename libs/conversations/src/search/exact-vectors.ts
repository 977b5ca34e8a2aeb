import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

/**
 * The Float32 vectors of an exact kept copy (ADR 0040, ADR 0043), appended in row order and
 * read back one row at a time to re-score a search's candidates. Scores are the engine's
 * `1 - cosineDistance(embedding, q)` summed in Float64, so a copy answers with the engine's
 * scores to the last digit.
 */
export interface ExactVectors {
  /** Appends one row: its Float32 values as little-endian bytes (4 x dimensions). */
  append(bytes: Buffer): void;
  /** The exact score of row `row` against `query` (whose squared norm is `queryNorm`). */
  score(row: number, query: readonly number[], queryNorm: number): number;
  /** Frees what the rows hold (a file's descriptor and its disk blocks). */
  release(): void;
}

/**
 * The SQL of a row's Float32 vector as the base64 of its bytes, which `float32Bytes` decodes.
 * `hex` of a Float32 is its little-endian memory, as this process reads it; `unhex` makes those
 * bytes, and base64 is two thirds of hex to send and parse (a page of 5,000 rows at 384
 * dimensions: about 320 ms against 540 ms in chDB). Not `reinterpret(embedding, 'String')`:
 * ClickHouse servers before mid-2026 refuse to reinterpret an Array as a String; and not
 * `reinterpretAsString` per value, which drops a value's trailing zero bytes.
 */
export const FLOAT32_BYTES_SQL = 'base64Encode(unhex(arrayStringConcat(arrayMap(x -> hex(x), embedding))))';

/** The bytes of a row's Float32 vector as `FLOAT32_BYTES_SQL` sends them. */
export function float32Bytes(sent: string): Buffer {
  return Buffer.from(sent, 'base64');
}

/** The engine's sum, shared by both stores: cosineDistance is 1 - dot / sqrt(|x|² |y|²). */
function cosine(values: Float32Array, at: number, dimensions: number, query: readonly number[], norm: number, queryNorm: number): number {
  let dot = 0;
  for (let i = 0; i < dimensions; i += 1) dot += values[at + i]! * query[i]!;
  return 1 - (1 - dot / Math.sqrt(norm * queryNorm));
}

function squaredNorm(values: Float32Array, at: number, dimensions: number): number {
  let norm = 0;
  for (let i = at, end = at + dimensions; i < end; i += 1) norm += values[i]! * values[i]!;
  return norm;
}

/**
 * Float32 rows in memory, in fixed-size chunks (a copy grows by appends; no chunk is ever
 * copied). The rows' width is set by the first row.
 */
export class Float32Rows implements ExactVectors {
  private static readonly CHUNK = 4_096;
  private readonly chunks: Float32Array[] = [];
  /** Each row's squared norm, in Float64 as the scoring sums it. */
  private readonly norms: number[] = [];
  private dimensions = 0;

  append(bytes: Buffer): void {
    if (this.dimensions === 0) this.dimensions = bytes.length / 4;
    if (bytes.length !== this.dimensions * 4) throw new RangeError(`a row has ${this.dimensions * 4} bytes here, got ${bytes.length}`);
    const at = this.norms.length % Float32Rows.CHUNK;
    if (at === 0) this.chunks.push(new Float32Array(Float32Rows.CHUNK * this.dimensions));
    const target = this.chunks[this.chunks.length - 1]!;
    new Uint8Array(target.buffer, at * this.dimensions * 4, this.dimensions * 4).set(bytes);
    this.norms.push(squaredNorm(target, at * this.dimensions, this.dimensions));
  }

  score(row: number, query: readonly number[], queryNorm: number): number {
    const chunk = this.chunks[Math.floor(row / Float32Rows.CHUNK)]!;
    return cosine(chunk, (row % Float32Rows.CHUNK) * this.dimensions, this.dimensions, query, this.norms[row]!, queryNorm);
  }

  /** Nothing to free: the chunks go with the copy. */
  release(): void {}
}

/**
 * Float32 rows in a file of their own, for a copy too large to hold them in memory
 * (LOOM_SEARCH_KEPT_FILE_VECTORS, ADR 0043). A search re-scores only its few candidates, so
 * it reads a few rows; the operating system's page cache keeps them hot, and gives the memory
 * back under pressure, which a process's heap does not.
 *
 * The file is unlinked as soon as it is opened: nothing of it outlives the process, even one
 * killed with SIGKILL, and no other process can open it. Rows are written in blocks; the last,
 * unwritten block is read from memory.
 */
export class Float32File implements ExactVectors {
  private static readonly BLOCK_ROWS = 1_024;
  private dimensions = 0;
  private rowBytes = 0;
  /** The block not yet written, and a one-row buffer for reads (both 4-byte aligned for their Float32 views). */
  private block = Buffer.alloc(0);
  private blockValues = new Float32Array(0);
  private one = Buffer.alloc(0);
  private oneValues = new Float32Array(0);
  private readonly norms: number[] = [];
  private written = 0;
  private released = false;

  private constructor(private readonly fd: number) {}

  /**
   * Opens a new, already unlinked file in `dir` (its rows' width is set by the first row);
   * throws what the file system says when it cannot.
   */
  static create(dir: string): Float32File {
    const path = join(dir, `loom-kept-vectors-${process.pid}-${randomUUID()}.f32`);
    const fd = openSync(path, 'wx+', 0o600);
    try {
      unlinkSync(path);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new Float32File(fd);
  }

  /** Rows held. */
  get rows(): number {
    return this.norms.length;
  }

  /** Bytes written to the file so far. */
  get bytes(): number {
    return this.written * this.rowBytes;
  }

  append(bytes: Buffer): void {
    this.assertOpen();
    if (this.rowBytes === 0) this.size(bytes.length);
    if (bytes.length !== this.rowBytes) throw new RangeError(`a row has ${this.rowBytes} bytes here, got ${bytes.length}`);
    const at = this.norms.length - this.written;
    bytes.copy(this.block, at * this.rowBytes);
    this.norms.push(squaredNorm(this.blockValues, at * this.dimensions, this.dimensions));
    if (at + 1 === Float32File.BLOCK_ROWS) this.flush();
  }

  score(row: number, query: readonly number[], queryNorm: number): number {
    this.assertOpen();
    if (row >= this.written) return cosine(this.blockValues, (row - this.written) * this.dimensions, this.dimensions, query, this.norms[row]!, queryNorm);
    const read = readSync(this.fd, this.one, 0, this.rowBytes, row * this.rowBytes);
    if (read !== this.rowBytes) throw new Error(`kept vectors file: row ${row} read ${read} of ${this.rowBytes} bytes`);
    return cosine(this.oneValues, 0, this.dimensions, query, this.norms[row]!, queryNorm);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    closeSync(this.fd);
  }

  private size(rowBytes: number): void {
    this.rowBytes = rowBytes;
    this.dimensions = rowBytes / 4;
    const blockBuffer = new ArrayBuffer(Float32File.BLOCK_ROWS * rowBytes);
    this.block = Buffer.from(blockBuffer);
    this.blockValues = new Float32Array(blockBuffer);
    const oneBuffer = new ArrayBuffer(rowBytes);
    this.one = Buffer.from(oneBuffer);
    this.oneValues = new Float32Array(oneBuffer);
  }

  private flush(): void {
    const bytes = (this.norms.length - this.written) * this.rowBytes;
    for (let done = 0; done < bytes; ) done += writeSync(this.fd, this.block, done, bytes - done, this.written * this.rowBytes + done);
    this.written = this.norms.length;
  }

  /** A released file's descriptor may already name another file: reading it would score garbage. */
  private assertOpen(): void {
    if (this.released) throw new Error('kept vectors file used after it was released');
  }
}
