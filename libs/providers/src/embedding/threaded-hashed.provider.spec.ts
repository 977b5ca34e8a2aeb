import { createEmbeddingProvider } from './embedding.provider';
import { HashedEmbeddingProvider } from './hashed.provider';
import { ThreadedHashedEmbeddingProvider } from './threaded-hashed.provider';

const ALPHABET = ['a', 'Z', ' ', 'é', 'ß', '日本', 'Привет', '🙂', '\u0301', '_', 'camelCase', 'snake_case', '.', '/', "'", '0', '\n', '\ud800'];

function texts(seed: number, count: number): string[] {
  let state = seed >>> 0;
  // An integer-only PRNG (xorshift32), so every run generates the same texts.
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, () => {
    const length = Math.floor(next() * 60);
    return Array.from({ length }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join('');
  });
}

describe('ThreadedHashedEmbeddingProvider (the hashed embedder on a worker thread)', () => {
  const inline = new HashedEmbeddingProvider();
  let threaded: ThreadedHashedEmbeddingProvider;
  beforeEach(() => {
    threaded = new ThreadedHashedEmbeddingProvider();
  });
  afterEach(async () => {
    await threaded.close();
  });

  it('CONV-EMBED-01: gives bit-identical vectors to the inline provider, in input order, for generated text (any Unicode, empty, broken surrogates)', async () => {
    expect(threaded.threaded).toBe(true);
    expect([threaded.name, threaded.model, threaded.dims]).toEqual([inline.name, inline.model, inline.dims]);
    const batch = [...texts(7, 300), '', 'How do I rotate the database credentials?', 'x'.repeat(2048)];
    const got = await threaded.embed(batch);
    expect(got).toHaveLength(batch.length);
    const want = await inline.embed(batch);
    for (let i = 0; i < batch.length; i++) expect(Object.is(got[i]!.length, want[i]!.length) && got[i]!.every((x, d) => Object.is(x, want[i]![d]))).toBe(true);
    expect(await threaded.embed([])).toEqual([]);
  });

  it('CONV-EMBED-01: concurrent calls each get their own texts\' vectors', async () => {
    const calls = Array.from({ length: 40 }, (_, i) => texts(100 + i, 1 + (i % 5)));
    const answers = await Promise.all(calls.map((batch) => threaded.embed(batch)));
    for (const [i, batch] of calls.entries()) expect(answers[i]).toEqual(await inline.embed(batch));
  });

  it('CONV-EMBED-01: when the thread dies, the calls it held and every later call are embedded inline, with the same vectors', async () => {
    const batch = texts(3, 50);
    const held = threaded.embed(batch);
    await threaded.close();
    expect(threaded.threaded).toBe(false);
    expect(await held).toEqual(await inline.embed(batch));
    expect(await threaded.embed(['after the thread'])).toEqual(await inline.embed(['after the thread']));
  });

  it('[LOOM_EMBEDDINGS_THREAD] the factory makes the threaded provider only when asked', async () => {
    const on = createEmbeddingProvider({ provider: 'hashed', thread: true });
    const off = createEmbeddingProvider({ provider: 'hashed', dims: 256 });
    expect(on).toBeInstanceOf(ThreadedHashedEmbeddingProvider);
    expect(off).toBeInstanceOf(HashedEmbeddingProvider);
    expect(off.model).toBe('hashed-v1-256');
    await (on as ThreadedHashedEmbeddingProvider).close();
  });
});
