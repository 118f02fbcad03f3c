/**
 * A server asking for an absurd wait (a tester's proxy: `retry-after: 99999999`, Gemini `retryDelay: "99999999s"`)
 * never reaches setTimeout above 2^31 − 1 ms (Node sets such a timer to 1 ms: a busy loop and a warning per wake).
 * The project pauses for SERVER_WAIT_CAP_MS at most, says so once, and then one request probes again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ModelAnswer, ModelCaller } from '../../src/providers/contract.js';
import { RateLimitFailure, type RateLimitDetails } from '../../src/providers/failures.js';
import { PACIFIC_DAY } from '../../src/providers/gemini/quota-day.js';
import { readRateLimitDetails } from '../../src/providers/google-quota-failure.js';
import { parseRpcStatus } from '../../src/providers/google-rpc-status.js';
import { retryWaitMs } from '../../src/providers/openai/rate-limit-hints.js';
import { Dispatcher, type DispatchEnd, type ProjectGate } from '../../src/schedule/dispatcher.js';
import { ProjectLimiter } from '../../src/schedule/project-limiter.js';
import { RateLimitPolicy, type Notice } from '../../src/schedule/rate-limit-policy.js';
import { capServerWait, describeWait, SERVER_WAIT_CAP_MS } from '../../src/schedule/server-wait.js';
import { MAX_TIMER_DELAY_MS, timerDelay } from '../../src/schedule/timer-delay.js';
import { TokenEstimator, tokenFeatures } from '../../src/schedule/token-estimator.js';
import type { RowOutcome, WorkItem } from '../../src/schedule/work-item.js';
import { fixtureText } from '../support/fixtures.js';

const T0 = Date.parse('2026-11-29T12:00:00Z');
/** `retry-after: 99999999` (seconds), as the tester's server sent it. */
const HUGE_MS = retryWaitMs(new Headers({ 'retry-after': '99999999' }), undefined)!;
/** Jitter on a server's wait is at most 2 s (../../src/schedule/backoff.ts). */
const JITTER_MS = 2_000;

function limiter(): ProjectLimiter {
  return new ProjectLimiter({ quotaDay: PACIFIC_DAY, project: 'p1', model: 'gpt-4o-mini', limits: { rpm: { value: 1_000, source: 'given' }, tpm: { value: 1_000_000, source: 'given' }, rpd: undefined }, now: T0 });
}

function policy() {
  const l = limiter();
  const notices: Notice[] = [];
  return { limiter: l, notices, policy: new RateLimitPolicy(l, (n) => notices.push(n), T0, () => 0.5) };
}

/** The Gemini fixture 429-a with its RetryInfo set to `delay`. */
function geminiWith(delay: string): RateLimitDetails {
  return readRateLimitDetails(parseRpcStatus(fixtureText('429-a-free-tpm-old-format.json').replace('"26s"', `"${delay}"`))!);
}

describe('timerDelay and capServerWait', () => {
  it('timerDelay keeps every delay within what setTimeout takes', () => {
    expect(timerDelay(HUGE_MS)).toBe(MAX_TIMER_DELAY_MS);
    expect(timerDelay(Infinity)).toBe(MAX_TIMER_DELAY_MS);
    expect([timerDelay(Number.NaN), timerDelay(-5), timerDelay(0), timerDelay(1.2), timerDelay(MAX_TIMER_DELAY_MS)]).toEqual([0, 0, 0, 2, MAX_TIMER_DELAY_MS]);
  });

  it('capServerWait cuts a wait above five minutes to five minutes and leaves shorter ones alone', () => {
    expect(HUGE_MS).toBe(99_999_999_000);
    expect(capServerWait(HUGE_MS)).toBe(SERVER_WAIT_CAP_MS);
    expect(SERVER_WAIT_CAP_MS).toBe(300_000);
    expect([capServerWait(undefined), capServerWait(26_000), capServerWait(-1), capServerWait(Number.NaN)]).toEqual([undefined, 26_000, 0, 0]);
    expect(describeWait(HUGE_MS)).toBe('3 years');
    expect(describeWait(SERVER_WAIT_CAP_MS)).toBe('5 min 0 s');
  });
});

describe('RateLimitPolicy: a server wait above the cap', () => {
  it('a bare 429 with retry-after 99999999 s pauses the project for the cap, said once per project', () => {
    const { policy: p, limiter: l, notices } = policy();
    const details: RateLimitDetails = { hits: [], waitMs: HUGE_MS, noQuota: false, scope: 'project' };
    const first = p.onRateLimited(details, T0);
    expect(first.hold).toBe('paused');
    expect(first.until! - T0).toBeGreaterThanOrEqual(SERVER_WAIT_CAP_MS);
    expect(first.until! - T0).toBeLessThanOrEqual(SERVER_WAIT_CAP_MS + JITTER_MS);
    expect(l.hold(first.until!)).toBeUndefined();
    const second = p.onRateLimited(details, first.until!);
    expect(second.until! - first.until!).toBeLessThanOrEqual(SERVER_WAIT_CAP_MS + JITTER_MS);
    const long = notices.filter((n) => n.key === 'long-wait:p1');
    expect(new Set(long.map((n) => n.key)).size).toBe(1);
    expect(long[0]!.text).toContain('asked to wait 3 years; pausing 5 min 0 s at most');
  });

  it('a Gemini per-minute 429 with retryDelay "99999999s" pauses for the cap; a 26 s retryDelay is untouched and says nothing', () => {
    const huge = policy();
    const outcome = huge.policy.onRateLimited(geminiWith('99999999s'), T0);
    expect(outcome.hold).toBe('paused');
    expect(outcome.until! - T0).toBeLessThanOrEqual(SERVER_WAIT_CAP_MS + JITTER_MS);
    expect(huge.notices.some((n) => n.key === 'long-wait:p1')).toBe(true);
    const normal = policy();
    const ok = normal.policy.onRateLimited(geminiWith('26s'), T0);
    expect(ok.until! - T0).toBeGreaterThanOrEqual(26_000);
    expect(ok.until! - T0).toBeLessThan(30_000);
    expect(normal.notices.some((n) => n.key === 'long-wait:p1')).toBe(false);
  });

  it('shared capacity (the row alone waits): the wait handed to the row is capped too', () => {
    const { policy: p } = policy();
    const outcome = p.onRateLimited({ hits: [], waitMs: HUGE_MS, noQuota: false, scope: 'shared-capacity' }, T0);
    expect(outcome).toMatchObject({ hold: 'slowed', waitMs: SERVER_WAIT_CAP_MS });
  });
});

async function* items(n: number): AsyncGenerator<WorkItem> {
  for (let row = 0; row < n; row++) {
    yield { row, cells: [String(row)], fingerprint: `fp${row}`, features: tokenFeatures(String(row)), attempts: 0, earlierAttempts: 0, notBefore: 0, variant: undefined, retriedFor: new Set(), usage: { input: 0, output: 0, thoughts: 0 }, earlierUsage: { input: 0, output: 0, thoughts: 0 }, lastError: null, key: null };
  }
}

const answer: ModelAnswer = { text: 'yes', finish: 'stop', finishDetail: 'stop', blocked: undefined, usage: { inputTokens: 10, outputTokens: 1, reasoningTokens: 0 } };

describe('Dispatcher: a 429 asking for 3 years (fake timers)', () => {
  const delays: number[] = [];
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
    delays.length = 0;
    const fake = globalThis.setTimeout;
    // Records every delay asked of setTimeout (fake timers, like Node, set one above 2^31 − 1 to 1 ms).
    vi.stubGlobal('setTimeout', (fn: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return fake(fn, ms);
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('the project pauses five minutes, then the row is sent again and every row ends ok; no timer above 2^31 − 1 ms, no busy loop', async () => {
    const l = limiter();
    const notices: string[] = [];
    const gates = new Map<string, ProjectGate>([['p1', { limiter: l, policy: new RateLimitPolicy(l, (n) => notices.push(n.text), T0, () => 0.5) }]]);
    let sent = 0;
    const client: ModelCaller = {
      generate: () => {
        sent++;
        return new Promise((resolve, reject) => {
          const n = sent;
          setTimeout(() => (n === 2 ? reject(new RateLimitFailure('HTTP 429: slow down', { hits: [], waitMs: HUGE_MS, noQuota: false, scope: 'project' })) : resolve(answer)), 100);
        });
      },
    };
    const finished = new Map<number, RowOutcome>();
    const dispatcher = new Dispatcher({
      pools: [{ alias: 'key-1', project: 'p1', client, maxInFlight: 1 }],
      gates,
      rows: items(3),
      estimator: new TokenEstimator(),
      buildRequest: (cells) => ({ model: 'gpt-4o-mini', prompt: cells[0] ?? '', output: { kind: 'text' }, reasoning: 'least' }),
      judge: (_item, a) => ({ kind: 'final', outcome: { status: 'ok', label: a.text ?? null, raw: a.text ?? null, finishReason: 'stop', error: null } }),
      onFinished: (item, outcome) => finished.set(item.row, outcome),
      onNotice: (n) => notices.push(n.text),
      maxAttempts: 3,
      stopGraceMs: 5_000,
      processCeiling: 10_000,
      loadGuard: null,
      random: () => 0.5,
    });
    let end: DispatchEnd | undefined;
    void dispatcher.run().then((e) => (end = e));
    // 10 minutes of fake time at most: the pause is five.
    for (let i = 0; i < 600 && end === undefined; i++) await vi.advanceTimersByTimeAsync(1_000);
    expect(end?.kind).toBe('done');
    expect([...finished.values()].map((o) => o.status)).toEqual(['ok', 'ok', 'ok']);
    expect(sent).toBe(4);
    expect(Date.now() - T0).toBeGreaterThanOrEqual(SERVER_WAIT_CAP_MS);
    expect(Date.now() - T0).toBeLessThan(SERVER_WAIT_CAP_MS + 10_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX_TIMER_DELAY_MS);
    // A busy loop re-arms a 1 ms timer thousands of times; a pause sets a handful.
    expect(delays.length).toBeLessThan(200);
    expect(notices.join('\n')).toContain('asked to wait 3 years');
  });
});
