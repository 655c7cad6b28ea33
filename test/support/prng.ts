// Seeded pseudo-random numbers for tests and the benchmark, so a failure or a figure replays
// exactly from its seed. One generator (mulberry32) and the few shapes the suites draw.

/** mulberry32: small, fast and seeded; uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Plain functions, not methods: `const pick = rng.below` is fine. */
export interface Rng {
  /** Uniform in [0, 1). */
  next: () => number;
  /** An integer in [lo, hi], both included. */
  int: (lo: number, hi: number) => number;
  /** An integer in [0, n). */
  below: (n: number) => number;
  pick: <T>(items: readonly T[]) => T;
  /** True with probability p. */
  chance: (p: number) => boolean;
}

export function prng(seed: number): Rng {
  const next = mulberry32(seed);
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    below: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

/** A copy of `items` in an order fixed by `seed` (Fisher-Yates). */
export function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = items.slice();
  const rng = prng(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
