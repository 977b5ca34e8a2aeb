import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EmbeddingProvider } from './embedding.provider';
import { HashedEmbeddingProvider } from './hashed.provider';

interface Reply {
  id: number;
  vectors?: Float64Array;
  error?: string;
}

interface Waiting {
  texts: readonly string[];
  resolve: (vectors: number[][]) => void;
  reject: (error: Error) => void;
}

/**
 * The hashed embedder on a thread of its own. Embedding is pure CPU, and in `loom up` it ran on the
 * gateway's one JavaScript thread: about a tenth of that thread under append load, while the
 * machine's other core sat partly idle. Here the gateway only posts the texts and copies the
 * vectors back (one Float64Array per call, moved, not copied between threads).
 *
 * The vectors are bit-identical to the inline provider's: the same code runs on the same
 * runtime, and a Float64Array carries doubles exactly. So when the thread cannot be used (it
 * failed to start, or died), calls are embedded inline, with the same answer, and nothing a
 * caller sees changes.
 */
export class ThreadedHashedEmbeddingProvider implements EmbeddingProvider {
  readonly name = 'hashed';
  readonly model: string;
  readonly dims: number;
  private readonly inline: HashedEmbeddingProvider;
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;

  constructor(dims?: number) {
    this.inline = new HashedEmbeddingProvider(dims);
    this.model = this.inline.model;
    this.dims = this.inline.dims;
    try {
      this.worker = new Worker(join(__dirname, 'hashed-embed.worker.js'), { workerData: { dims: this.dims } });
    } catch {
      this.worker = undefined;
      return;
    }
    // An idle embedder thread must not keep a finished process alive.
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', () => this.abandonThread());
    this.worker.on('exit', () => this.abandonThread());
  }

  /** Whether calls go to the thread (false once it failed; they are embedded inline then). */
  get threaded(): boolean {
    return this.worker !== undefined;
  }

  embed(texts: readonly string[]): Promise<number[][]> {
    if (texts.length === 0) return Promise.resolve([]);
    const worker = this.worker;
    if (!worker) return this.inline.embed(texts);
    return new Promise<number[][]>((resolve, reject) => {
      const id = this.nextId++;
      this.waiting.set(id, { texts, resolve, reject });
      worker.postMessage({ id, texts });
    });
  }

  /** Stops the thread; later calls embed inline. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.abandonThread();
    await worker?.terminate();
  }

  private settle(reply: Reply): void {
    const call = this.waiting.get(reply.id);
    if (!call) return;
    this.waiting.delete(reply.id);
    if (reply.vectors === undefined) {
      call.reject(new Error(reply.error ?? 'the hashed embedder thread answered without vectors'));
      return;
    }
    const { dims } = this;
    const out = new Array<number[]>(call.texts.length);
    for (let i = 0; i < out.length; i++) {
      const vector = new Array<number>(dims);
      const offset = i * dims;
      for (let d = 0; d < dims; d++) vector[d] = reply.vectors[offset + d] as number;
      out[i] = vector;
    }
    call.resolve(out);
  }

  /** The thread is gone: what it held is embedded inline, as is everything after. */
  private abandonThread(): void {
    if (!this.worker) return;
    this.worker.removeAllListeners();
    // A late 'error' after the listeners are gone must not become an uncaught exception.
    this.worker.on('error', () => undefined);
    this.worker = undefined;
    const held = [...this.waiting.values()];
    this.waiting.clear();
    for (const call of held) this.inline.embed(call.texts).then(call.resolve, call.reject);
  }
}
