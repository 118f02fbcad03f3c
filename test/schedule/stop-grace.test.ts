/**
 * The stop grace (issue 17, "Untested paths"): after Ctrl-C the dispatcher sends nothing new and lets the requests in
 * flight finish for `stopGraceMs`; those still unanswered then are aborted and their rows stay pending (no result, not
 * failed), so the resume command sends them again. On fake timers for the timing, and once with the real Gemini client
 * over real HTTP, so the abort really reaches the request.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PACIFIC_DAY } from '../../src/providers/gemini/quota-day.js';
import type { ModelAnswer, ModelCaller } from '../../src/providers/contract.js';
import { CancelledFailure } from '../../src/providers/failures.js';
import { createGeminiCaller } from '../../src/providers/gemini/gemini-caller.js';
import { Dispatcher, type DispatchEnd } from '../../src/schedule/dispatcher.js';
import { ProjectLimiter } from '../../src/schedule/project-limiter.js';
import { RateLimitPolicy } from '../../src/schedule/rate-limit-policy.js';
import { TokenEstimator, tokenFeatures } from '../../src/schedule/token-estimator.js';
import { freshWorkItem, type RowOutcome, type WorkItem } from '../../src/schedule/work-item.js';
import { startAnyKeySimulator } from '../support/any-key-simulator.js';

const GRACE_MS = 5_000;

async function* items(prompts: readonly string[]): AsyncGenerator<WorkItem> {
  for (const [row, prompt] of prompts.entries()) {
    yield freshWorkItem(row, [prompt], `fp${row}`, tokenFeatures(prompt));
  }
}

/** A dispatcher over one key of one project; `finished` is what the journal would receive. */
function dispatch(client: ModelCaller, prompts: readonly string[], options: { maxInFlight: number; stopGraceMs: number }) {
  const limiter = new ProjectLimiter({ quotaDay: PACIFIC_DAY,
    project: 'p',
    model: 'gemini-2.5-flash',
    limits: { rpm: { value: 100_000, source: 'given' }, tpm: { value: 100_000_000, source: 'given' }, rpd: undefined },
    now: Date.now(),
  });
  const finished = new Map<number, RowOutcome>();
  const dispatcher = new Dispatcher({
    pools: [{ alias: 'key-1', project: 'p', client, maxInFlight: options.maxInFlight }],
    gates: new Map([['p', { limiter, policy: new RateLimitPolicy(limiter, () => undefined, Date.now(), () => 0.5) }]]),
    rows: items(prompts),
    estimator: new TokenEstimator(),
    buildRequest: (cells) => ({ model: 'gemini-2.5-flash', prompt: cells[0] ?? '', output: { kind: 'text' }, reasoning: 'least' }),
    judge: (_item, a) => ({ kind: 'final', outcome: { status: 'ok', label: a.text ?? null, raw: a.text ?? null, finishReason: 'STOP', error: null } }),
    onFinished: (item, outcome) => finished.set(item.row, outcome),
    onNotice: () => undefined,
    maxAttempts: 8,
    stopGraceMs: options.stopGraceMs,
    processCeiling: 1_000,
    loadGuard: null,
    random: () => 0.5,
  });
  let end: DispatchEnd | undefined;
  const done = dispatcher.run().then((e) => (end = e));
  return { dispatcher, finished, done, ended: () => end };
}

describe('stop grace', () => {
  afterEach(() => vi.useRealTimers());

  it('answers within the grace are kept; requests still in flight after it are aborted and their rows stay pending', async () => {
    vi.useFakeTimers();
    const calls: Array<{ row: number; signal: AbortSignal | undefined }> = [];
    // Row 0 answers 2 s after it was sent; every other row would take a minute. Like the real client, an aborted
    // request rejects with CancelledFailure.
    const client: ModelCaller = {
      generate(request, options) {
        const signal = options?.signal;
        const row = Number(request.prompt);
        calls.push({ row, signal });
        return new Promise<ModelAnswer>((resolve, reject) => {
          const timer = setTimeout(
            () => resolve({ text: 'yes', finish: 'stop', finishDetail: 'STOP', blocked: undefined, usage: { inputTokens: 5, outputTokens: 1, reasoningTokens: 0 } }),
            row === 0 ? 2_000 : 60_000,
          );
          signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new CancelledFailure());
          });
        });
      },
    };
    const run = dispatch(client, Array.from({ length: 20 }, (_, i) => String(i)), { maxInFlight: 3, stopGraceMs: GRACE_MS });
    await vi.advanceTimersByTimeAsync(500);
    expect(calls.map((c) => c.row)).toEqual([0, 1, 2]);

    run.dispatcher.stop();
    await vi.advanceTimersByTimeAsync(GRACE_MS - 1);
    expect(run.ended()).toBeUndefined(); // still within the grace: rows 1 and 2 may yet answer
    expect(calls.map((c) => c.row)).toEqual([0, 1, 2]); // row 0's answer freed a slot, but nothing new is sent
    expect(calls.some((c) => c.signal?.aborted)).toBe(false);
    expect([...run.finished.keys()]).toEqual([0]);

    await vi.advanceTimersByTimeAsync(1);
    await run.done;
    expect(run.ended()).toEqual({ kind: 'interrupted' });
    expect(calls.filter((c) => c.signal?.aborted).map((c) => c.row)).toEqual([0, 1, 2]); // one signal for the run
    expect([...run.finished.keys()]).toEqual([0]); // rows 1 and 2: no result, not failed — pending
    expect(run.dispatcher.stats.inFlight).toBe(0);
  });

  it('the real client aborts its HTTP request at the end of the grace; the row stays pending', async () => {
    const sim = await startAnyKeySimulator(
      'stop-grace',
      {
        scripts: [{ match: '#hangs', responses: [{ kind: 'hang' }] }],
      },
    );
    try {
      const client = createGeminiCaller({ auth: { kind: 'api-key', apiKey: 'stop-grace-key' }, baseUrl: sim.url, timeoutMs: 60_000 });
      const run = dispatch(client, ['answered', '#hangs'], { maxInFlight: 2, stopGraceMs: 300 });
      while (run.finished.size === 0 || run.dispatcher.stats.inFlight !== 1) await new Promise((r) => setTimeout(r, 5));
      const stoppedAt = performance.now();
      run.dispatcher.stop();
      await run.done;
      expect(performance.now() - stoppedAt).toBeGreaterThanOrEqual(290); // the grace was given (a timer never fires early)
      expect(run.ended()).toEqual({ kind: 'interrupted' });
      expect(run.finished.get(0)?.status).toBe('ok');
      expect(run.finished.has(1)).toBe(false);
      expect(sim.stats().faults).toEqual({ 'script-hang': 1 });
    } finally {
      await sim.close();
    }
  });
});
