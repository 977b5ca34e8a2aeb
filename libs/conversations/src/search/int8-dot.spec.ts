import { Int8Matrix, strideFor } from './int8-dot';

/** A deterministic stream of Int8 values (no Math.random: a failure must repeat). */
function int8s(seed: number, n: number): number[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return (x % 256) - 128;
  });
}

const dotJs = (a: readonly number[], b: readonly number[]): number => a.reduce((sum, v, i) => sum + v * b[i]!, 0);

describe('Int8Matrix (ADR 0038: kept vectors ranked in WebAssembly SIMD)', () => {
  it.each([1, 15, 16, 17, 384, 1536])('equals a plain dot product at %i dimensions, extremes included', (dimensions) => {
    const matrix = new Int8Matrix(dimensions);
    const rows = [int8s(1, dimensions), int8s(2, dimensions), new Array<number>(dimensions).fill(-128), new Array<number>(dimensions).fill(127), new Array<number>(dimensions).fill(0)];
    for (const row of rows) matrix.append(row);
    const query = int8s(3, dimensions);
    query[0] = -128;
    expect([...matrix.dot(query)]).toEqual(rows.map((row) => dotJs(row, query)));
    expect(matrix.stride).toBe(strideFor(dimensions));
    expect(matrix.stride % 16).toBe(0);
  });

  it('keeps every row across memory growth (thousands of rows) and answers for an empty matrix', () => {
    const matrix = new Int8Matrix(384);
    expect(matrix.dot(int8s(9, 384)).length).toBe(0);
    const rows = Array.from({ length: 3_000 }, (_, i) => int8s(100 + i, 384));
    for (const row of rows) matrix.append(row);
    expect(matrix.rows).toBe(3_000);
    const query = int8s(7, 384);
    const got = matrix.dot(query);
    for (const i of [0, 1, 1_499, 2_999]) expect(got[i]).toBe(dotJs(rows[i]!, query));
  });

  it('refuses a row or query of the wrong length, and impossible dimensions', () => {
    const matrix = new Int8Matrix(8);
    expect(() => matrix.append([1, 2, 3])).toThrow(/8 values, got 3/);
    expect(() => matrix.dot([1])).toThrow(/8 values, got 1/);
    expect(() => new Int8Matrix(0)).toThrow(RangeError);
  });
});
