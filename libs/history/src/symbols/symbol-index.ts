import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { grammarFor } from './languages';

/** A named definition in one version of a file, by its 1-based lines. */
export interface Definition {
  /** Qualified by its enclosing definitions: `Client.query`, `pkg.Type.method`. */
  name: string;
  kind: string;
  startLine: number;
  endLine: number;
}

interface Reply {
  id: number;
  definitions?: Definition[];
  error?: string;
}

/**
 * Definitions of a file's symbols, from the tree-sitter grammars that ship as WebAssembly inside
 * `@vscode/tree-sitter-wasm` (nothing is fetched), parsed on a thread of its own
 * (`parse-worker.js`). A file the parser cannot read has no definitions: its hunks keep git's
 * header as their symbol.
 */
export class SymbolIndex {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, (reply: Reply) => void>();

  supports(path: string): boolean {
    return grammarFor(path) !== undefined;
  }

  async definitions(path: string, text: string): Promise<Definition[]> {
    const grammar = grammarFor(path);
    if (grammar === undefined) return [];
    const id = this.nextId++;
    const reply = await new Promise<Reply>((resolve) => {
      this.pending.set(id, resolve);
      this.thread().postMessage({ id, grammar, text });
    });
    return reply.definitions ?? [];
  }

  /** Ends the parser's thread; the next call starts another. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(join(__dirname, 'parse-worker.js'));
    worker.on('message', (reply: Reply) => {
      const resolve = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      resolve?.(reply);
    });
    const failAll = (): void => {
      for (const resolve of this.pending.values()) resolve({ id: 0 });
      this.pending.clear();
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on('error', failAll);
    worker.on('exit', failAll);
    // The thread must not keep a finished CLI alive.
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

/**
 * The symbols a change touches: every definition with a changed line that no definition nested
 * in it holds (a change inside a method touches the method, not its class).
 */
export function symbolsTouched(definitions: readonly Definition[], from: number, to: number): Definition[] {
  const overlapping = definitions.filter((d) => d.startLine <= to && d.endLine >= from);
  return overlapping.filter((d) => {
    const nested = overlapping
      .filter((c) => c !== d && c.startLine >= d.startLine && c.endLine <= d.endLine && (c.startLine > d.startLine || c.endLine < d.endLine))
      .sort((a, b) => a.startLine - b.startLine);
    // Walk the changed lines inside d; any line no nested definition covers is d's own.
    let line = Math.max(d.startLine, from);
    const last = Math.min(d.endLine, to);
    for (const c of nested) {
      if (c.startLine > line) return true;
      line = Math.max(line, c.endLine + 1);
      if (line > last) return false;
    }
    return line <= last;
  });
}
