/**
 * Reads what the Gemini API says of a batch into the neutral {@link BatchInfo}, from either view of it:
 * - the raw REST operation of `GET /v1beta/batches/{id}` (`{name, metadata: {state: "BATCH_STATE_…", batchStats,
 *   createTime, displayName, output}, done, response: {responsesFile | inlinedResponses: {inlinedResponses: […]}},
 *   error}`), the only view with batchStats and the failure's reason;
 * - @google/genai's `BatchJob` (create and list: `{name, displayName, state: "JOB_STATE_…", createTime, dest}`).
 * Every field is optional on the wire; counters are int64 strings. Source: docs/batch-runner.md "Create and get"
 * (docs/reference/batch-openai-vertex-facts.md §a.4, §a.6, and "Checked against the installed SDKs" 3).
 */
import type { BatchJob } from '@google/genai';
import type { BatchCounts, BatchInfo, BatchState } from '../contract.js';

/** `BATCH_STATE_*` (REST) and `JOB_STATE_*` (the SDK's names) → neutral. */
const STATES: Readonly<Record<string, BatchState>> = {
  PENDING: 'pending',
  QUEUED: 'pending',
  RUNNING: 'running',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
};

/** The neutral state of `BATCH_STATE_RUNNING` / `JOB_STATE_RUNNING`; `unknown` for anything else. */
export function neutralBatchState(value: string | undefined): BatchState {
  if (value === undefined) return 'unknown';
  return STATES[value.replace(/^(BATCH|JOB)_STATE_/, '')] ?? 'unknown';
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** An int64 counter: a string on the wire ("98"), a number in some views; 0 when absent or unreadable. */
function count(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : NaN;
  return Number.isFinite(n) && n >= 0 ? n : 0;
}

function countsOf(stats: Record<string, unknown> | undefined): BatchCounts | undefined {
  if (!stats) return undefined;
  return {
    requests: count(stats.requestCount),
    pending: count(stats.pendingRequestCount),
    succeeded: count(stats.successfulRequestCount),
    failed: count(stats.failedRequestCount),
  };
}

/** Where the output is, read from a `GenerateContentBatchOutput` (`response`, or `metadata.output`). */
function outputOf(out: Record<string, unknown> | undefined): BatchInfo['output'] {
  if (!out) return undefined;
  const file = text(out.responsesFile);
  if (file) return { kind: 'file', file };
  const inline = record(out.inlinedResponses)?.inlinedResponses;
  if (Array.isArray(inline)) return { kind: 'inline', count: inline.length };
  return undefined;
}

/**
 * The batch of a raw REST operation (`GET /v1beta/batches/{id}`, the create's Operation).
 * @returns undefined when `op` has no `name`.
 */
export function batchInfoOfOperation(op: unknown): BatchInfo | undefined {
  const o = record(op);
  const name = text(o?.name);
  if (!o || !name) return undefined;
  const meta = record(o.metadata) ?? {};
  const stateDetail = text(meta.state);
  const error = record(o.error);
  return {
    name,
    displayName: text(meta.displayName),
    state: neutralBatchState(stateDetail),
    stateDetail,
    createTime: text(meta.createTime),
    updateTime: text(meta.updateTime),
    counts: countsOf(record(meta.batchStats)),
    error: error ? `${text(error.status) ?? `code ${count(error.code)}`}: ${text(error.message) ?? 'no message'}` : undefined,
    output: outputOf(record(o.response)) ?? outputOf(record(meta.output)),
  };
}

/** The batch of the SDK's `BatchJob` (create, list). @returns undefined when it has no name. */
export function batchInfoOfJob(job: BatchJob): BatchInfo | undefined {
  if (!job.name) return undefined;
  const dest = job.dest;
  return {
    name: job.name,
    displayName: job.displayName ?? undefined,
    state: neutralBatchState(job.state),
    stateDetail: job.state,
    createTime: job.createTime ?? undefined,
    updateTime: job.updateTime ?? undefined,
    counts: undefined,
    error: job.error?.message ?? undefined,
    output: dest?.fileName ? { kind: 'file', file: dest.fileName } : dest?.inlinedResponses ? { kind: 'inline', count: dest.inlinedResponses.length } : undefined,
  };
}
