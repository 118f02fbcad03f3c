import { describe, expect, it, vi } from 'vitest';
import type { ModelAnswer, ModelCaller } from '../../src/providers/contract.js';
import { TimeoutFailure } from '../../src/providers/failures.js';
import { failureForStatus } from '../../src/providers/gemini/classify-failure.js';
import { PACIFIC_DAY } from '../../src/providers/gemini/quota-day.js';
import { parseRpcStatus } from '../../src/providers/google-rpc-status.js';
import { Dispatcher, type BudgetGate, type KeyPool, type ProjectGate } from '../../src/schedule/dispatcher.js';
import { UNREACHABLE_AFTER } from '../../src/schedule/endpoint-health.js';
import { ProjectLimiter } from '../../src/schedule/project-limiter.js';
import { RateLimitPolicy } from '../../src/schedule/rate-limit-policy.js';
import { TokenEstimator, tokenFeatures } from '../../src/schedule/token-estimator.js';
import { freshWorkItem, type RowOutcome, type WorkItem } from '../../src/schedule/work-item.js';
import { fixtureText } from '../support/fixtures.js';
import { settle, T0, useFakeClock } from '../support/dispatch-world.js';
import { TimedEvents } from '../support/timed-events.js';

/** How far the fake clock moves at a time while a run settles (ms). */
const STEP_MS = 1_000;

function answer(text: string): ModelAnswer {
  return { text, finish: 'stop', finishDetail: 'STOP', blocked: undefined, usage: { inputTokens: 10, outputTokens: 1, reasoningTokens: 0 } };
}

function failure(name: string, status: number) {
  const text = fixtureText(name);
  return failureForStatus(status, parseRpcStatus(text), text);
}

/**
 * A caller answering after `latencyMs` (fake timers; a number or a draw per request) with whatever `behave` says for
 * the n-th request of a row. It reports each upload 5 ms after sending, over a connection with a 10 ms round trip.
 * Its answers and uploads share a few fake timers (TimedEvents), not one each: vitest scans every pending timer each time
 * one fires.
 */
function caller(behave: (row: number, nth: number) => 'ok' | Error, latency: number | (() => number) = 100): ModelCaller & { calls: number[] } {
  const seen = new Map<number, number>();
  const calls: number[] = [];
  const events = new TimedEvents();
  return {
    calls,
    generate(request, { onUploaded } = {}) {
      const row = Number(request.prompt);
      const nth = (seen.get(row) ?? 0) + 1;
      seen.set(row, nth);
      calls.push(row);
      const latencyMs = typeof latency === 'number' ? latency : latency();
      if (onUploaded && latencyMs >= 5) events.after(5, () => onUploaded({ flushedAt: Date.now(), connectRttMs: 10 }));
      return new Promise((resolve, reject) => {
        events.after(latencyMs, () => {
          const result = behave(row, nth);
          if (result === 'ok') resolve(answer('yes'));
          else reject(result);
        });
      });
    },
  };
}

async function* items(n: number): AsyncGenerator<WorkItem> {
  for (let row = 0; row < n; row++) {
    yield freshWorkItem(row, [String(row)], `fp${row}`, tokenFeatures(String(row)));
  }
}

interface Setup {
  pools: Array<{ project: string; client: ModelCaller; maxInFlight?: number; alias?: string }>;
  rows: number;
  rpm?: number;
  maxAttempts?: number;
  processCeiling?: number;
  budget?: BudgetGate;
}

function start(s: Setup) {
  const gates = new Map<string, ProjectGate>();
  const notices: string[] = [];
  for (const p of s.pools) {
    if (gates.has(p.project)) continue;
    const limiter = new ProjectLimiter({ quotaDay: PACIFIC_DAY,
      project: p.project,
      model: 'gemini-2.5-flash',
      limits: { rpm: { value: s.rpm ?? 6_000, source: 'given' }, tpm: { value: 10_000_000, source: 'given' }, rpd: undefined },
      now: Date.now(),
    });
    gates.set(p.project, { limiter, policy: new RateLimitPolicy(limiter, (n) => notices.push(n.text), Date.now(), () => 0.5) });
  }
  const finished = new Map<number, RowOutcome & { key: string | null; attempts: number }>();
  const duplicates: number[] = [];
  const pools: KeyPool[] = s.pools.map((p, i) => ({ alias: p.alias ?? `key-${i + 1}`, project: p.project, client: p.client, maxInFlight: p.maxInFlight }));
  const dispatcher = new Dispatcher({
    pools,
    gates,
    rows: items(s.rows),
    estimator: new TokenEstimator(),
    buildRequest: (cells) => ({ model: 'gemini-2.5-flash', prompt: cells[0] ?? '', output: { kind: 'text' }, reasoning: 'least' }),
    judge: (_item, a) => ({ kind: 'final', outcome: { status: 'ok', label: a.text ?? null, raw: a.text ?? null, finishReason: 'STOP', error: null } }),
    onFinished: (item, outcome) => {
      if (finished.has(item.row)) duplicates.push(item.row);
      finished.set(item.row, { ...outcome, key: item.key, attempts: item.attempts });
    },
    onNotice: (n) => notices.push(n.text),
    maxAttempts: s.maxAttempts ?? 8,
    ...(s.budget ? { budget: s.budget } : {}),
    stopGraceMs: 5_000,
    processCeiling: s.processCeiling ?? 10_000,
    loadGuard: null,
    random: () => 0.5,
  });
  const done = dispatcher.run();
  return { dispatcher, done, finished, duplicates, notices, gates };
}

describe('Dispatcher', () => {
  useFakeClock();

  it('finishes every row exactly once through transient failures and 429s', async () => {
    const flaky = caller((row, nth) => {
      if (nth === 1 && row % 7 === 0) return failure('503-overloaded.json', 503);
      if (nth === 1 && row % 11 === 0) return failure('429-a-free-tpm-old-format.json', 429);
      if (nth <= 2 && row % 13 === 0) return Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
      return 'ok';
    });
    const run = start({ pools: [{ project: 'p1', client: flaky }], rows: 300 });
    const end = await settle(run.done, STEP_MS);
    expect(end).toEqual({ kind: 'done' });
    expect(run.finished.size).toBe(300);
    expect(run.duplicates).toEqual([]);
    expect([...run.finished.values()].every((o) => o.status === 'ok')).toBe(true);
    expect(run.dispatcher.stats.rateLimited).toBeGreaterThan(0);
  });

  it('a row that keeps failing ends failed with its last error after --max-attempts requests; the others go on', async () => {
    const bad = caller((row) => (row === 3 ? failure('500-internal.json', 500) : 'ok'));
    const run = start({ pools: [{ project: 'p1', client: bad }], rows: 10, maxAttempts: 4 });
    await settle(run.done, STEP_MS);
    expect(run.finished.get(3)).toMatchObject({ status: 'failed', attempts: 4 });
    expect(run.finished.get(3)?.error).toMatch(/HTTP 500 INTERNAL.*after 4 attempts/);
    expect([...run.finished.values()].filter((o) => o.status === 'ok')).toHaveLength(9);
  });

  it('other 4xx are not retried', async () => {
    const bad = caller((row) => (row === 1 ? failure('400-context-too-long.json', 400) : 'ok'));
    const run = start({ pools: [{ project: 'p1', client: bad }], rows: 3 });
    await settle(run.done, STEP_MS);
    expect(run.finished.get(1)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(bad.calls.filter((r) => r === 1)).toHaveLength(1);
  });

  it('rows go to the pool with free capacity, not round-robin', async () => {
    const slow = caller(() => 'ok', 2_000);
    const fast = caller(() => 'ok', 50);
    const run = start({ pools: [{ project: 'a', client: slow, maxInFlight: 2 }, { project: 'b', client: fast, maxInFlight: 2 }], rows: 200 });
    await settle(run.done, STEP_MS);
    expect(fast.calls.length).toBeGreaterThan(5 * slow.calls.length);
    expect(run.finished.size).toBe(200);
  });

  it('a refused key stops its pool and its rows move to the other key, without costing attempts', async () => {
    const refused = caller(() => failure('400-api-key-invalid.json', 400));
    const good = caller(() => 'ok');
    const run = start({ pools: [{ project: 'a', client: refused }, { project: 'b', client: good }], rows: 50, maxAttempts: 1 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('done');
    expect([...run.finished.values()].every((o) => o.status === 'ok' && o.key === 'key-2')).toBe(true);
    expect(run.notices.filter((n) => n.includes('refused'))).toHaveLength(1);
  });

  it('when every key is refused the run ends unavailable and rows stay pending', async () => {
    const refused = caller(() => failure('403-leaked-key.json', 403));
    const run = start({ pools: [{ project: 'a', client: refused }], rows: 20 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('unavailable');
    expect(run.finished.size).toBe(0);
  });

  it('a daily quota parks its project; rows move to the other project; when all are parked the run ends parked', async () => {
    const daily = caller(() => failure('429-b-free-rpd-short-retry-delay.json', 429));
    const good = caller((row) => (row >= 30 ? failure('429-c-free-rpd-flash.json', 429) : 'ok'));
    const run = start({ pools: [{ project: 'a', client: daily }, { project: 'b', client: good }], rows: 60 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('parked');
    if (end.kind === 'parked') expect(end.until).toBeGreaterThan(T0);
    expect(run.finished.size).toBeLessThan(60);
    expect([...run.finished.values()].every((o) => o.status === 'ok')).toBe(true);
    expect(run.duplicates).toEqual([]);
  });

  it('an endpoint that never answers ends the run as an outage; the rows stay pending, none is burnt to failed', async () => {
    const refused = caller(() => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }));
    const run = start({ pools: [{ project: 'a', client: refused }], rows: 200 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('outage');
    if (end.kind === 'outage') expect(end.reason).toContain('ECONNREFUSED');
    expect(run.finished.size).toBe(0);
    // What one second of pacing lets out before the first failures come back, then no more than detection needs.
    expect(refused.calls.length).toBeLessThanOrEqual(run.gates.get('a')!.limiter.rpmTarget / 60 + 2 * UNREACHABLE_AFTER);
  });

  it('nothing but 503s for two minutes ends the run as an outage; rows that succeeded stay done', async () => {
    const down = caller((row) => (row < 10 ? 'ok' : failure('503-overloaded.json', 503)));
    // 30 rows failing, each sent again at least every 30 s (the backoff's cap at random 0.5): 503s keep coming.
    const run = start({ pools: [{ project: 'a', client: down }], rows: 40, maxAttempts: 1_000 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('outage');
    expect(run.finished.size).toBe(10);
    expect(Date.now() - T0).toBeGreaterThanOrEqual(120_000);
  });

  it('404 for the model ends the run fatally', async () => {
    const run = start({ pools: [{ project: 'a', client: caller(() => failure('404-model-not-found.json', 404)) }], rows: 5 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('fatal');
  });

  it('stop() sends nothing new, lets requests in flight finish, and ends interrupted', async () => {
    const c = caller(() => 'ok', 1_000);
    const run = start({ pools: [{ project: 'a', client: c, maxInFlight: 3 }], rows: 100 });
    await vi.advanceTimersByTimeAsync(500);
    const sentBeforeStop = c.calls.length;
    run.dispatcher.stop();
    const end = await settle(run.done, STEP_MS);
    expect(end).toEqual({ kind: 'interrupted' });
    expect(c.calls.length).toBe(sentBeforeStop);
    expect(run.finished.size).toBe(sentBeforeStop);
  });

  it('keeps request starts within RPM across two keys of one project', async () => {
    const starts: number[] = [];
    const c: ModelCaller = {
      generate: () => {
        starts.push(Date.now());
        return new Promise((resolve) => setTimeout(() => resolve(answer('yes')), 100));
      },
    };
    const run = start({ pools: [{ project: 'p', client: c }, { project: 'p', client: c }], rows: 400, rpm: 120 });
    await settle(run.done, STEP_MS);
    const limit = run.gates.get('p')!.limiter.rpmTarget;
    // The most starts in any (t − 60 s, t] ending at a start: `starts` is in time order, so one pass with a window tail.
    let most = { count: 0, at: T0 };
    for (let i = 0, tail = 0; i < starts.length; i++) {
      while (starts[tail]! <= starts[i]! - 60_000) tail++;
      let end = i;
      while (starts[end + 1] === starts[i]) end++; // starts at the same ms all count in the window ending there
      if (end - tail + 1 > most.count) most = { count: end - tail + 1, at: starts[i]! };
    }
    expect(most.count, `starts in the 60 s up to ${new Date(most.at).toISOString()}`).toBeLessThanOrEqual(limit);
    expect(run.finished.size).toBe(400);
  });

  it('without a bound, requests in flight converge to rate × latency and the quota binds, at 5 s per answer', async () => {
    // 600 RPM → 594 RPM target = 9.9/s; answers after 5 s → about 49.5 in flight.
    const c = caller(() => 'ok', 5_000);
    // 2,000 rows: 3.4 min of quota, past the 2.5 min sampled below.
    const run = start({ pools: [{ project: 'p', client: c }], rows: 2_000, rpm: 600 });
    const samples: number[] = [];
    await vi.advanceTimersByTimeAsync(30_000);
    for (let i = 0; i < 120; i++) {
      await vi.advanceTimersByTimeAsync(1_000);
      samples.push(run.dispatcher.stats.inFlight);
    }
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    expect(mean).toBeGreaterThan(0.9 * 9.9 * 5);
    expect(mean).toBeLessThan(1.1 * 9.9 * 5);
    // The pools' limit has room above what is in flight: concurrency does not bind, the quota does.
    expect(run.dispatcher.slots).toBeGreaterThan(1.2 * 9.9 * 5);
    const shares = run.dispatcher.bindingShares();
    expect(shares[0]?.binding).toBe('rpm');
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('done');
    // 2,000 rows at 594/min: the quota's time plus one answer's latency, within a few per cent.
    expect(Date.now() - T0).toBeLessThan((2_000 / 594) * 60_000 * 1.03 + 5_000);
  });

  it('in flight follows the quota at lognormal latencies up to 40 s (median 20 s)', async () => {
    let seed = 7;
    const uniform = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const lognormal = () => {
      const z = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
      return 20_000 * Math.exp(z * (Math.log(40_000 / 20_000) / 2.326));
    };
    const c = caller(() => 'ok', lognormal);
    const run = start({ pools: [{ project: 'p', client: c }], rows: 2_000, rpm: 300 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('done');
    expect(run.finished.size).toBe(2_000);
    // 2,000 rows at 297/min take 6.73 min of quota, plus the last answers (≤ about 1 min).
    const minutes = (Date.now() - T0) / 60_000;
    expect(minutes).toBeLessThan((2_000 / 297) * 1.02 + 1);
  });

  it('a user bound below what the quota needs is said once, with the numbers', async () => {
    const c = caller(() => 'ok', 5_100);
    const run = start({
      pools: [
        { project: 'p', client: c, maxInFlight: 5 },
        { project: 'p', client: c, maxInFlight: 5 },
        { project: 'p', client: c, maxInFlight: 5 },
      ],
      rows: 600,
      rpm: 1_000,
    });
    await settle(run.done, STEP_MS);
    const said = run.notices.filter((n) => n.includes('workers per key'));
    expect(said).toEqual([
      'project p: 5 workers per key × 3 keys at 5.1 s per answer reach 176 RPM; the quota allows 990 — raise --workers-per-key to 30 or leave it out.',
    ]);
    expect(run.dispatcher.bindingShares()[0]?.binding).toBe('concurrency');
  });

  it('the process ceiling bounds requests in flight and is said once when it keeps the quota out of reach', async () => {
    const c = caller(() => 'ok', 4_000);
    const run = start({ pools: [{ project: 'p', client: c }, { project: 'q', client: c }], rows: 800, rpm: 6_000, processCeiling: 20 });
    let most = 0;
    for (let i = 0; i < 60; i++) {
      await vi.advanceTimersByTimeAsync(500);
      most = Math.max(most, run.dispatcher.stats.inFlight);
    }
    expect(most).toBeLessThanOrEqual(20);
    await settle(run.done, STEP_MS);
    expect(run.finished.size).toBe(800);
    expect(run.notices.filter((n) => n.includes('in flight in this process'))).toHaveLength(2);
  });

  it('our own sockets running out (EMFILE) never fails a row: the ceiling drops below and the rows are sent again', async () => {
    let inFlight = 0;
    const events = new TimedEvents();
    const c: ModelCaller & { calls: number[] } = {
      calls: [],
      generate() {
        if (inFlight >= 30) return Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'EMFILE' } }));
        inFlight++;
        return new Promise((resolve) =>
          events.after(3_000, () => {
            inFlight--;
            resolve(answer('yes'));
          }),
        );
      },
    };
    const run = start({ pools: [{ project: 'p', client: c }], rows: 1_500, rpm: 60_000, maxAttempts: 1 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('done');
    expect(run.finished.size).toBe(1_500);
    expect([...run.finished.values()].every((o) => o.status === 'ok')).toBe(true);
    expect(run.dispatcher.slots).toBeLessThanOrEqual(30);
  });

  it('every request 503 from the start (issue 11): the run stops for the outage and no row is failed — all stay pending', async () => {
    const down = caller(() => failure('503-overloaded.json', 503));
    const run = start({ pools: [{ project: 'a', client: down }], rows: 194 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('outage');
    expect(run.finished.size).toBe(0);
    expect(Date.now() - T0).toBeGreaterThanOrEqual(120_000);
  });

  it('an outage after some rows succeeded leaves the other rows pending, not failed', async () => {
    const down = caller((row) => (row < 40 ? 'ok' : failure('503-overloaded.json', 503)));
    const run = start({ pools: [{ project: 'a', client: down }], rows: 80 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('outage');
    expect([...run.finished.values()].filter((o) => o.status !== 'ok')).toEqual([]);
    // Each of the 40 failing rows was sent more often than its 8 attempts allow: had the 503s counted, it would be failed.
    const sends = new Map<number, number>();
    for (const row of down.calls) if (row >= 40) sends.set(row, (sends.get(row) ?? 0) + 1);
    expect(sends.size).toBe(40);
    expect(Math.min(...sends.values())).toBeGreaterThan(8);
  });

  it('a partial outage (a third of all requests 503) fails no row: the failures are the endpoint\'s, not the rows\'', async () => {
    // Independent draws per (row, attempt): about 1 row in 9 would fail twice in a row.
    const draw = (row: number, nth: number) => {
      let x = row * 1_000 + nth;
      x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
      x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
      return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
    };
    const flaky = caller((row, nth) => (draw(row, nth) < 1 / 3 ? failure('503-overloaded.json', 503) : 'ok'));
    const run = start({ pools: [{ project: 'a', client: flaky }], rows: 500, maxAttempts: 2 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('done');
    expect([...run.finished.values()].every((o) => o.status === 'ok')).toBe(true);
  });

  it('answers slower than the default 60 s timeout still come: the timeout follows them (no --timeout given)', async () => {
    const sent: number[] = [];
    const slow: ModelCaller = {
      generate(_request, { timeoutMs = 60_000 } = {}) {
        sent.push(timeoutMs);
        return new Promise((resolve, reject) => {
          if (timeoutMs < 90_000) setTimeout(() => reject(new TimeoutFailure(timeoutMs)), timeoutMs);
          else setTimeout(() => resolve(answer('yes')), 90_000);
        });
      },
    };
    const run = start({ pools: [{ project: 'p', client: slow }], rows: 40, rpm: 600, maxAttempts: 2 });
    const end = await settle(run.done, STEP_MS);
    expect(end.kind).toBe('done');
    expect([...run.finished.values()].every((o) => o.status === 'ok')).toBe(true);
    // After the first timeouts at 60 s, every later request waits 120 s.
    expect(sent.filter((ms) => ms === 60_000).length).toBeLessThanOrEqual(40);
    expect(Math.max(...sent)).toBe(120_000);
  });

  it('a spending cap: never reserves past it, waits for requests in flight, then ends (budget) with the rest pending', async () => {
    // Each request reserves 1 and costs 0.5 once answered (0 when it fails): at cap 10, 19 answers fit (9.5 spent).
    let spent = 0;
    let reserved = 0;
    let worst = 0;
    let refusedInFlight = 0;
    const budget: BudgetGate = {
      tryReserve() {
        if (spent + reserved + 1 > 10) {
          if (reserved > 0) refusedInFlight++;
          return { refused: { capUsd: 10, spentUsd: spent, inFlightUsd: reserved, requestUsd: 1 } };
        }
        reserved += 1;
        worst = Math.max(worst, spent + reserved);
        return { hold: { settle: (a) => { reserved -= 1; if (a) spent += 0.5; } } };
      },
    };
    const flaky = caller((row, nth) => (nth === 1 && row % 5 === 0 ? failure('503-overloaded.json', 503) : 'ok'));
    const run = start({ pools: [{ project: 'a', client: flaky }], rows: 100, budget });
    const end = await settle(run.done, STEP_MS);
    expect(end).toEqual({ kind: 'budget', capUsd: 10, spentUsd: 9.5, inFlightUsd: 0, requestUsd: 1 });
    expect(worst).toBeLessThanOrEqual(10);
    expect(refusedInFlight).toBeGreaterThan(0); // it waited for answers before giving up
    expect(run.finished.size).toBe(19);
    expect(run.duplicates).toEqual([]);
    expect(reserved).toBe(0);
  });

  describe('429s without details (issue 10)', () => {
    const bare = () => failure('429-h-bare-capacity.json', 429);
    /** Minutes a run of `rows` at 300 RPM takes, answers after 200 ms, with `isBare(row, nth)` answered by a bare 429. */
    async function minutes(rows: number, isBare: (row: number, nth: number) => boolean): Promise<{ minutes: number; failed: number }> {
      const c = caller((row, nth) => (isBare(row, nth) ? bare() : 'ok'), 200);
      const run = start({ pools: [{ project: 'p', client: c }], rows, rpm: 300 });
      const end = await settle(run.done, STEP_MS);
      expect(end.kind).toBe('done');
      expect(run.finished.size).toBe(rows);
      return { minutes: (Date.now() - T0) / 60_000, failed: [...run.finished.values()].filter((o) => o.status !== 'ok').length };
    }

    it('one bare 429 on row 5 costs less than 10 % of the run', async () => {
      const clean = await minutes(1_500, () => false);
      vi.setSystemTime(T0);
      const once = await minutes(1_500, (row, nth) => row === 5 && nth === 1);
      expect(once.minutes).toBeLessThan(1.1 * clean.minutes);
      expect(once.failed).toBe(0);
    });

    it('with 1 % of answers a bare 429, the run keeps at least 0.90 of the declared quota and fails no row', async () => {
      const draw = (row: number, nth: number) => {
        let x = row * 1_000 + nth + 17;
        x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
        x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
        return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
      };
      const run = await minutes(1_500, (row, nth) => draw(row, nth) < 0.01);
      // The declared quota: 1,500 rows at 300 RPM is 5 minutes.
      expect(1_500 / 300 / run.minutes).toBeGreaterThanOrEqual(0.9);
      expect(run.failed).toBe(0);
    });
  });
});
