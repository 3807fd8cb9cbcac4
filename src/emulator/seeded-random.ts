/**
 * Small deterministic hashing and random numbers. Everything the emulator invents (paths, counts,
 * job fields, fault draws) comes from these, so a seed reproduces the same data on any machine.
 */

/** Murmur3's 32-bit finalizer: spreads every input bit over the whole word. */
export function fmix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes two 32-bit words into one; the hot path of window generation (one call per path and field). */
export function hash2(a: number, b: number): number {
  return fmix32(fmix32(a ^ 0x9e3779b9) ^ Math.imul(b | 0, 0x27d4eb2d) ^ 0x165667b1);
}

/** Hashes any number of numbers (non-integers and values beyond 32 bits included) into 32 bits. */
export function hashNumbers(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    // Split into two 32-bit halves so epoch milliseconds keep all their bits.
    const lo = part % 0x1_0000_0000 | 0;
    const hi = Math.floor(part / 0x1_0000_0000) | 0;
    h = hash2(hash2(h, lo), hi);
  }
  return h;
}

/** FNV-1a over UTF-16 code units, finalized; stable for any string. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** Maps a 32-bit hash to [0, 1). */
export function unitFloat(hash: number): number {
  return (hash >>> 0) / 0x1_0000_0000;
}

/** A seeded generator of floats in [0, 1) (mulberry32): fast, small state, good enough for test data. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

/** Shuffles a copy of `items` with a seeded Fisher–Yates. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const random = createRandom(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
