import { cosineSimilarity } from '../vector';
import { UniversalSentenceEncoderProvider } from './use.provider';

// TensorFlow.js fetches remote models with the global fetch (spied on below), or with node-fetch
// where no global fetch exists; either way, fail loudly if it ever tries.
const mockNodeFetch = jest.fn(() => Promise.reject(new Error('network access is not allowed in this test')));
jest.mock('node-fetch', () => mockNodeFetch);

const norm = (v: number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('UniversalSentenceEncoderProvider', () => {
  const provider = new UniversalSentenceEncoderProvider();

  it('identifies itself', () => {
    expect([provider.name, provider.model, provider.dims]).toEqual(['use', 'use-lite-512', 512]);
  });

  it(
    'loads the packaged model without a network and embeds to unit-length 512-dim vectors',
    async () => {
      // Any attempt to fetch (e.g. falling back to tfhub.dev) fails the test instead of hanging.
      const fetchSpy = jest.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('network access is not allowed in this test'));
      try {
        const vectors = await provider.embed(['How do I rotate the database credentials?', 'hello world']);
        expect(vectors).toHaveLength(2);
        for (const v of vectors) {
          expect(v).toHaveLength(512);
          expect(norm(v)).toBeCloseTo(1, 6);
        }
        expect(fetchSpy).not.toHaveBeenCalled();
        expect(mockNodeFetch).not.toHaveBeenCalled();
      } finally {
        fetchSpy.mockRestore();
      }
    },
    120_000,
  );

  it(
    'scores a paraphrase pair higher than an unrelated pair',
    async () => {
      const [query, paraphrase, unrelated] = await provider.embed([
        'How do I rotate the database credentials?',
        'How can I change the DB password?',
        'The cat sat on the mat',
      ]);
      const related = cosineSimilarity(query as number[], paraphrase as number[]);
      const other = cosineSimilarity(query as number[], unrelated as number[]);
      expect(related).toBeGreaterThan(0.3);
      expect(other).toBeLessThan(0.3);
      expect(related).toBeGreaterThan(other + 0.2);
    },
    120_000,
  );

  it(
    'keeps input order across batches and gives empty texts the zero vector',
    async () => {
      const texts = Array.from({ length: 40 }, (_, i) => (i === 7 ? '   ' : `note ${i} about the build pipeline`));
      const vectors = await provider.embed(texts);
      expect(vectors).toHaveLength(40);
      expect((vectors[7] as number[]).every((x) => x === 0)).toBe(true);
      const [alone] = await provider.embed([texts[35] as string]);
      (vectors[35] as number[]).forEach((x, j) => expect(x).toBeCloseTo((alone as number[])[j] as number, 4));
      expect(await provider.embed([])).toEqual([]);
    },
    120_000,
  );
});
