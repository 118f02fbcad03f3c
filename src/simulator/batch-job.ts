/**
 * One batch: its timeline on the simulator clock (PENDING for `pendingMs`, RUNNING for `runningMs`, then its end;
 * EXPIRED once `expireMs` passes unfinished; CANCELLED from a cancel) and its REST shape, a long-running operation
 * whose `metadata` is the GenerateContentBatch (docs/batch-api.md "Resource"): `batchStats` counters as int64 strings
 * (zeros omitted, proto3 JSON), `done` and `response` (the GenerateContentBatchOutput: `responsesFile` or
 * `inlinedResponses.inlinedResponses[]`) once it has ended.
 */
import type { LineResult } from './batch-answers.js';
import type { BatchEnd, BatchState } from './batch-types.js';

const TYPE = 'type.googleapis.com/google.ai.generativelanguage.v1main.';

/** What a batch is made of, fixed at create. */
export interface BatchJobInit {
  id: string;
  project: string;
  model: string;
  displayName?: string;
  /** The input file's name (`files/…`), or undefined for inline requests. */
  fileName?: string;
  createTime: number;
  lineCount: number;
  /** Line keys, sorted. */
  keys: string[];
  inputTokens: number;
  end: BatchEnd;
  pendingMs: number;
  runningMs: number;
  expireMs: number;
  /** The output shows this long after a SUCCEEDED end. */
  outputDelayMs: number;
  /** Line results in the order they complete (and are written), for a batch that will succeed. */
  results?: LineResult[];
  resultsForm: 'file' | 'inline';
}

/** A batch and its timeline. */
export class BatchJob {
  /** Set by a cancel before the batch ended. */
  cancelledAt?: number;
  /** The responses file (`files/batch-…`) once written. */
  responsesFile?: string;
  deleted = false;
  /** When it starts RUNNING (Infinity: never). */
  private readonly startAt: number;
  /** When it ends by itself, and how. */
  private readonly naturalEndAt: number;
  private readonly naturalEnd: BatchState;
  /** failedBefore[i]: failed lines among the first i results (batchStats in O(1)). */
  private readonly failedBefore: Uint32Array | undefined;

  constructor(readonly init: BatchJobInit) {
    const { createTime: c, pendingMs: p, runningMs: r, expireMs: e, end } = init;
    const expiresAt = c + e;
    this.startAt = end === 'PENDING' || c + p >= expiresAt ? Infinity : c + p;
    if (end === 'PENDING' || end === 'EXPIRED' || c + p + r > expiresAt) {
      this.naturalEndAt = expiresAt;
      this.naturalEnd = 'BATCH_STATE_EXPIRED';
    } else {
      this.naturalEndAt = c + p + r;
      this.naturalEnd = end === 'FAILED' ? 'BATCH_STATE_FAILED' : 'BATCH_STATE_SUCCEEDED';
    }
    if (init.results) {
      this.failedBefore = new Uint32Array(init.results.length + 1);
      init.results.forEach((r, i) => (this.failedBefore![i + 1] = this.failedBefore![i]! + (r.error ? 1 : 0)));
    }
  }

  get name(): string {
    return `batches/${this.init.id}`;
  }

  /** When it ended (or ends, if nothing cancels it), epoch ms. */
  get endAt(): number {
    return this.cancelledAt !== undefined ? this.cancelledAt : this.naturalEndAt;
  }

  /** Its state at `now`. */
  state(now: number): BatchState {
    if (now >= this.endAt) return this.cancelledAt !== undefined ? 'BATCH_STATE_CANCELLED' : this.naturalEnd;
    return now >= this.startAt ? 'BATCH_STATE_RUNNING' : 'BATCH_STATE_PENDING';
  }

  /** Whether a SUCCEEDED batch's output (responses file, inline responses) exists at `now`. */
  outputReady(now: number): boolean {
    return this.state(now) === 'BATCH_STATE_SUCCEEDED' && now >= this.endAt + this.init.outputDelayMs;
  }

  /** PENDING or RUNNING at `now`. */
  unfinished(now: number): boolean {
    return now < this.endAt;
  }

  /** Lines processed by `now`: linear through RUNNING for a batch that will complete, none otherwise. */
  private done(now: number): number {
    const n = this.init.lineCount;
    if (this.naturalEnd === 'BATCH_STATE_EXPIRED' || now < this.startAt) return 0;
    const t = Math.min(now, this.endAt);
    if (t >= this.naturalEndAt) return n;
    return Math.min(n, Math.floor((n * (t - this.startAt)) / this.init.runningMs));
  }

  /** `batchStats` at `now`: counters as strings, zeros omitted. */
  stats(now: number): Record<string, string> {
    const n = this.init.lineCount;
    const state = this.state(now);
    let failed = 0;
    let ok = 0;
    let pending = n;
    if (state === 'BATCH_STATE_FAILED') {
      failed = n;
      pending = 0;
    } else if (state !== 'BATCH_STATE_EXPIRED') {
      const done = this.done(now);
      pending = n - done;
      failed = this.failedBefore ? this.failedBefore[done]! : 0;
      ok = done - failed;
    }
    const stats: Record<string, string> = { requestCount: String(n) };
    if (pending > 0) stats.pendingRequestCount = String(pending);
    if (ok > 0) stats.successfulRequestCount = String(ok);
    if (failed > 0) stats.failedRequestCount = String(failed);
    return stats;
  }

  /** The time of its last change of state at `now`. */
  private updateTime(now: number): number {
    if (now >= this.endAt) return this.endAt;
    return now >= this.startAt ? this.startAt : this.init.createTime;
  }

  /**
   * The long-running operation at `now`. A SUCCEEDED batch's output is `responsesFile` (set {@link responsesFile}
   * first) or its inline responses; `list` leaves inline responses out (`withInline` false).
   */
  operation(now: number, withInline = true): Record<string, unknown> {
    const { init } = this;
    const state = this.state(now);
    const iso = (t: number) => new Date(t).toISOString();
    const metadata: Record<string, unknown> = { '@type': `${TYPE}GenerateContentBatch`, model: `models/${init.model}` };
    if (init.displayName !== undefined) metadata.displayName = init.displayName;
    if (init.fileName !== undefined) metadata.inputConfig = { fileName: init.fileName };
    metadata.createTime = iso(init.createTime);
    if (!this.unfinished(now)) metadata.endTime = iso(this.endAt);
    metadata.updateTime = iso(this.updateTime(now));
    metadata.batchStats = this.stats(now);
    metadata.state = state;
    metadata.name = this.name;
    const op: Record<string, unknown> = { name: this.name, metadata };
    if (this.unfinished(now)) return op;
    op.done = true;
    if (this.outputReady(now)) {
      let output: Record<string, unknown> | undefined;
      if (this.responsesFile !== undefined) output = { responsesFile: this.responsesFile };
      else if (withInline) output = { inlinedResponses: { inlinedResponses: inlineResponses(init.results ?? []) } };
      if (output) {
        metadata.output = output;
        op.response = { '@type': `${TYPE}GenerateContentBatchOutput`, ...output };
      }
    } else if (state === 'BATCH_STATE_FAILED') {
      op.error = { code: 13, message: 'The batch failed. Please try again.' };
    }
    return op;
  }
}

/**
 * Inline responses: `{response, metadata}` or `{error, metadata}`; metadata as the inline request gave it, or
 * `{key}` for a file line answered inline; none when scripted away.
 */
export function inlineResponses(results: readonly LineResult[]): unknown[] {
  return results.map((r) => {
    const item: Record<string, unknown> = r.error ? { error: r.error } : { response: r.response };
    const metadata = r.metadata ?? (r.key !== undefined ? { key: r.key } : undefined);
    if (metadata !== undefined && !r.dropMetadata) item.metadata = metadata;
    return item;
  });
}

/** The responses file: one JSON line per result, `{"key", "response"}` or `{"key", "error"}`, each ending in "\n". */
export function responsesJsonl(results: readonly LineResult[]): string {
  const lines = results.map((r) => {
    const line: Record<string, unknown> = {};
    if (r.key !== undefined) line.key = r.key;
    if (r.error) line.error = r.error;
    else line.response = r.response;
    return JSON.stringify(line);
  });
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
