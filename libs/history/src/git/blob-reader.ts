import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** The largest file whose symbols are read; bigger ones (generated, vendored) keep git's hunk headers. */
export const MAX_PARSED_BYTES = 512 * 1024;

/**
 * File contents at a commit through one long-lived `git cat-file --batch`: a process per file
 * would cost more than parsing it. Requests are answered in order, one at a time.
 */
export class BlobReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(repoPath: string) {
    this.child = spawn('git', ['-C', repoPath, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    this.child.once('close', () => {
      this.closed = true;
      this.wake();
    });
    this.child.stderr.resume();
  }

  /** The text of `path` at `commit`, or undefined when it is missing, binary or too big. */
  read(commit: string, path: string): Promise<string | undefined> {
    const next = this.queue.then(() => this.readNow(commit, path));
    this.queue = next.catch(() => undefined);
    return next;
  }

  close(): void {
    if (!this.closed) this.child.stdin.end();
  }

  private async readNow(commit: string, path: string): Promise<string | undefined> {
    if (this.closed) return undefined;
    // A newline in a path would end the request early: such a file is simply not parsed.
    if (path.includes('\n')) return undefined;
    this.child.stdin.write(`${commit}:${path}\n`);
    const header = (await this.take((b) => { const i = b.indexOf(10); return i < 0 ? -1 : i + 1; })).toString('utf8').trimEnd();
    if (header.endsWith(' missing') || header.endsWith(' ambiguous') || header === '') return undefined;
    const size = Number(header.split(' ')[2]);
    const body = await this.take((b) => (b.length >= size + 1 ? size + 1 : -1));
    if (size > MAX_PARSED_BYTES || header.split(' ')[1] !== 'blob') return undefined;
    const content = body.subarray(0, size);
    if (content.includes(0)) return undefined;
    return content.toString('utf8');
  }

  /** Waits until `measure` finds a whole message at the buffer's start, and takes it. */
  private async take(measure: (buffer: Buffer) => number): Promise<Buffer> {
    for (;;) {
      const n = measure(this.buffer);
      if (n >= 0) {
        const out = this.buffer.subarray(0, n);
        this.buffer = this.buffer.subarray(n);
        return out;
      }
      if (this.closed) return Buffer.alloc(0);
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }
}
