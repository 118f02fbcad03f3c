/**
 * A row on its way through the scheduler, and what becomes of it.
 */
import type { JournalEntry, RowTokens } from '../journal/journal-entry.js';
import type { BillingTier } from '../providers/contract.js';
import type { RequestVariant } from '../prompt/build-request.js';

/** A row to send. Created by the job for each row without a result; mutated only by the dispatcher. */
export interface WorkItem {
  /** Row id (InputRecord.index). */
  row: number;
  cells: string[];
  fingerprint: string;
  /** Token features of the request text (schedule/token-estimator.ts), fixed for the row. */
  features: Float64Array;
  /**
   * Attempts of this row counted this run: what --max-attempts bounds. Every answered request counts; a failed one as
   * ./failure-policy.ts says (not a refused key, a daily 429, our own sockets running out, or a transient failure while
   * the endpoint fails for every row).
   */
  attempts: number;
  /** Requests sent for this row this run, counted or not (the dispatcher's; absent before the first). */
  sent?: number;
  /** Requests sent for this row by earlier runs (journaled), added to `attempts` in the journal. */
  earlierAttempts: number;
  /** Not to be sent before this time, ms (backoff). 0: as soon as possible. */
  notBefore: number;
  /** How the next request differs from the first (after MAX_TOKENS…). */
  variant: RequestVariant | undefined;
  /** Answer-level retries already used, by kind (`max-tokens`, `invalid-label`…); each kind is tried once. */
  retriedFor: Set<string>;
  /** usageMetadata summed over this run's answers (tokens). */
  usage: RowTokens;
  /** Tokens the row's journaled result already counted (earlier runs), added to `usage` in the journal. */
  earlierUsage: RowTokens;
  /** The billing tier of the row's journaled result (JournalEntry.tier), when it had one. */
  earlierTier?: BillingTier;
  /** The tier this run's answers were billed at, the dearer when they differ (set by the job on each answer). */
  tier?: BillingTier;
  /** The last failure, for the `error` column when attempts run out. */
  lastError: string | null;
  /** Alias of the key that sent the last request. */
  key: string | null;
}

/** The final outcome of a row: what the journal records of it beside its id, tokens and attempts. */
export type RowOutcome = Pick<JournalEntry, 'status' | 'label' | 'fields' | 'raw' | 'finishReason' | 'error'>;

/** What the job makes of an HTTP 200 answer. */
export type Verdict =
  | { kind: 'final'; outcome: RowOutcome }
  /** Send again (once per `retryKind`), with `variant`; when attempts are exhausted, `fallback` is final. */
  | { kind: 'retry'; retryKind: string; variant: RequestVariant | undefined; fallback: RowOutcome };
