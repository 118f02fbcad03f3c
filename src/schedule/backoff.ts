/**
 * Backoff with jitter for transient failures (HTTP 500/503/504, resets, timeouts), "full jitter" as in
 * https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/ : a uniform wait in [0, min(cap, base·2ⁿ⁻¹)].
 */

/** Base of the exponential backoff, ms. */
export const BACKOFF_BASE_MS = 1_000;
/** Cap of the exponential backoff, ms. */
export const BACKOFF_CAP_MS = 60_000;

/**
 * Full-jitter delay before retry number `attempt` (1 = the first retry), ms.
 * @param random a uniform [0, 1) source (Math.random by default; seeded in tests).
 */
export function fullJitterDelay(attempt: number, random: () => number = Math.random, baseMs = BACKOFF_BASE_MS, capMs = BACKOFF_CAP_MS): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * "Equal jitter": half fixed, half random, in [c/2, c] with c = min(cap, base·2ⁿ⁻¹) — used where some wait is required
 * (a project-wide pause after a 429 that gave no retryDelay), ms.
 */
export function equalJitterDelay(attempt: number, random: () => number = Math.random, baseMs = BACKOFF_BASE_MS, capMs = BACKOFF_CAP_MS): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(ceiling / 2 + random() * (ceiling / 2));
}

/** A server-given wait plus up to 10 % (at least 50 ms, at most 2 s) of jitter, so paused pools do not restart in lockstep, ms. */
export function serverDelayWithJitter(retryDelayMs: number, random: () => number = Math.random): number {
  const spread = Math.min(2_000, Math.max(50, retryDelayMs * 0.1));
  return Math.ceil(retryDelayMs + random() * spread);
}
