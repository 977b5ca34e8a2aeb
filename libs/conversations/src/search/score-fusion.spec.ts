import { convexFusion, fusionDepth, HYBRID_VECTOR_DEPTH, hybridVectorDepth, NEIGHBOUR_SHARE, withNeighbours } from './score-fusion';

describe('hybrid score fusion [issue 10: fusion]', () => {
  const lexical = [
    { key: 'a', score: 8 },
    { key: 'b', score: 2 },
  ];
  const vector = [
    { key: 'b', score: 0.9 },
    { key: 'c', score: 0.5 },
    { key: 'd', score: 0.2 },
  ];

  it('mixes BM25 scaled by its best and cosine scaled from the floor, lexical_weight on BM25', () => {
    const fused = convexFusion(lexical, vector, { lexicalWeight: 0.8, vectorFloor: 0.1, vectorOnlyFloor: 0.3 });
    expect(fused.get('a')).toBeCloseTo(0.8);
    expect(fused.get('b')).toBeCloseTo(0.8 * 0.25 + 0.2 * 1);
    expect(fused.get('c')).toBeCloseTo(0.2 * 0.5);
    // Only the vector leg found it, below the live floor: left out.
    expect(fused.has('d')).toBe(false);
  });

  it('weight 1 is the BM25 leg alone and weight 0 the vector leg alone', () => {
    expect([...convexFusion(lexical, vector, { lexicalWeight: 1, vectorFloor: 0.1, vectorOnlyFloor: 0.3 }).keys()]).toEqual(['a', 'b']);
    const vectorOnly = convexFusion(lexical, vector, { lexicalWeight: 0, vectorFloor: 0, vectorOnlyFloor: 0 });
    expect([...vectorOnly].sort((x, y) => y[1] - x[1]).map(([k]) => k)).toEqual(['b', 'c', 'd']);
  });

  it('a turn next to a strong hit takes a share of the larger neighbouring score', () => {
    const fused = new Map([
      ['a', 1],
      ['b', 0.4],
    ]);
    const out = withNeighbours(fused, new Map([
      ['a', ['x']],
      ['b', ['x', 'a']],
    ]));
    expect(out.get('x')).toBeCloseTo(NEIGHBOUR_SHARE * 1);
    expect(out.get('a')).toBeCloseTo(1 + NEIGHBOUR_SHARE * 0.4);
    expect(out.get('b')).toBe(0.4);
  });

  it('each leg ranks at least 100 turns before fusion, at most 200', () => {
    expect(fusionDepth(10)).toBe(100);
    expect(fusionDepth(80)).toBe(160);
    expect(fusionDepth(100)).toBe(200);
  });

  it('CONV-SEARCH-03 [issue 10: hybrid vector depth] the vector leg ranks as deep as the BM25 leg (100 for the default limit)', () => {
    expect(HYBRID_VECTOR_DEPTH).toBe(100);
    expect(hybridVectorDepth(10)).toBe(100);
    expect(hybridVectorDepth(1)).toBe(100);
    expect(hybridVectorDepth(80)).toBe(160);
    expect(hybridVectorDepth(100)).toBe(fusionDepth(100));
    for (const limit of [1, 10, 25, 26, 50, 99, 100]) expect(hybridVectorDepth(limit)).toBeGreaterThanOrEqual(limit);
  });
});
