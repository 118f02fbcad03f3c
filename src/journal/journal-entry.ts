/**
 * One line of the job's journal (`<job-dir>/journal.jsonl`): the result of one finished row.
 * The contract between the job and src/journal.
 */
import type { BillingTier } from '../providers/contract.js';
import type { RowStatus } from '../row-status.js';

/** Token counts of a row, from usageMetadata summed over its attempts (tokens). */
export interface RowTokens {
  /** usageMetadata.promptTokenCount summed over attempts. */
  input: number;
  /** usageMetadata.candidatesTokenCount summed over attempts. */
  output: number;
  /** usageMetadata.thoughtsTokenCount summed over attempts. */
  thoughts: number;
}

/** Which packed request answered a row ({@link JournalEntry.pack}). */
export interface PackRef {
  id: string;
  item: string;
  rows: number;
}

export interface JournalEntry {
  /** Row id: `InputRecord.index`. */
  row: number;
  /** The fingerprint of the row's prompt inputs when it was sent (../job/answer-fingerprint.ts): what ties the entry to its row. */
  fp: string;
  /** Final status; never `pending` (a pending row has no entry). */
  status: Exclude<RowStatus, 'pending'>;
  /** The label (or the trimmed free text without --labels); null when there is none. */
  label: string | null;
  /** Structured output (--schema): one string per top-level property. Absent otherwise. */
  fields?: Record<string, string>;
  /** The model's raw answer text, before normalization; null when there was none. */
  raw: string | null;
  /** finishReason of the last answer, or the prompt's blockReason; null when no answer came. */
  finishReason: string | null;
  /** Why the row is not `ok`; null when it is. */
  error: string | null;
  tokens: RowTokens;
  /** Requests sent for this row, this run and earlier ones. */
  attempts: number;
  /** Alias of the key that answered last (`key-1 …x7Qa`), never the key. */
  key: string | null;
  /**
   * The billing tier the row's tokens are counted at: the tier its answers were served at (the dearer one when they
   * differ), the Batch API's for rows answered there. Absent: `standard` (written only when another).
   */
  tier?: BillingTier;
  /**
   * The pack whose answer gave the row its result (--rows-per-request): the pack's id (unique in the job), the row's id
   * in that request, and how many rows it carried. Absent for a row answered by a request of its own.
   */
  pack?: PackRef;
  /** When the row finished, ISO 8601 UTC. */
  time: string;
}
