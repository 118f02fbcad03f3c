/**
 * The simulator's Batch API model: the scenario's `batch` block ({@link BatchScenario}: the accelerated clock, limits
 * and scripted cases) and what tests read back ({@link BatchStats} in `GET /__sim/stats`, {@link BatchEvent}s).
 * Facts behind it: docs/batch-api.md. The file format is documented in ./README.md ("Batch API").
 */

/** REST states of a batch (`metadata.state`; the SDK maps them to `JOB_STATE_*`). docs/batch-api.md "States". */
export type BatchState =
  | 'BATCH_STATE_PENDING'
  | 'BATCH_STATE_RUNNING'
  | 'BATCH_STATE_SUCCEEDED'
  | 'BATCH_STATE_FAILED'
  | 'BATCH_STATE_CANCELLED'
  | 'BATCH_STATE_EXPIRED';

/** How a scripted batch ends: `PENDING` stays pending until it expires. */
export type BatchEnd = 'SUCCEEDED' | 'FAILED' | 'EXPIRED' | 'PENDING';

/**
 * Which lines (or batches) a scripted case applies to: lines whose `key` is in `keys`, or a seeded `fraction` of
 * lines, on their first `times` attempts (attempt = the n-th batch that carries that key, or that prompt text when a
 * line has no key). Neither `keys` nor `fraction`: every line.
 */
export interface LineSelector {
  keys?: string[];
  /** Probability per line and attempt, in [0, 1]. */
  fraction?: number;
  /** Applies on attempts 1..times only. @default every attempt */
  times?: number;
}

/** A per-line error: the line's result is `{"error": {code, message}}` with a gRPC code. */
export interface LineErrorRule extends LineSelector {
  /** gRPC code: 13 INTERNAL, 3 INVALID_ARGUMENT, 4, 8, 14… */
  code: number;
  /** @default the code's usual message (batch-answers.ts) */
  message?: string;
}

/** A blocked line: `promptFeedback.blockReason` and no candidates. */
export interface BlockedRule extends LineSelector {
  /** @default 'PROHIBITED_CONTENT' */
  blockReason: string;
}

/**
 * How a whole batch ends. Selected by creation order (`nth`: 1 = the first batch the simulator creates), by a line key
 * it carries (`containsKey`), by its displayName (`displayNameIncludes`), or none of them: every batch; `times` limits
 * how many batches the rule applies to.
 */
export interface JobRule {
  end: BatchEnd;
  nth?: number[];
  containsKey?: string;
  displayNameIncludes?: string;
  /** The rule applies to at most this many batches. @default unlimited */
  times?: number;
}

/** Where results go: as the input came (file → responses file, inline → inline responses), or always one form. */
export type ResultsForm = 'auto' | 'file' | 'inline';

/** The scenario's `batch` block (README "Batch API"). Times are ms of the simulator clock. */
export interface BatchScenario {
  /** Time a batch stays PENDING after create. @default 1000 */
  pendingMs: number;
  /** Time it then stays RUNNING before it ends. @default 2000 */
  runningMs: number;
  /** A batch not finished this long after create ends EXPIRED (the real API: 48 h). @default 172,800,000 */
  expireMs: number;
  /** Uploaded files are deleted this long after upload (the real API: 48 h). @default 172,800,000 */
  fileTtlMs: number;
  /** @default 'auto' */
  resultsForm: ResultsForm;
  /**
   * Seeds the names of batches, files and upload sessions. Absent: a fresh seed per simulator start (time and
   * randomness), so a name from an earlier start can never point at another start's batch; a test that needs the
   * same names every start sets it. @default fresh per start
   */
  nameSeed?: number;
  /** Results come back in a seeded shuffled order, not the input's (the real API guarantees no order). @default true */
  shuffle: boolean;
  /** Unfinished batches per project; a create beyond it is answered 429 (the real API: 100). @default 100 */
  concurrentBatches: number;
  /** Enqueued input tokens per (project, model) over unfinished batches; a create beyond it is a 429. @default unlimited */
  enqueuedTokens?: number;
  /** The first n creates are answered 429 (help-only body) whatever the limits. @default 0 */
  rejectCreates: number;
  /**
   * A SUCCEEDED batch shows its output (responses file, inline responses) only this long after it ended: until then
   * `get` says SUCCEEDED with no output and the file does not exist (tidyverse/ellmer PR #926). @default 0
   */
  outputDelayMs: number;
  /** Probability that an inline response comes back without its `metadata` (python-genai#1886, js-genai#1191). @default 0 */
  dropInlineMetadata: number;
  /** The create's answer waits this long after the batch exists (a kill window between create and journaling). */
  createReplyDelayMs: number;
  /** The upload start's answer waits this long after the session exists (a kill window before any byte is sent). */
  uploadStartReplyDelayMs: number;
  /** The final upload chunk's answer waits this long after the file exists. */
  uploadReplyDelayMs: number;
  /** A download sends half its body, waits this long, then the rest (a kill window while downloading). */
  downloadStallMs: number;
  lineErrors: LineErrorRule[];
  blocked: BlockedRule[];
  jobs: JobRule[];
}

/** Defaults of every {@link BatchScenario} field. */
export function defaultBatchScenario(): BatchScenario {
  return {
    pendingMs: 1000,
    runningMs: 2000,
    expireMs: 48 * 3_600_000,
    fileTtlMs: 48 * 3_600_000,
    resultsForm: 'auto',
    shuffle: true,
    concurrentBatches: 100,
    rejectCreates: 0,
    outputDelayMs: 0,
    dropInlineMetadata: 0,
    createReplyDelayMs: 0,
    uploadStartReplyDelayMs: 0,
    uploadReplyDelayMs: 0,
    downloadStallMs: 0,
    lineErrors: [],
    blocked: [],
    jobs: [],
  };
}

/** One batch as tests see it (`GET /__sim/batches`, {@link BatchStats}). No API key, no request text. */
export interface BatchRecord {
  name: string;
  displayName?: string;
  project: string;
  model: string;
  state: BatchState;
  /** `file` (input_config.file_name) or `inline` (input_config.requests). */
  input: 'file' | 'inline';
  lines: number;
  /** sha256 hex of the sorted line keys joined by "\n": equal sets of rows give equal digests. */
  keySetSha256: string;
  inputTokens: number;
  /** Epoch ms of the simulator clock. */
  createTime: number;
  deleted: boolean;
}

/** The Batch API part of `GET /__sim/stats`. */
export interface BatchStats {
  /** Batches created (a 429 creates none). */
  created: number;
  /** Creates answered 429. */
  createRejected: number;
  /** Batches by their state now (deleted ones included). */
  byState: Partial<Record<BatchState, number>>;
  /** Lines submitted over every batch. */
  lines: number;
  /** Batches per set of line keys (key: {@link BatchRecord.keySetSha256}). "No second batch for the same rows": every value is 1. */
  byKeySet: Record<string, number>;
  /** Distinct line keys carried by more than one batch (0 when no row was ever sent twice). */
  keysInSeveralBatches: number;
  /** Files uploaded and finalized. */
  filesUploaded: number;
  /** Result downloads served. */
  downloads: number;
}

/**
 * What a test can wait on (SimulatorHandle.onBatchEvent), e.g. to kill a client at a deterministic moment.
 * Emitted synchronously when the simulator decides, before any reply delay.
 */
export type BatchEvent =
  | { type: 'upload-started'; uploadId: string; project: string; sizeBytes: number }
  | { type: 'file-created'; name: string; project: string; sizeBytes: number }
  | { type: 'batch-created'; name: string; project: string; displayName?: string; lines: number }
  | { type: 'create-rejected'; project: string; reason: 'scripted' | 'concurrent-batches' | 'enqueued-tokens' }
  | { type: 'batch-cancelled'; name: string }
  | { type: 'batch-deleted'; name: string }
  | { type: 'download-started'; name: string }
  /**
   * Any Files or Batch API request, once its answer is decided and before a byte of it is written (before any reply
   * delay): `endpoint` as in `requests.byEndpoint` (`files.upload`, `batches.get`…), `status` the HTTP status. The n-th
   * of them is a moment a client is waiting on an answer it will never get if killed there.
   */
  | { type: 'answered'; endpoint: string; status: number };
