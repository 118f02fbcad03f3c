/**
 * An in-memory batch service for the runner's unit tests: uploads read the file, creates make batches that go PENDING →
 * RUNNING → a scripted end after a number of polls, results answer every line through `answer(key, attempt)` (attempt
 * = the n-th batch that carried the key). Scripted faults: creates refused with 429, creates made but answered with a
 * connection failure (the lost answer), batches that end FAILED/EXPIRED or stay PENDING. Everything it saw is kept for
 * assertions (creates per key, cancels).
 */
import fs from 'node:fs';
import type { BatchInfo, BatchResult, BatchService, BatchState, ModelAnswer, ModelRequest } from '../../src/providers/contract.js';
import { ConnectionFailure, RateLimitFailure } from '../../src/providers/failures.js';

export interface FakeBatch {
  name: string;
  displayName: string;
  keys: string[];
  polls: number;
  state: BatchState;
  end: BatchState;
  createTime: string;
}

export interface FakeOptions {
  /** The answer of a line; default a `yes` label. */
  answer?(key: string, attempt: number): BatchResult;
  /** How the n-th batch (1-based) ends; default succeeded. `pending`: stays pending. */
  endOf?(n: number): BatchState;
  /** Polls in PENDING, then RUNNING, before the end. @default 1 */
  pollsPerState?: number;
  /** Creates answered with 429 (the first n). */
  refuseCreates?: number;
  /** Creates made but answered with a connection failure (the first n made). */
  loseCreateAnswers?: number;
  /** Results as inline answers instead of a responses file (the runner must not care). */
  inline?: boolean;
  /** How long before its create the n-th batch (1-based) says it was created (its createTime), ms; default 0. */
  createdAgoMsOf?(n: number): number;
}

export const yes = (key: string): BatchResult => ({ kind: 'answer', key, answer: answerOf('yes') });

export function answerOf(text: string | undefined, over: Partial<ModelAnswer> = {}): ModelAnswer {
  return { text, finish: 'stop', finishDetail: 'STOP', blocked: undefined, usage: { inputTokens: 10, outputTokens: 1, reasoningTokens: 0 }, ...over };
}

export class FakeBatchService implements BatchService {
  readonly maxFileBytes = 1_000_000;
  readonly batches: FakeBatch[] = [];
  readonly cancels: string[] = [];
  readonly uploads: string[] = [];
  readonly attempts = new Map<string, number>();
  creates = 0;
  #refused = 0;
  #lost = 0;

  constructor(readonly o: FakeOptions = {}) {}

  requestLine(key: string, request: ModelRequest): string {
    return JSON.stringify({ key, request: { contents: [{ parts: [{ text: request.prompt }], role: 'user' }], moreRoom: request.moreRoom === true } });
  }

  async upload(file: string): Promise<{ file: string; expiresAt: number | undefined }> {
    this.uploads.push(fs.readFileSync(file, 'utf8'));
    return { file: `files/f${this.uploads.length}`, expiresAt: Date.now() + 48 * 3600_000 };
  }

  async create(_model: string, file: string, displayName: string): Promise<BatchInfo> {
    this.creates++;
    if (this.#refused < (this.o.refuseCreates ?? 0)) {
      this.#refused++;
      throw new RateLimitFailure('HTTP 429 RESOURCE_EXHAUSTED', { hits: [], waitMs: undefined, noQuota: false, scope: 'project' });
    }
    const index = Number(file.slice('files/f'.length)) - 1;
    const text = this.uploads[index] ?? '';
    const keys = text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { key: string }).key);
    const n = this.batches.length + 1;
    const batch: FakeBatch = { name: `batches/${n}`, displayName, keys, polls: 0, state: 'pending', end: this.o.endOf?.(n) ?? 'succeeded', createTime: new Date(Date.now() - (this.o.createdAgoMsOf?.(n) ?? 0)).toISOString() };
    this.batches.push(batch);
    if (this.#lost < (this.o.loseCreateAnswers ?? 0)) {
      this.#lost++;
      throw new ConnectionFailure('connection failed: ECONNRESET');
    }
    return this.#info(batch);
  }

  async get(name: string): Promise<BatchInfo> {
    const batch = this.batches.find((b) => b.name === name);
    if (!batch) throw new Error(`no ${name}`);
    const per = this.o.pollsPerState ?? 1;
    batch.polls++;
    if (batch.state === 'pending' && batch.end !== 'pending' && batch.polls > per) batch.state = 'running';
    else if (batch.state === 'running' && batch.polls > 2 * per) batch.state = batch.end;
    return this.#info(batch);
  }

  async find(displayName: string): Promise<BatchInfo | undefined> {
    const batch = this.batches.find((b) => b.displayName === displayName);
    return batch ? this.#info(batch) : undefined;
  }

  async cancel(name: string): Promise<void> {
    this.cancels.push(name);
    const batch = this.batches.find((b) => b.name === name);
    if (batch && (batch.state === 'pending' || batch.state === 'running')) batch.state = 'cancelled';
  }

  async *results(info: BatchInfo): AsyncIterable<BatchResult> {
    const batch = this.batches.find((b) => b.name === info.name);
    if (!batch || batch.state !== 'succeeded') return;
    // Out of order: the runner joins by key only.
    for (const key of [...batch.keys].reverse()) {
      const attempt = (this.attempts.get(key) ?? 0) + 1;
      this.attempts.set(key, attempt);
      yield this.o.answer?.(key, attempt) ?? yes(key);
    }
  }

  /** Creates that carried `key`. */
  batchesWith(key: string): FakeBatch[] {
    return this.batches.filter((b) => b.keys.includes(key));
  }

  #info(b: FakeBatch): BatchInfo {
    const done = b.state === 'succeeded';
    return {
      name: b.name,
      displayName: b.displayName,
      state: b.state,
      stateDetail: `BATCH_STATE_${b.state.toUpperCase()}`,
      createTime: b.createTime,
      updateTime: undefined,
      counts: { requests: b.keys.length, pending: done ? 0 : b.keys.length, succeeded: done ? b.keys.length : 0, failed: 0 },
      error: b.state === 'failed' ? 'INTERNAL: the batch failed' : undefined,
      output: done ? (this.o.inline ? { kind: 'inline', count: b.keys.length } : { kind: 'file', file: `files/batch-${b.name.slice(8)}` }) : undefined,
    };
  }
}
