import { LoomError } from '@loom/contracts';
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { logRowJson } from './row-json';

/** One logged insert: the rows bound for one table. */
export interface LoggedInsert {
  table: string;
  rows: object[];
}

const SEGMENT = /^(\d{12})\.jsonl$/;

/**
 * Append-only segments of JSON lines, one line per insert. A segment is closed ("rotated") when a
 * flush takes the rows it holds, and removed once those rows are in the engine; whatever
 * segments are left at start belong to acknowledged writes a crash kept from the engine.
 *
 * Writes are plain write(2) calls without fsync: a logged insert survives the process dying,
 * not the machine losing power — the same promise ClickHouse itself makes for a part by default
 * (`fsync_after_insert = 0`).
 */
export class WriteAheadLog {
  private fd: number | undefined;
  /** Bytes in the open segment: where the next entry starts, and where a failed one is cut back to. */
  private size = 0;
  private current = 0;
  /** A segment closed by a failed write rather than by `rotate`: the next rotation reports it. */
  private closedEarly = 0;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.current = Math.max(0, ...this.segments().map((s) => s.index));
  }

  /** Segments on disk, oldest first. */
  segments(): Array<{ index: number; path: string }> {
    return readdirSync(this.dir)
      .map((name) => SEGMENT.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ index: Number(m[1]), path: join(this.dir, m[0]) }))
      .sort((a, b) => a.index - b.index);
  }

  /** Reads a segment; a torn last line (the process died mid-write) is dropped, as that write was never acknowledged. */
  static read(path: string): LoggedInsert[] {
    const lines = readFileSync(path, 'utf8').split('\n');
    const out: LoggedInsert[] = [];
    for (const [i, line] of lines.entries()) {
      if (line === '') continue;
      try {
        out.push(JSON.parse(line) as LoggedInsert);
      } catch (error) {
        // Only a last line without its newline can be torn.
        if (i === lines.length - 1) break;
        throw new Error(`write-ahead log ${path} line ${i + 1} is not JSON; move the file aside to start without it`, { cause: error });
      }
    }
    return out;
  }

  /**
   * Logs one insert; returns the bytes written. A write the file system refuses (disk full, I/O
   * error) is `unavailable` (503): the insert was not logged, so it must not be acknowledged.
   */
  append(entry: LoggedInsert): number {
    // The same text as JSON.stringify(entry), with each row's JSON kept for the engine's insert.
    const line = `{"table":${JSON.stringify(entry.table)},"rows":[${entry.rows.map(logRowJson).join(',')}]}\n`;
    const bytes = Buffer.from(line, 'utf8');
    try {
      if (this.fd === undefined) {
        this.fd = openSync(this.path(this.current + 1), 'a');
        this.current += 1;
        this.size = fstatSync(this.fd).size;
      }
      let written = 0;
      try {
        while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
      } catch (error) {
        if (written > 0) this.cutTornEntry();
        throw error;
      }
      this.size += bytes.length;
      return bytes.length;
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'unknown';
      throw new LoomError('unavailable', `the write-ahead log could not be written (${code}); nothing was stored`, { cause: error });
    }
  }

  /**
   * A disk that fills mid-entry leaves part of a line: later entries must not follow it (a start
   * reads a torn line only at the end of a segment). Cut the segment back to the last whole
   * entry; if even that fails, close the segment so the torn line stays its last.
   */
  private cutTornEntry(): void {
    try {
      ftruncateSync(this.fd!, this.size);
    } catch {
      closeSync(this.fd!);
      this.fd = undefined;
      this.closedEarly = this.current;
    }
  }

  /** Closes the open segment; returns its index (0 when nothing was logged since the last rotation). */
  rotate(): number {
    const early = this.closedEarly;
    this.closedEarly = 0;
    if (this.fd === undefined) return early;
    closeSync(this.fd);
    this.fd = undefined;
    return this.current;
  }

  /** Removes every closed segment up to and including `index`. */
  removeThrough(index: number): void {
    for (const segment of this.segments()) {
      if (segment.index <= index && !(this.fd !== undefined && segment.index === this.current)) rmSync(segment.path, { force: true });
    }
  }

  /** Renames every closed segment up to `index` so that no start reads it again; the rows stay on disk. */
  setAsideThrough(index: number): void {
    for (const segment of this.segments()) {
      if (segment.index <= index && !(this.fd !== undefined && segment.index === this.current)) renameSync(segment.path, `${segment.path}.set-aside`);
    }
  }

  close(): void {
    this.rotate();
  }

  private path(index: number): string {
    return join(this.dir, `${String(index).padStart(12, '0')}.jsonl`);
  }
}
