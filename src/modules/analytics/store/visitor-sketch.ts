// A mergeable distinct count of visitor ids (53-bit integers, uniform: cut from a keyed hash, see
// visitor-ids.ts). Small sets are kept exact (the ids themselves); past EXACT_LIMIT ids a set is
// promoted to a HyperLogLog of 2^14 one-byte registers, which has the same size as the largest
// exact set (16 KiB). Two sketches merge without loss: the union of two exact sets, or register
// by register maximum; so any range's count merges from its hours, days and months. Counted
// with Ertl's improved estimator ("New cardinality estimation algorithms for HyperLogLog
// sketches", 2017), which needs no bias tables and is unbiased from a few ids to billions: a
// relative standard error of about 1.04/sqrt(2^14) = 0.81% for dense sketches, none for exact.
// Pure logic, no I/O.

/** Register index bits: 2^14 registers. */
const P = 14;
const M = 1 << P;
/** Bits of an id left for the rank after the index. */
const Q = 53 - P;
/** Ids kept exactly up to this many (8 bytes each: the dense form's size). */
export const EXACT_LIMIT = M / 8;

const EXACT_TAG = 1;
const DENSE_TAG = 2;

/** The largest visitor id plus one. */
export const VISITOR_ID_SPACE = 2 ** 53;

export class VisitorSketch {
  #exact: Set<number> | null = new Set();
  #registers: Uint8Array | null = null;

  /** A sketch read back from encode()'s bytes; a TypeError when they are not one. */
  static decode(bytes: Uint8Array): VisitorSketch {
    const sketch = new VisitorSketch();
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes[0] === EXACT_TAG && (bytes.length - 1) % 8 === 0) {
      for (let at = 1; at < bytes.length; at += 8) sketch.#exact!.add(view.getFloat64(at, true));
      return sketch;
    }
    if (bytes[0] === DENSE_TAG && bytes.length === M + 1) {
      sketch.#exact = null;
      sketch.#registers = bytes.slice(1);
      return sketch;
    }
    throw new TypeError(`visitor sketch: ${bytes.length} bytes tagged ${bytes[0]} are not a sketch`);
  }

  /** The size of an exact set from encode()'s bytes without decoding it; null for a HyperLogLog. */
  static exactSizeOf(bytes: Uint8Array): number | null {
    return bytes[0] === EXACT_TAG && (bytes.length - 1) % 8 === 0 ? (bytes.length - 1) / 8 : null;
  }

  /**
   * The union of encode()'s bytes, all at once: the same sketch as decoding the first and
   * merge() of the others decoded (a union does not depend on its order: exact while the union
   * has at most EXACT_LIMIT ids, else the registers' maximum over every id and every dense
   * sketch), but with typed arrays: the exact sets' ids copied into one Float64Array, dense
   * registers merged by a max loop, and at most EXACT_LIMIT + 1 ids in a Set. Merging row by
   * row spent most of an early-stop page's time (docs/analytics-visitors.md). A TypeError when
   * some bytes are not a sketch; an empty exact sketch for no bytes.
   */
  static union(encoded: readonly Uint8Array[]): VisitorSketch {
    // One row (a ranking of one day reads one per page) needs no copy of its ids.
    if (encoded.length === 1) return VisitorSketch.decode(encoded[0]!);
    const sketch = new VisitorSketch();
    let registers: Uint8Array | null = null;
    let idCount = 0;
    for (const bytes of encoded) {
      const size = VisitorSketch.exactSizeOf(bytes);
      if (size !== null) idCount += size;
      else if (bytes[0] === DENSE_TAG && bytes.length === M + 1) {
        if (registers === null) registers = bytes.slice(1);
        else maxInto(registers, bytes);
      } else throw new TypeError(`visitor sketch: ${bytes.length} bytes tagged ${bytes[0]} are not a sketch`);
    }
    const ids = exactIds(encoded, idCount);
    if (registers === null) {
      const exact = sketch.#exact!;
      for (let i = 0; i < ids.length && exact.size <= EXACT_LIMIT; i++) exact.add(ids[i]!);
      if (exact.size <= EXACT_LIMIT) return sketch;
      registers = new Uint8Array(M);
    }
    for (let i = 0; i < ids.length; i++) addToRegisters(registers, ids[i]!);
    sketch.#exact = null;
    sketch.#registers = registers;
    return sketch;
  }

  /** Adds one id (an integer in [0, 2^53)). */
  add(id: number): void {
    if (this.#exact !== null) {
      this.#exact.add(id);
      if (this.#exact.size > EXACT_LIMIT) this.#promote();
    } else addToRegisters(this.#registers!, id);
  }

  /** Adds every id other holds (other is not changed). */
  merge(other: VisitorSketch): void {
    if (other.#exact !== null) {
      for (const id of other.#exact) this.add(id);
      return;
    }
    if (this.#exact !== null) this.#promote();
    const registers = this.#registers!;
    const theirs = other.#registers!;
    for (let i = 0; i < M; i++) if (theirs[i]! > registers[i]!) registers[i] = theirs[i]!;
  }

  /** Whether the count is exact (no id was dropped into registers). */
  get exact(): boolean {
    return this.#exact !== null;
  }

  /** The distinct ids added: exact while the sketch is, else the estimate rounded. */
  count(): number {
    if (this.#exact !== null) return this.#exact.size;
    return Math.round(estimate(this.#registers!));
  }

  encode(): Uint8Array {
    if (this.#exact === null) {
      const bytes = new Uint8Array(M + 1);
      bytes[0] = DENSE_TAG;
      bytes.set(this.#registers!, 1);
      return bytes;
    }
    const bytes = new Uint8Array(1 + 8 * this.#exact.size);
    bytes[0] = EXACT_TAG;
    const view = new DataView(bytes.buffer);
    let at = 1;
    for (const id of this.#exact) {
      view.setFloat64(at, id, true);
      at += 8;
    }
    return bytes;
  }

  #promote(): void {
    const registers = new Uint8Array(M);
    for (const id of this.#exact!) addToRegisters(registers, id);
    this.#exact = null;
    this.#registers = registers;
  }
}

/** The union's count of the given sketches (none of them is changed). */
export function unionCount(sketches: readonly (VisitorSketch | null)[]): number {
  const union = new VisitorSketch();
  for (const sketch of sketches) if (sketch !== null) union.merge(sketch);
  return union.count();
}

/** Whether a Float64Array holds a double's bytes in encode()'s order (little-endian). */
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** Every id of the exact sets among `encoded` (idCount of them), in one array. */
function exactIds(encoded: readonly Uint8Array[], idCount: number): Float64Array {
  const ids = new Float64Array(idCount);
  const out = new Uint8Array(ids.buffer);
  let at = 0;
  for (const bytes of encoded) {
    if (bytes[0] !== EXACT_TAG) continue;
    if (LITTLE_ENDIAN) out.set(bytes.subarray(1), at);
    else {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (let from = 1; from < bytes.length; from += 8)
        ids[(at + from - 1) / 8] = view.getFloat64(from, true);
    }
    at += bytes.length - 1;
  }
  return ids;
}

/** registers[i] = max(registers[i], dense[i + 1]): a dense sketch's bytes merged in. */
function maxInto(registers: Uint8Array, dense: Uint8Array): void {
  for (let i = 0; i < M; i++) {
    const rank = dense[i + 1]!;
    if (rank > registers[i]!) registers[i] = rank;
  }
}

function addToRegisters(registers: Uint8Array, id: number): void {
  // The id's two 32-bit halves, by exact double arithmetic: `id % M` on a number past 2^31 is a
  // floating-point remainder, several times slower, and an early-stop page adds a million ids.
  const high = Math.floor(id / 2 ** 32);
  const low = (id - high * 2 ** 32) >>> 0;
  const index = low & (M - 1);
  // The rest (Q bits: id / M) as its bits above 2^32 and its low 32 bits.
  const restHigh = high >>> P;
  const restLow = ((high << (32 - P)) | (low >>> P)) >>> 0;
  const bits = restHigh > 0 ? 64 - Math.clz32(restHigh) : 32 - Math.clz32(restLow);
  // The rank: leading zeros of the Q-bit rest, plus one (Q + 1 when the rest is zero).
  const rank = Q - bits + 1;
  if (rank > registers[index]!) registers[index] = rank;
}

/** Ertl's improved raw estimator (algorithm 6 of the paper). */
function estimate(registers: Uint8Array): number {
  const histogram = new Array<number>(Q + 2).fill(0);
  for (let i = 0; i < M; i++) histogram[registers[i]!]!++;
  let z = M * tau(1 - histogram[Q + 1]! / M);
  for (let k = Q; k >= 1; k--) z = 0.5 * (z + histogram[k]!);
  z += M * sigma(histogram[0]! / M);
  return (M * M) / (2 * Math.LN2 * z);
}

function sigma(x: number): number {
  if (x === 1) return Number.POSITIVE_INFINITY;
  let y = 1;
  let z = x;
  for (;;) {
    x *= x;
    const previous = z;
    z += x * y;
    y += y;
    if (z === previous) return z;
  }
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (;;) {
    x = Math.sqrt(x);
    const previous = z;
    y *= 0.5;
    z -= (1 - x) ** 2 * y;
    if (z === previous) return z / 3;
  }
}
