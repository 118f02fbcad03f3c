/**
 * The options of `classify --batch` (the Gemini Batch API: half price, answers within 24 h), parsed and checked once,
 * up front (exit 2 on any problem). Names from the CLI contract: `--batch`, `--batch-size <rows>`, `--batch-poll <s>`,
 * `--batch-deadline <duration>`, `--batch-fallback online`.
 */
import parseDuration from 'parse-duration';
import { UsageError } from '../errors.js';
import type { ProviderName } from '../providers/contract.js';
import { nonNegativeNumber, positiveInt } from './option-values.js';

/** Options as commander hands them over. */
export interface RawBatchOptions {
  batch?: boolean;
  batchSize?: string;
  batchPoll?: string;
  batchDeadline?: string;
  batchFallback?: string;
}

/** `--batch` and its settings. */
export interface BatchConfig {
  /** Rows per batch at most (--batch-size). @default 10,000 */
  size: number;
  /** The longest time between two polls of a batch, ms (--batch-poll); undefined: the runner's default (5 min). */
  pollMs: number | undefined;
  /** A batch still PENDING this long after its create is cancelled and its rows sent online, ms (--batch-deadline). */
  deadlineMs: number | undefined;
  /** Rows of FAILED or EXPIRED batches are sent online, not in a later batch (--batch-fallback online). */
  fallbackOnline: boolean;
}

/** @default 10,000 rows per batch. */
export const DEFAULT_BATCH_SIZE = 10_000;

/**
 * `--batch` and its settings, or undefined without --batch.
 * @throws UsageError `OPTION_CONFLICT` (a --batch-* option without --batch; --batch with a provider that has no batch
 *   service here) or `OPTION_INVALID`.
 */
export function batchOptions(raw: RawBatchOptions, provider: ProviderName): BatchConfig | undefined {
  if (!raw.batch) {
    const given = (['batchSize', 'batchPoll', 'batchDeadline', 'batchFallback'] as const).find((k) => raw[k] !== undefined);
    if (given) throw new UsageError('OPTION_CONFLICT', `--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --batch.`);
    return undefined;
  }
  if (provider !== 'gemini') {
    throw new UsageError('OPTION_CONFLICT', `--batch sends rows through the Gemini API's Batch API; --provider ${provider} has none that gemini-batch drives. Leave out --batch, or use --provider gemini.`);
  }
  const pollSeconds = nonNegativeNumber('--batch-poll', raw.batchPoll);
  if (pollSeconds !== undefined && pollSeconds <= 0) throw new UsageError('OPTION_INVALID', `--batch-poll must be a number of seconds above 0, got ${JSON.stringify(raw.batchPoll)}.`);
  if (raw.batchFallback !== undefined && raw.batchFallback !== 'online') {
    throw new UsageError('OPTION_INVALID', `--batch-fallback takes one value, online (rows of failed or expired batches are sent online), got ${JSON.stringify(raw.batchFallback)}.`);
  }
  return {
    size: positiveInt('--batch-size', raw.batchSize) ?? DEFAULT_BATCH_SIZE,
    pollMs: pollSeconds !== undefined ? Math.max(1, Math.round(pollSeconds * 1000)) : undefined,
    deadlineMs: durationMs('--batch-deadline', raw.batchDeadline),
    fallbackOnline: raw.batchFallback === 'online',
  };
}

/**
 * A duration with its unit (`90m`, `6h`, `1h30m`, `2d`; parse-duration), ms; undefined when absent.
 * @throws UsageError `OPTION_INVALID` for a bare number, an unknown unit, or a duration not above 0.
 */
export function durationMs(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = /[a-z]/i.test(value) ? parseDuration(value.trim()) : null;
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0) {
    throw new UsageError('OPTION_INVALID', `${name} must be a duration with its unit, such as 90m, 6h or 1h30m, got ${JSON.stringify(value)}.`);
  }
  return Math.round(ms);
}
