/**
 * Deterministic randomness for the simulator: a string hash and a seeded PRNG, so that a scenario with
 * the same seed gives the same faults, answers and latencies for the same prompts, whatever the
 * order in which concurrent requests arrive.
 */

/**
 * FNV-1a 32-bit hash of a string's UTF-16 code units. Fast (one pass, no allocation), not cryptographic.
 * @returns an unsigned 32-bit integer.
 */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Mixes several 32-bit integers into one well-spread 32-bit integer (murmur3 finalizer steps). */
export function mix32(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const v of values) {
    h ^= v >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** A seeded pseudo-random source: each call of `next()` gives a float in [0, 1). */
export interface Random {
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
}

/**
 * mulberry32 PRNG seeded with a 32-bit integer. Period 2^32, good enough for fault draws and jitter.
 */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
  };
}

/** The standard normal quantile of 0.99 (z such that P(Z < z) = 0.99). */
const Z99 = 2.326347874;

/**
 * Draws a latency in ms from a lognormal distribution given its median and 99th percentile:
 * mu = ln(p50), sigma = ln(p99 / p50) / z99. `p99Ms <= medianMs` gives a constant `medianMs`.
 * Uses the Box-Muller transform on two draws of `random`.
 */
export function lognormalMs(random: Random, medianMs: number, p99Ms: number): number {
  if (medianMs <= 0) return 0;
  if (p99Ms <= medianMs) return medianMs;
  const sigma = Math.log(p99Ms / medianMs) / Z99;
  const u1 = Math.max(random.next(), 1e-12);
  const u2 = random.next();
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return medianMs * Math.exp(sigma * z);
}

/**
 * Draws a delay from a {@link DelaySpec}-like description: lognormal (median, p99), clamped to [minMs, maxMs] when given.
 */
export function delayMs(random: Random, spec: { medianMs: number; p99Ms: number; minMs?: number; maxMs?: number } | undefined): number {
  if (!spec || spec.medianMs <= 0) return 0;
  const ms = lognormalMs(random, spec.medianMs, spec.p99Ms);
  return Math.min(spec.maxMs ?? Infinity, Math.max(spec.minMs ?? 0, ms));
}
