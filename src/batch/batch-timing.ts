/**
 * How long the batch runner waits between things (docs/batch-runner.md "Polling"): a batch is polled after seconds at
 * first and minutes later (the cookbook polls every 30 s; a batch takes up to 24 h), a create refused with 429 waits
 * minutes (the refusal names no quota and no retryDelay, docs/batch-runner.md "Limits"), and a call that failed on the
 * way (5xx, a reset, a timeout) is tried again after seconds, doubling.
 */

export interface BatchTiming {
  /** The first poll of a batch, ms after its create (or at once on resume: 0 is used then). @default 5,000 */
  firstPollMs: number;
  /** The longest time between two polls of a batch, ms (--batch-poll). @default 300,000 */
  pollCapMs: number;
  /** Each interval is the previous one times this, up to the cap. @default 1.5 */
  pollGrowth: number;
  /** The first wait after a create refused with 429, ms; doubled after each one. @default 60,000 */
  createBackoffMs: number;
  /** The longest wait after a refused create, ms. @default 1,800,000 */
  createBackoffMaxMs: number;
  /** The first wait after a call failed on the way (5xx, connection, timeout), ms; doubled after each. @default 2,000 */
  retryMs: number;
  /** The longest such wait, ms. @default 300,000 */
  retryMaxMs: number;
  /** Failures on the way in a row after which the run stops (exit 3, batches keep running). @default 12 */
  outageAfter: number;
}

/** The defaults above; `pollCapMs` from --batch-poll when given. */
export function batchTiming(pollCapMs?: number): BatchTiming {
  const cap = pollCapMs ?? 300_000;
  return {
    firstPollMs: Math.min(5_000, cap),
    pollCapMs: cap,
    pollGrowth: 1.5,
    createBackoffMs: 60_000,
    createBackoffMaxMs: 1_800_000,
    retryMs: Math.min(2_000, cap),
    retryMaxMs: 300_000,
    outageAfter: 12,
  };
}

/** The interval after `previousMs` (undefined: the first poll). */
export function nextPollInterval(previousMs: number | undefined, timing: BatchTiming): number {
  if (previousMs === undefined) return Math.min(timing.firstPollMs, timing.pollCapMs);
  return Math.min(Math.max(previousMs, 1) * timing.pollGrowth, timing.pollCapMs);
}

/** The wait after the `n`-th failure in a row (1-based), `base` doubling up to `max`. */
export function backoffMs(n: number, base: number, max: number): number {
  return Math.min(base * 2 ** Math.max(0, n - 1), max);
}
