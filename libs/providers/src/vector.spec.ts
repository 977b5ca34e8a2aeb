import { HashedEmbeddingProvider } from './embedding/hashed.provider';
import { vectorProblem } from './vector';

describe('vectorProblem: what no embedding column may take (issue 9)', () => {
  it('[issue 9: wordless turn] the hashed vector of text with no words is a zero vector, and is refused as one', () => {
    const provider = new HashedEmbeddingProvider();
    for (const text of ['?', '👍', '...', '']) expect(vectorProblem(provider.embedOne(text), provider.dims)).toMatch(/zero vector/);
    expect(vectorProblem(provider.embedOne('rotate the deploy credentials'), provider.dims)).toBeUndefined();
  });

  it('refuses non-finite components, Float32 overflow, the wrong length and a missing vector', () => {
    expect(vectorProblem([NaN, 1], 2)).toMatch(/finite/);
    expect(vectorProblem([Infinity, 1], 2)).toMatch(/finite/);
    expect(vectorProblem([1e39, 1], 2)).toMatch(/finite/);
    expect(vectorProblem([0.6, 0.8], 3)).toMatch(/2 dimensions where the model has 3/);
    expect(vectorProblem([], 0)).toMatch(/no vector/);
    expect(vectorProblem(undefined)).toMatch(/no vector/);
    expect(vectorProblem([0.6, 0.8], 2)).toBeUndefined();
    // dims 0: a provider that has not learnt its size yet; any length is taken.
    expect(vectorProblem([0.6, 0.8], 0)).toBeUndefined();
  });
});
