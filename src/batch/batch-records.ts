/**
 * The records of a job's batch log (`<job-dir>/batches.jsonl`, ./batch-log.ts): one JSON object a line, appended in
 * the order things happen to each batch of rows ("chunk"), so that a run killed at any moment finds on disk what it
 * had done and what it had only begun (docs/batch-runner.md "The batch log"):
 *
 * `job` (once) → `chunk` (our JSONL copy written, its rows) → `upload` (the Files API's name) → `intent` (about to
 * create, under a display name unique to the chunk) → `created` (the batch's name) → `state`* (what `get` said) →
 * `cancel`? → `end` (results journaled, or the chunk given up; rows that go to a later batch or online).
 */
import type { BatchCounts, BatchState } from '../providers/contract.js';
import type { RowTokens } from '../journal/journal-entry.js';

/** Sorted, disjoint, inclusive row ranges: `[[0, 499], [812, 812]]`. */
export type RowRanges = Array<[number, number]>;

/**
 * A row carried from one batch to the next (or online) with what it has been through: the requests it took, the
 * tokens they used, the answer-level retries spent, the request variant and the last error.
 */
export interface CarriedRow {
  row: number;
  /** Requests (batch lines) sent for the row so far, earlier runs' journaled ones included. */
  attempts: number;
  /** usageMetadata summed over the row's answers so far. */
  tokens: RowTokens;
  /** Answer-level retry kinds already used (`max-tokens`, `invalid-label`…), each tried once as online. */
  retried?: string[];
  /** The next request asks for more output room (RequestVariant.moreOutput). */
  moreOutput?: boolean;
  /** Why the row is not finished yet: the last line error or answer problem. */
  error?: string;
}

/** The first record: the job's tag, which makes the display names of its batches unique. */
export interface JobRecord {
  t: 'job';
  /** 12 hex characters. */
  tag: string;
  at: string;
}

/** A chunk of rows written to our own JSONL copy, not yet uploaded. */
export interface ChunkRecord {
  t: 'chunk';
  /** `b0001`, `b0002`… in the job. */
  id: string;
  /** The copy, relative to the job directory (`batches/b0001.jsonl`). */
  file: string;
  sha256: string;
  bytes: number;
  lines: number;
  /** Input tokens estimated for its lines (what it holds of the enqueued-token quota). */
  tokens: number;
  rows: RowRanges;
  /** Rows that had a journal entry when the chunk was made (--retry-errors): collected only if none came since. */
  again: RowRanges;
  /** The journal's size when the chunk was made, bytes: an entry at or past it came after. */
  journalEnd: number;
  /** Rows carried from earlier batches, with their history. */
  carry: CarriedRow[];
  at: string;
}

export interface UploadRecord {
  t: 'upload';
  id: string;
  /** `files/abc123`. */
  file: string;
  /** When the Files API deletes it, ms since epoch (48 h after upload), if it said. */
  expiresAt?: number;
  /** Alias of the key it was uploaded with: the batch must be created in the same project. */
  key?: string;
  at: string;
}

/** Written (and synced) before the create call: a create whose answer is lost is found again by `displayName`. */
export interface IntentRecord {
  t: 'intent';
  id: string;
  displayName: string;
  /** Alias of the key the batch is created with (batches belong to the key's project). */
  key: string;
  at: string;
}

export interface CreatedRecord {
  t: 'created';
  id: string;
  /** `batches/xyz`. */
  name: string;
  createTime?: string;
  /** True when the name was recovered by looking for the display name (the create's answer was lost). */
  found?: boolean;
  at: string;
}

export interface StateRecord {
  t: 'state';
  id: string;
  state: BatchState;
  detail?: string;
  counts?: BatchCounts;
  error?: string;
  at: string;
}

export interface CancelRecord {
  t: 'cancel';
  id: string;
  /** Who asked: `deadline` (--batch-deadline) or `user` (gemini-batch cancel). */
  by: 'deadline' | 'user';
  at: string;
}

/** The chunk is finished with: its rows have entries, or go to a later batch (`requeue`) or online (`online`). */
export interface EndRecord {
  t: 'end';
  id: string;
  /** `collected`: its results were read; `dropped`: it never became a batch, or the batch is gone without results. */
  how: 'collected' | 'dropped';
  /** The batch's last state, when it became one. */
  state?: BatchState;
  reason?: string;
  /** Rows journaled from its results. */
  journaled: number;
  /** Of them, rows `ok`. */
  ok: number;
  requeue: CarriedRow[];
  online: CarriedRow[];
  at: string;
}

export type BatchRecord = JobRecord | ChunkRecord | UploadRecord | IntentRecord | CreatedRecord | StateRecord | CancelRecord | EndRecord;

/** The ranges of ascending row ids. */
export function toRanges(rows: Iterable<number>): RowRanges {
  const out: RowRanges = [];
  for (const row of rows) {
    const last = out.at(-1);
    if (last && row === last[1] + 1) last[1] = row;
    else out.push([row, row]);
  }
  return out;
}

/** The rows of `ranges`, ascending. */
export function* rowsOf(ranges: RowRanges): Generator<number> {
  for (const [first, last] of ranges) for (let row = first; row <= last; row++) yield row;
}

/** How many rows `ranges` hold. */
export function rangeSize(ranges: RowRanges): number {
  return ranges.reduce((n, [first, last]) => n + last - first + 1, 0);
}

/** True when `value` has the shape of a record this version writes (checked on reading the log). */
export function isBatchRecord(value: unknown): value is BatchRecord {
  if (value === null || typeof value !== 'object') return false;
  const r = value as Record<string, unknown>;
  if (typeof r.at !== 'string') return false;
  switch (r.t) {
    case 'job':
      return typeof r.tag === 'string';
    case 'chunk':
      return typeof r.id === 'string' && typeof r.file === 'string' && typeof r.sha256 === 'string' && Array.isArray(r.rows) && Array.isArray(r.again) && Array.isArray(r.carry) && typeof r.journalEnd === 'number';
    case 'upload':
      return typeof r.id === 'string' && typeof r.file === 'string';
    case 'intent':
      return typeof r.id === 'string' && typeof r.displayName === 'string' && typeof r.key === 'string';
    case 'created':
      return typeof r.id === 'string' && typeof r.name === 'string';
    case 'state':
      return typeof r.id === 'string' && typeof r.state === 'string';
    case 'cancel':
      return typeof r.id === 'string';
    case 'end':
      return typeof r.id === 'string' && (r.how === 'collected' || r.how === 'dropped') && Array.isArray(r.requeue) && Array.isArray(r.online);
    default:
      return false;
  }
}
