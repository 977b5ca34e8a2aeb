import { cosineSimilarity } from '../vector';
import { HashedEmbeddingProvider } from './hashed.provider';

const norm = (v: number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('HashedEmbeddingProvider', () => {
  const provider = new HashedEmbeddingProvider();

  async function similarity(a: string, b: string): Promise<number> {
    const [x, y] = await provider.embed([a, b]);
    return cosineSimilarity(x as number[], y as number[]);
  }

  it('identifies itself with a dims-qualified model name', () => {
    expect(provider.name).toBe('hashed');
    expect(provider.dims).toBe(384);
    expect(provider.model).toBe('hashed-v1-384');
    expect(new HashedEmbeddingProvider(256).model).toBe('hashed-v1-256');
  });

  it('rejects unusable dims', () => {
    expect(() => new HashedEmbeddingProvider(0)).toThrow(RangeError);
    expect(() => new HashedEmbeddingProvider(12.5)).toThrow(RangeError);
  });

  it('is deterministic across calls and instances', async () => {
    const text = 'Deploy the API to staging after the migration finishes';
    const [a] = await provider.embed([text]);
    const [b] = await new HashedEmbeddingProvider().embed([text]);
    expect(b).toEqual(a);
  });

  it('pins the exact output so an algorithm change cannot slip in without a model-version bump', async () => {
    const [v] = await provider.embed(['How do I rotate the database credentials?']);
    const nonZero = (v as number[]).map((x, i) => [i, x] as const).filter(([, x]) => x !== 0);
    const fingerprint = nonZero.reduce((s, [i, x]) => s + (i + 1) * x, 0);
    expect(nonZero.length).toBe(69);
    expect(fingerprint.toFixed(6)).toBe('99.848538');
  });

  it('returns one unit-length vector per text, in input order', async () => {
    const texts = ['alpha beta gamma', 'Refactor the billing module', 'x'];
    const vectors = await provider.embed(texts);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toHaveLength(384);
      expect(norm(v)).toBeCloseTo(1, 10);
    }
    const [again] = await provider.embed([texts[1] as string]);
    expect(vectors[1]).toEqual(again);
  });

  it('gives an empty or whitespace-only text the zero vector instead of NaNs', async () => {
    const [empty, blank, punct] = await provider.embed(['', '  \n\t ', '?!…']);
    for (const v of [empty, blank, punct] as number[][]) {
      expect(v).toHaveLength(384);
      expect(v.every((x) => x === 0)).toBe(true);
    }
  });

  it('still embeds a text made only of stop words', async () => {
    const [v] = await provider.embed(['what is it?']);
    expect(norm(v as number[])).toBeCloseTo(1, 10);
  });

  it('ignores case, Unicode compatibility forms and punctuation', async () => {
    expect(await similarity('Rotate the DATABASE credentials!', 'rotate the database credentials')).toBeCloseTo(1, 10);
    // NFKC folds the fullwidth letters into ASCII.
    expect(await similarity('ｄａｔａｂａｓｅ', 'database')).toBeCloseTo(1, 10);
  });

  it.each([
    ['How do I rotate the database credentials?', 'We rotated the database credentials on Friday'],
    ['why is the jest test for the payment service failing', 'The payment service jest tests fail because the mock clock is not reset'],
    ['kubernetes ingress timeout', 'Increased the nginx ingress proxy timeout in the kubernetes manifest to 120s'],
    ['getUserName returns undefined', 'Fixed getUserName so it no longer returns undefined when the session expired'],
    ['clickhouse schema for conversation turns', 'I created the ClickHouse table schema that stores each conversation turn'],
    ['user name lookup', 'getUserName looks the user up by id'],
  ])('scores a query that shares the key words of a turn well above the 0.30 floor: %s', async (query, turn) => {
    expect(await similarity(query, turn)).toBeGreaterThan(0.4);
  });

  it.each([
    ['How do I rotate the database credentials?', 'The cat sat on the mat'],
    ['why is the jest test for the payment service failing', 'I deployed the new frontend build to staging this morning'],
    ['kubernetes ingress timeout', 'Refactored the user profile page to use the new design tokens'],
    ['How do I configure the logger?', 'Can you explain how the caching layer works?'],
    ['What is the status of the migration?', 'How do we handle errors in the parser?'],
    ['Add retry logic to the HTTP client', 'Update the README with installation instructions'],
    ['implementing authentication with JWT tokens', 'optimizing the image compression pipeline'],
    ['Can you help me with this?', 'What does this function do?'],
  ])('scores unrelated texts clearly below the 0.30 floor: %s', async (a, b) => {
    expect(await similarity(a, b)).toBeLessThan(0.2);
  });

  it('ranks the related turn above the unrelated ones for a query', async () => {
    const query = 'How do I rotate the database credentials?';
    const turns = [
      'Bumped the node version to 20 in the dockerfile',
      'Rotating database credentials: they live in vault and the app reloads them hourly',
      'The graphql resolver returns null for nested authors',
    ];
    const [q, ...vs] = await provider.embed([query, ...turns]);
    const scores = vs.map((v) => cosineSimilarity(q as number[], v));
    expect(scores.indexOf(Math.max(...scores))).toBe(1);
  });

  it('embeds 2,000 short texts in one call correctly', async () => {
    const texts = Array.from({ length: 2000 }, (_, i) => `turn ${i}: fix the flaky test in module ${i % 37}`);
    const vectors = await provider.embed(texts);
    expect(vectors).toHaveLength(2000);
    for (const v of vectors) expect(norm(v)).toBeCloseTo(1, 10);
    const [single] = await provider.embed([texts[1234] as string]);
    expect(vectors[1234]).toEqual(single);
  });
});
