/**
 * Reading the Batch API's answers (docs/batch-runner.md): the raw operation of GET /v1beta/batches/{id} with BATCH_STATE_*
 * and int64 counters as strings, the SDK's JOB_STATE_* view, and result lines in both forms (a responses file's
 * top-level key, inline items' metadata.key), per-line google.rpc.Status errors with gRPC codes, blocked prompts read
 * as blocked (never an empty success), and lines that cannot be read.
 */
import { describe, expect, it } from 'vitest';
import { batchInfoOfJob, batchInfoOfOperation, neutralBatchState } from '../../../src/providers/gemini/batch-info.js';
import { batchResultOf, batchResultOfLine } from '../../../src/providers/gemini/batch-results.js';

/** The a.4 shape of docs/reference/batch-openai-vertex-facts.md. */
const succeeded = {
  name: 'batches/abc',
  metadata: {
    '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch',
    model: 'models/gemini-2.5-flash',
    displayName: 'gemini-batch t1 b0001',
    inputConfig: { fileName: 'files/in1' },
    createTime: '2026-12-01T10:00:00.000Z',
    updateTime: '2026-12-01T10:05:00.000Z',
    batchStats: { requestCount: '100', pendingRequestCount: '0', successfulRequestCount: '98', failedRequestCount: '2' },
    state: 'BATCH_STATE_SUCCEEDED',
    output: { responsesFile: 'files/batch-abc' },
  },
  done: true,
  response: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput', responsesFile: 'files/batch-abc' },
};

describe('batch info', () => {
  it('reads the raw operation: state, string counters, times, the responses file', () => {
    expect(batchInfoOfOperation(succeeded)).toEqual({
      name: 'batches/abc',
      displayName: 'gemini-batch t1 b0001',
      state: 'succeeded',
      stateDetail: 'BATCH_STATE_SUCCEEDED',
      createTime: '2026-12-01T10:00:00.000Z',
      updateTime: '2026-12-01T10:05:00.000Z',
      counts: { requests: 100, pending: 0, succeeded: 98, failed: 2 },
      error: undefined,
      output: { kind: 'file', file: 'files/batch-abc' },
    });
  });

  it('reads inline output, a pending batch without stats, and a failure reason', () => {
    const inline = { name: 'batches/i', metadata: { state: 'BATCH_STATE_SUCCEEDED' }, response: { inlinedResponses: { inlinedResponses: [{}, {}, {}] } } };
    expect(batchInfoOfOperation(inline)?.output).toEqual({ kind: 'inline', count: 3 });
    const pending = batchInfoOfOperation({ name: 'batches/p', metadata: { state: 'BATCH_STATE_PENDING' } });
    expect(pending).toMatchObject({ state: 'pending', counts: undefined, output: undefined });
    const failed = batchInfoOfOperation({ name: 'batches/f', metadata: { state: 'BATCH_STATE_FAILED' }, error: { code: 3, status: 'INVALID_ARGUMENT', message: 'bad line 4' } });
    expect(failed).toMatchObject({ state: 'failed', error: 'INVALID_ARGUMENT: bad line 4' });
    expect(batchInfoOfOperation({ metadata: {} })).toBeUndefined();
  });

  it('maps REST and SDK state names alike; an unknown one is unknown, kept as detail', () => {
    for (const s of ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED']) {
      expect(neutralBatchState(`BATCH_STATE_${s}`)).toBe(s.toLowerCase());
      expect(neutralBatchState(`JOB_STATE_${s}`)).toBe(s.toLowerCase());
    }
    expect(neutralBatchState('BATCH_STATE_UNSPECIFIED')).toBe('unknown');
    expect(batchInfoOfJob({ name: 'batches/j', state: 'JOB_STATE_PAUSED' as never, displayName: 'd' })).toMatchObject({ state: 'unknown', stateDetail: 'JOB_STATE_PAUSED', displayName: 'd' });
  });
});

describe('batch result lines', () => {
  const answer = { candidates: [{ content: { parts: [{ text: 'yes' }], role: 'model' }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1, totalTokenCount: 13 }, modelVersion: 'gemini-2.5-flash' };

  it('a responses-file line: the key at the top, the answer read as online', () => {
    const r = batchResultOfLine(JSON.stringify({ key: 'r3:abc', response: answer }));
    expect(r.kind).toBe('answer');
    if (r.kind !== 'answer') return;
    expect(r.key).toBe('r3:abc');
    expect(r.answer).toMatchObject({ text: 'yes', finish: 'stop', finishDetail: 'STOP', usage: { inputTokens: 12, outputTokens: 1, reasoningTokens: 0 } });
  });

  it('an inline item: the key in metadata; one without metadata has no key', () => {
    expect(batchResultOf({ response: answer, metadata: { key: 'r4:abc' } }).key).toBe('r4:abc');
    expect(batchResultOf({ response: answer }).key).toBeUndefined();
  });

  it('a per-line error keeps its gRPC code and message', () => {
    expect(batchResultOfLine('{"key":"r5:abc","error":{"code":13,"message":"An internal error has occurred."}}')).toEqual({
      kind: 'error',
      key: 'r5:abc',
      code: 13,
      status: undefined,
      message: 'An internal error has occurred.',
    });
    expect(batchResultOf({ error: { code: 3, status: 'INVALID_ARGUMENT', message: 'x' }, metadata: { key: 'r6:abc' } })).toMatchObject({ kind: 'error', code: 3, status: 'INVALID_ARGUMENT', key: 'r6:abc' });
  });

  it('a blocked prompt is read as blocked, not as an empty success', () => {
    const r = batchResultOfLine(JSON.stringify({ key: 'r7:abc', response: { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9 } } }));
    expect(r).toMatchObject({ kind: 'answer', answer: { blocked: 'PROHIBITED_CONTENT', text: undefined } });
  });

  it('a line that is not JSON, or neither answer nor error, is unreadable (its key kept when it shows)', () => {
    expect(batchResultOfLine('{"key":"r8:abc","respo')).toMatchObject({ kind: 'unreadable', key: 'r8:abc' });
    expect(batchResultOfLine('{"key":"r9:abc"}')).toMatchObject({ kind: 'unreadable', key: 'r9:abc' });
    expect(batchResultOfLine('[1]')).toMatchObject({ kind: 'unreadable', key: undefined });
  });
});
