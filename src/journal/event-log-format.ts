/**
 * The grammar of the job's event log (`<job-dir>/events.log`): what the HTML run report draws from. Text, one record
 * a line, fields separated by one space, every line ending with `\n`; a reader skips a torn last line, lines it cannot
 * parse and record types it does not know. Times are ms since the run's `t0` (seconds for aggregates).
 *
 * ```
 * #gemini-batch events 1                                   first line of the file: format 1
 * R {"run":"2026-…#123","t0":1767268800000,"model":"gemini-2.5-flash","zone":"PT"}   a run starts (run = runs.jsonl's id)
 * J 0 "acme-prod"                                          project 0 of this run
 * P 0 0 "key-1 …x7Qa"                                      pool 0 (a key, by alias — never the key) of project 0
 * Q 0 "GenerateRequestsPerMinutePerProjectPerModel"        quotaId 0 of this run
 * q 1234 2310 0 512 3 200                                  a request: sent at, latency ms, pool, input and output tokens, outcome
 * q 1240 35 0 0 0 429 0                                    … a 429 naming quotaIds 0 (a comma-separated list)
 * a 61 0 12 6144 36 200x10,503x1,429:0x1 20:3,21:7        per-second aggregate of project 0's requests sent in second 61
 * f 2000 0 17 40                                           project 0: most requests in flight over the last second, concurrency bound
 * L 0 0 1000 1000000 -                                     project 0's limits in force: RPM, TPM, RPD (- none)
 * H 5000 0 pause 6500 "RPM 1,000 reached (GenerateRequests…)"   project 0 holds: pause|park|disabled|none, until (ms from t0), why
 * b 250 rpm                                                what held the run back from then on (schedule/binding.ts)
 * E 9000                                                   the run closed its log
 * ```
 * Outcomes: the HTTP status of the answer (`200`, `429`, `503`, `400`…), `t` timeout, `c` no connection, `b` the account
 * cannot pay, `x` cancelled (Ctrl-C). Latency buckets of aggregates are {@link latencyBucket}s, `bucket:count` pairs.
 *
 * Size: request lines (`q`) are written while the file is under {@link DETAIL_BUDGET_BYTES}; beyond it, requests are
 * summed per second and project (`a` lines, additive: a second may have several). The other lines are bounded by time
 * (at most a few a second). bench/event-log.mjs measures a 1,000,000-row job (bench/RESULTS.md).
 */

/** The first line of an event log of this format. */
export const EVENT_LOG_MAGIC = '#gemini-batch events 1';

/** Request lines are written while the file is smaller than this; then per-second aggregates (bytes). */
export const DETAIL_BUDGET_BYTES = 16 * 1024 * 1024;

/** Ratio between the bounds of successive latency buckets: a percentile read from them is within ±5 %. */
export const LATENCY_BUCKET_RATIO = 1.1;
const LOG_RATIO = Math.log(LATENCY_BUCKET_RATIO);

/** The histogram bucket of a latency (ms): 0 for ≤ 1 ms, else ceil(log₁.₁ ms) — bucket i holds (1.1^(i−1), 1.1^i]. */
export function latencyBucket(ms: number): number {
  return ms <= 1 ? 0 : Math.ceil(Math.log(ms) / LOG_RATIO - 1e-9);
}

/** The latency a bucket stands for (ms): the geometric middle of its bounds. */
export function bucketLatency(bucket: number): number {
  return bucket <= 0 ? 1 : LATENCY_BUCKET_RATIO ** (bucket - 0.5);
}

/** What a request came to: an HTTP status, or `t` timeout, `c` no connection, `b` billing refused, `x` cancelled. */
export type RequestOutcome = number | 't' | 'c' | 'b' | 'x';

/** What a project's hold is: paused by a 429, parked by a daily quota, disabled (no quota), or none. */
export type HoldKind = 'pause' | 'park' | 'disabled' | 'none';

/** The run header (`R` line). */
export interface EventRunHeader {
  /** The run's id in runs.jsonl (`startedAt#pid`). */
  run: string;
  /** When the run started, ms since epoch: the origin of every time of the run's lines. */
  t0: number;
  model: string;
  /** The provider's quota-day zone (`PT`, `UTC`): how days are counted for RPD. */
  zone?: string;
  /** The provider (`gemini`, `vertex`, `openai`): its quota day counts requests per day. */
  provider?: string;
}
