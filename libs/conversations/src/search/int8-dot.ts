/**
 * Dot products of one Int8 query against many Int8 rows, in WebAssembly SIMD (ADR 0038).
 *
 * Why a hand-built module: the kept vectors of a namespace (kept-vectors.ts) are ranked in this
 * process, and a JavaScript loop over 100,000 rows of 384 dimensions takes about 40 ms on this
 * project's 2-core machine, as long as the engine's own scan. The same loop in 128-bit SIMD takes
 * about 3 ms (16 products per instruction pair). Node 20 runs WebAssembly SIMD everywhere it
 * runs; the module is 200 bytes written below, so nothing is fetched or compiled at install.
 *
 * The function `dot(query, rows, count, stride, out)` takes byte offsets into the module's memory:
 * `query` and each row are `stride` Int8 values (stride a multiple of 16, zero-padded), `out`
 * receives `count` Int32 sums. |sum| <= 127 * 127 * stride, so no overflow below 133,000
 * dimensions.
 */

const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
};
const name = (s: string): number[] => [...leb(s.length), ...Buffer.from(s, 'utf8')];
const section = (id: number, bytes: number[]): number[] => [id, ...leb(bytes.length), ...bytes];
const simd = (op: number, ...immediates: number[]): number[] => [0xfd, ...leb(op), ...immediates];

// Opcodes used (WebAssembly core 2.0 and its SIMD proposal).
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const I32_CONST = 0x41;
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const I32_EQZ = 0x45;
const I32_LT_U = 0x49;
const I32_STORE = 0x36;
const BLOCK = 0x02;
const LOOP = 0x03;
const BR = 0x0c;
const BR_IF = 0x0d;
const END = 0x0b;
const VOID = 0x40;
const V128_LOAD = 0x00;
const V128_CONST = 0x0c;
const I32X4_EXTRACT_LANE = 0x1b;
const I32X4_EXTADD_PAIRWISE_I16X8_S = 0x7e;
const I16X8_EXTMUL_LOW_I8X16_S = 0x9c;
const I16X8_EXTMUL_HIGH_I8X16_S = 0x9d;
const I32X4_ADD = 0xae;

// Parameters 0-4: query, rows, count, stride, out. Locals: 5 end of row, 6 query cursor (i32); 7, 8 accumulators, 9, 10 the loaded query and row lanes (v128).
const [QUERY, ROWS, COUNT, STRIDE, OUT, END_OF_ROW, CURSOR, ACC_LOW, ACC_HIGH, QUERY_LANES, ROW_LANES] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const zero = simd(V128_CONST, ...new Array<number>(16).fill(0));
/** acc += pairwise(extmul_{low|high}(query lanes, row lanes)) */
const accumulate = (acc: number, extmul: number): number[] => [
  LOCAL_GET, acc,
  LOCAL_GET, QUERY_LANES, LOCAL_GET, ROW_LANES,
  ...simd(extmul), ...simd(I32X4_EXTADD_PAIRWISE_I16X8_S), ...simd(I32X4_ADD),
  LOCAL_SET, acc,
];
const lane = (i: number): number[] => [LOCAL_GET, ACC_LOW, ...simd(I32X4_EXTRACT_LANE, i)];
// prettier-ignore
const body = [
  BLOCK, VOID, LOOP, VOID,
    LOCAL_GET, COUNT, I32_EQZ, BR_IF, 1,
    ...zero, LOCAL_SET, ACC_LOW,
    ...zero, LOCAL_SET, ACC_HIGH,
    LOCAL_GET, QUERY, LOCAL_SET, CURSOR,
    LOCAL_GET, ROWS, LOCAL_GET, STRIDE, I32_ADD, LOCAL_SET, END_OF_ROW,
    LOOP, VOID,
      LOCAL_GET, CURSOR, ...simd(V128_LOAD, 0, 0), LOCAL_SET, QUERY_LANES,
      LOCAL_GET, ROWS, ...simd(V128_LOAD, 0, 0), LOCAL_SET, ROW_LANES,
      ...accumulate(ACC_LOW, I16X8_EXTMUL_LOW_I8X16_S),
      ...accumulate(ACC_HIGH, I16X8_EXTMUL_HIGH_I8X16_S),
      LOCAL_GET, CURSOR, I32_CONST, 16, I32_ADD, LOCAL_SET, CURSOR,
      LOCAL_GET, ROWS, I32_CONST, 16, I32_ADD, LOCAL_TEE, ROWS, LOCAL_GET, END_OF_ROW, I32_LT_U, BR_IF, 0,
    END,
    LOCAL_GET, ACC_LOW, LOCAL_GET, ACC_HIGH, ...simd(I32X4_ADD), LOCAL_SET, ACC_LOW,
    LOCAL_GET, OUT,
    ...lane(0), ...lane(1), I32_ADD, ...lane(2), I32_ADD, ...lane(3), I32_ADD,
    I32_STORE, 2, 0,
    LOCAL_GET, OUT, I32_CONST, 4, I32_ADD, LOCAL_SET, OUT,
    LOCAL_GET, COUNT, I32_CONST, 1, I32_SUB, LOCAL_SET, COUNT,
    BR, 0,
  END, END,
  END,
];
const I32 = 0x7f;
const V128 = 0x7b;
const code = [2, 2, I32, 4, V128, ...body];
const MODULE_BYTES = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
  ...section(3, [1, 0]),
  ...section(5, [1, 0x00, 1]),
  ...section(7, [2, ...name('dot'), 0x00, 0, ...name('memory'), 0x02, 0]),
  ...section(10, [1, ...leb(code.length), ...code]),
]);

/** The part of the WebAssembly API used here (the build's TypeScript libraries do not declare it; Node has it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compiled: object | undefined;

const PAGE = 65_536;
/** Bytes before the rows: the query (up to this many dimensions). */
const QUERY_BYTES = 8_192;

/** Row width in bytes for `dimensions`: rounded up to 16 (the SIMD lane width); the padding is zero. */
export function strideFor(dimensions: number): number {
  return Math.ceil(dimensions / 16) * 16;
}

/**
 * A growing matrix of Int8 rows in one WebAssembly memory, and the dot products of a query
 * against all of them. Rows are appended, never removed: a kept corpus is rebuilt instead.
 */
export class Int8Matrix {
  readonly stride: number;
  private readonly memory: WasmMemory;
  private readonly dotAll: (query: number, rows: number, count: number, stride: number, out: number) => void;
  private rowCount = 0;

  constructor(readonly dimensions: number) {
    if (dimensions < 1 || dimensions > QUERY_BYTES) throw new RangeError(`dimensions must be 1-${QUERY_BYTES}, got ${dimensions}`);
    this.stride = strideFor(dimensions);
    compiled ??= new wasm.Module(MODULE_BYTES);
    const instance = new wasm.Instance(compiled, {});
    this.memory = instance.exports['memory'] as WasmMemory;
    this.dotAll = instance.exports['dot'] as Int8Matrix['dotAll'];
  }

  get rows(): number {
    return this.rowCount;
  }

  /** Bytes of memory this matrix holds. */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Appends one row (`dimensions` values in -128..127); returns its index. */
  append(row: ArrayLike<number>): number {
    if (row.length !== this.dimensions) throw new RangeError(`a row has ${this.dimensions} values, got ${row.length}`);
    const at = QUERY_BYTES + this.rowCount * this.stride;
    this.reserve(at + this.stride);
    new Int8Array(this.memory.buffer, at, this.dimensions).set(row);
    this.rowCount += 1;
    return this.rowCount - 1;
  }

  /**
   * The dot product of `query` (`dimensions` values in -128..127) with every row, in row order:
   * a view of the module's memory, valid until the next `append` or `dot` (read it at once).
   */
  dot(query: ArrayLike<number>): Int32Array {
    if (query.length !== this.dimensions) throw new RangeError(`a query has ${this.dimensions} values, got ${query.length}`);
    const out = QUERY_BYTES + this.rowCount * this.stride;
    this.reserve(out + this.rowCount * 4);
    const q = new Int8Array(this.memory.buffer, 0, this.stride);
    q.fill(0);
    q.set(query);
    this.dotAll(0, QUERY_BYTES, this.rowCount, this.stride, out);
    return new Int32Array(this.memory.buffer, out, this.rowCount);
  }

  private reserve(bytes: number): void {
    const have = this.memory.buffer.byteLength;
    if (bytes <= have) return;
    // Doubling keeps appends amortised; the memory never shrinks (a rebuilt corpus gets a new one).
    const want = Math.max(bytes, Math.min(have * 2, have + 256 * 1024 * 1024));
    this.memory.grow(Math.ceil((want - have) / PAGE));
  }
}
