/**
 * The rows a run has to send, in input order: every record of the job without a result in the journal — plus, with
 * `--retry-errors`, the rows that ended failed, blocked, invalid_label or invalid_output, and on every run the rows that
 * were skipped as too long (a larger --max-input-tokens may now admit them). Streams the input: only the scheduler's
 * read-ahead is held in memory.
 */
import type { InputSource, RecordPosition } from '../input/input-source.js';
import type { Journal } from '../journal/journal.js';
import { RETRYABLE_STATUSES } from '../row-status.js';
import type { TokenEstimator } from '../schedule/token-estimator.js';
import type { RowOutcome, WorkItem } from '../schedule/work-item.js';

export interface RowSourceOptions {
  input: InputSource;
  /** Rows of the job (records past it are not read). */
  total: number;
  journal: Journal;
  retryErrors: boolean;
  /** Token features of a row's whole request (prompt + system instruction + schema). */
  features(cells: readonly string[]): Float64Array;
  estimator: TokenEstimator;
  /** Rows estimated above this many input tokens are not sent (`skipped`). */
  maxInputTokens: number;
  /** Receives rows finished without a request (skipped). */
  onSkipped(item: WorkItem, outcome: RowOutcome): void;
  /** Where records start (every 50,000th), to begin reading near the first row to send. */
  checkpoints: readonly RecordPosition[];
  /** The fingerprint tying a row to its answer (./answer-fingerprint.ts), journaled with it. */
  fingerprint(cells: readonly string[]): string;
  /**
   * Only the rows this admits, asked when the row is reached (--batch: rows not held by a batch, or the rows a batch
   * gave to the online path). Default: every row.
   */
  select?(row: number): boolean;
}

/** Yields a {@link WorkItem} for each row to send. @throws InputError from reading the input. */
export async function* rowsToSend(o: RowSourceOptions): AsyncGenerator<WorkItem> {
  const wanted = (row: number) => {
    if (o.select && !o.select(row)) return false;
    const status = o.journal.status(row);
    return status === undefined || status === 'skipped' || (o.retryErrors && RETRYABLE_STATUSES.has(status));
  };
  let first = 0;
  while (first < o.total && !wanted(first)) first++;
  if (first >= o.total) return;
  const from = [...o.checkpoints].reverse().find((c) => c.index <= first && c.index > 0);
  for await (const record of o.input.records(from ? { from } : {})) {
    if (record.index >= o.total) break;
    if (!wanted(record.index)) continue;
    const status = o.journal.status(record.index);
    const features = o.features(record.cells);
    const previous = status !== undefined ? o.journal.get(record.index) : undefined;
    const item: WorkItem = {
      row: record.index,
      cells: record.cells,
      fingerprint: o.fingerprint(record.cells),
      features,
      attempts: 0,
      earlierAttempts: previous?.attempts ?? 0,
      earlierUsage: previous ? { ...previous.tokens } : { input: 0, output: 0, thoughts: 0 },
      ...(previous ? { earlierTier: previous.tier ?? 'standard' } : {}),
      notBefore: 0,
      variant: undefined,
      retriedFor: new Set(),
      usage: { input: 0, output: 0, thoughts: 0 },
      lastError: null,
      key: null,
    };
    if (record.cells.every((cell) => cell.trim() === '')) {
      if (status !== 'skipped') o.onSkipped(item, { status: 'skipped', label: null, raw: null, finishReason: null, error: 'every cell of the row is empty' });
      continue;
    }
    const estimate = o.estimator.estimate(features);
    if (estimate > o.maxInputTokens) {
      if (status !== 'skipped') {
        o.onSkipped(item, {
          status: 'skipped',
          label: null,
          raw: null,
          finishReason: null,
          error: `prompt of about ${estimate} input tokens is over --max-input-tokens ${o.maxInputTokens}`,
        });
      }
      continue;
    }
    yield item;
  }
}
