// A small seeded PRNG (mulberry32) and a Zipf sampler, so every benchmark run loads the same data.

export type Random = () => number;

/** Uniform in [0, 1), deterministic for a seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Ranks 0..n-1 with P(rank k) proportional to 1 / (k + 1)^exponent: the popularity curve of
 * pages on a docs site (a few pages take most views, a long tail is seen rarely).
 */
export function zipfSampler(n: number, exponent: number, random: Random): () => number {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) {
    sum += 1 / (k + 1) ** exponent;
    cumulative[k] = sum;
  }
  return () => {
    const target = random() * sum;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (cumulative[mid]! < target) low = mid + 1;
      else high = mid;
    }
    return low;
  };
}

/** Picks from weighted choices. */
export function weightedPicker<T>(choices: readonly (readonly [T, number])[], random: Random): () => T {
  const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
  return () => {
    let target = random() * total;
    for (const [value, weight] of choices) {
      target -= weight;
      if (target < 0) return value;
    }
    return choices[choices.length - 1]![0];
  };
}
