/**
 * A row on its way through the scheduler, and what becomes of it.
 */
import type { JournalEntry, RowTokens } from '../journal/journal-entry.js';
import type { BillingTier } from '../providers/contract.js';
import type { RequestVariant } from '../prompt/build-request.js';
import type { ModelRequest } from '../providers/contract.js';

/**
 * What one request carries: a row, or a pack of rows (`pack`, --rows-per-request). Created by the job for each row
 * without a result, and for each pack of them (../job/pack-rows.ts); mutated only by the dispatcher. A pack's own
 * fields (`attempts`, `sent`, `notBefore`…) are the pack's; its rows keep theirs for the journal.
 */
export interface WorkItem {
  /** Row id (InputRecord.index); of a pack, its first row's. */
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
  /** The rows this request carries when it is a pack of two or more; absent for one row. */
  pack?: PackContent;
  /**
   * Counted attempts of the packs that carried this row this run (answered, or failed in a way that counts): journaled
   * in `attempts` with the row's own, but not bounded by --max-attempts (a pack's own attempts are).
   */
  packAttempts?: number;
  /** Sent before in a pack and now sent again (alone or in a smaller pack): its next request counts as a retry. */
  resent?: boolean;
}

/**
 * A work item that has not been sent yet and has no earlier run behind it: no attempts, no usage, no backoff. `row`,
 * `cells`, `fingerprint` and `features` as in {@link WorkItem}; the caller sets anything else (a pack, earlier runs).
 */
export function freshWorkItem(row: number, cells: string[], fingerprint: string, features: Float64Array): WorkItem {
  return {
    row,
    cells,
    fingerprint,
    features,
    attempts: 0,
    earlierAttempts: 0,
    notBefore: 0,
    variant: undefined,
    retriedFor: new Set(),
    usage: { input: 0, output: 0, thoughts: 0 },
    earlierUsage: { input: 0, output: 0, thoughts: 0 },
    lastError: null,
    key: null,
  };
}

/** The rows of a pack and its request (../prompt/pack-request.ts, ../job/pack-rows.ts). */
export interface PackContent {
  /** The pack's id in the journal: unique in the job (`<run tag>.<n>`). */
  id: string;
  /** Its rows in input order, two or more. */
  rows: WorkItem[];
  /** Each row's id in the request, by position. */
  ids: string[];
  /** Each row's weight in the split of the request's input tokens (its item's estimated tokens, ≥ 1), by position. */
  weights: number[];
  /** The request, built once. */
  request: ModelRequest;
}

/** What a packed answer means for one of its rows: its result, or why it is sent again (../answers/judge-pack.ts). */
export type PackRowVerdict = { kind: 'done'; outcome: RowOutcome } | { kind: 'again'; reason: string };

/** The final outcome of a row: what the journal records of it beside its id, tokens and attempts. */
export type RowOutcome = Pick<JournalEntry, 'status' | 'label' | 'fields' | 'raw' | 'finishReason' | 'error' | 'pack'>;

/**
 * The fields of a row's journal entry that its outcome gives, in the journal line's order: status, label, fields (when
 * the outcome has any), raw, finishReason, error. Not `pack`: the caller adds it where packs can be.
 */
export function outcomeEntryFields(outcome: RowOutcome): Pick<JournalEntry, 'status' | 'label' | 'fields' | 'raw' | 'finishReason' | 'error'> {
  return {
    status: outcome.status,
    label: outcome.label,
    ...(outcome.fields ? { fields: outcome.fields } : {}),
    raw: outcome.raw,
    finishReason: outcome.finishReason,
    error: outcome.error,
  };
}

/** What the job makes of an HTTP 200 answer. */
export type Verdict =
  | { kind: 'final'; outcome: RowOutcome }
  /** Send again (once per `retryKind`), with `variant`; when attempts are exhausted, `fallback` is final. */
  | { kind: 'retry'; retryKind: string; variant: RequestVariant | undefined; fallback: RowOutcome };

/** What the job makes of the answer to a work item: a row's {@link Verdict}, or a pack's, one verdict per row by position. */
export type ItemVerdict = Verdict | { kind: 'pack'; rows: PackRowVerdict[] };
