/**
 * A set that can answer "certainly not here" in constant time and small memory: `mayContain` is
 * never false for an added key, and true for an absent one with probability about
 * `falsePositiveRate`. It grows by adding layers of doubling capacity, so the rate holds however
 * many keys arrive.
 */
export class BloomFilter {
  private readonly layers: Layer[] = [];
  private count = 0;

  constructor(
    private readonly initialCapacity = 100_000,
    private readonly falsePositiveRate = 0.01,
  ) {
    this.layers.push(new Layer(initialCapacity, falsePositiveRate / 2));
  }

  get size(): number {
    return this.count;
  }

  add(key: string): void {
    let top = this.layers[this.layers.length - 1]!;
    if (top.count >= top.capacity) {
      // Each new layer takes half the remaining error budget, so the sum stays under the rate.
      top = new Layer(top.capacity * 2, this.falsePositiveRate / 2 ** (this.layers.length + 1));
      this.layers.push(top);
    }
    top.add(hashes(key));
    this.count += 1;
  }

  mayContain(key: string): boolean {
    const h = hashes(key);
    return this.layers.some((layer) => layer.has(h));
  }
}

class Layer {
  count = 0;
  private readonly bits: Uint32Array;
  private readonly m: number;
  private readonly k: number;

  constructor(
    readonly capacity: number,
    rate: number,
  ) {
    this.m = Math.max(64, Math.ceil((-capacity * Math.log(rate)) / Math.LN2 ** 2));
    this.k = Math.max(1, Math.round((this.m / capacity) * Math.LN2));
    this.bits = new Uint32Array(Math.ceil(this.m / 32));
  }

  add([h1, h2]: [number, number]): void {
    for (let i = 0; i < this.k; i += 1) {
      const bit = (h1 + i * h2) % this.m;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
    this.count += 1;
  }

  has([h1, h2]: [number, number]): boolean {
    for (let i = 0; i < this.k; i += 1) {
      const bit = (h1 + i * h2) % this.m;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Two independent 32-bit hashes (FNV-1a and a murmur3-style mix) for double hashing. */
function hashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i += 1) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  b ^= b >>> 16;
  // h2 odd and non-zero, so the k probes differ.
  return [a >>> 0, (b | 1) >>> 0];
}
