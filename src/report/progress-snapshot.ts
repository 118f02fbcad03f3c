/**
 * What every reporter shows: a snapshot of the job, taken a few times a second.
 */
import type { RowStatus } from '../row-status.js';

export interface TokenTotals {
  /** usageMetadata.promptTokenCount summed (tokens). */
  input: number;
  /** usageMetadata.candidatesTokenCount summed (tokens). */
  output: number;
  /** usageMetadata.thoughtsTokenCount summed (tokens). */
  thoughts: number;
}

export interface ProgressSnapshot {
  /** Rows with a result (this run and earlier runs). */
  done: number;
  /** Rows in the job. */
  total: number;
  /** Rows by status; rows without a result count as `pending`. */
  byStatus: Record<RowStatus, number>;
  /** Requests sent this run. */
  requests: number;
  /** HTTP 429 answers this run. */
  rateLimited: number;
  /** Requests sent again this run. */
  retries: number;
  inFlight: number;
  /** Tokens of this run and the journaled earlier runs. */
  tokens: TokenTotals;
  /** Since the run started, ms. */
  elapsedMs: number;
  /** Rows finished per second over the last ~30 s. */
  rowsPerSecond: number;
  /** Estimated time to finish, ms, a pause or park in force included ({@link estimateEta}); undefined while unknown. */
  etaMs: number | undefined;
  /**
   * What holds the run back now: `RPM`, `TPM`, `RPD`, `concurrency`, `429 pause`, `retry backoff`, `input` or
   * `last answers` (schedule/binding.ts); undefined before the first request.
   */
  binding: string | undefined;
  /** How long what binds still holds, ms, when that is known (a 429 pause, a daily park, a backoff); else undefined. */
  bindingLeftMs: number | undefined;
  /** Estimated cost so far in USD at list price, when the model's price is known. */
  costUsd: number | undefined;
  /** With --batch: the job's batches by state (`batches 2 running · 1 pending · 3 done`). */
  batches?: string;
  /** --rows-per-request when above 1: requests are then shown beside rows, as they no longer match. */
  rowsPerRequest?: number;
}

/** Keeps recent (time, done) samples to report a steady rows/s and an ETA. */
export class RateMeter {
  readonly #windowMs: number;
  #samples: Array<{ at: number; done: number }> = [];

  /**
   * @param windowMs how far back the rate looks, ms (default 30 s).
   * @param start the first sample: when counting began and how many rows were done then.
   */
  constructor(windowMs = 30_000, start?: { at: number; done: number }) {
    this.#windowMs = windowMs;
    if (start) this.#samples.push(start);
  }

  /** Records the count of rows done at `at` (ms) and returns rows/s over the window. */
  sample(at: number, done: number): number {
    this.#samples.push({ at, done });
    while (this.#samples.length > 2 && (this.#samples[0] as { at: number }).at < at - this.#windowMs) this.#samples.shift();
    const first = this.#samples[0] as { at: number; done: number };
    const seconds = (at - first.at) / 1000;
    return seconds > 0 ? (done - first.done) / seconds : 0;
  }
}

/**
 * Time to finish, ms: the rows left at the recent rate, after whatever holds every project now (a 429 pause, a daily
 * park) has passed. 0 when nothing is left; undefined while the rate is unknown (0).
 * @param holdMs how long sending is held still, ms (0 or undefined: not held).
 */
export function estimateEta(remaining: number, rowsPerSecond: number, holdMs: number | undefined): number | undefined {
  if (remaining <= 0) return 0;
  if (!(rowsPerSecond > 0)) return undefined;
  return Math.max(0, holdMs ?? 0) + (remaining / rowsPerSecond) * 1000;
}

/** `1h02m`, `4m05s`, `12s`. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/** `1,234,567`. */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** `1 row`, `2,048 rows`: a count with its noun, singular or plural. */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${formatCount(n)} ${Math.round(n) === 1 ? noun : plural}`;
}
