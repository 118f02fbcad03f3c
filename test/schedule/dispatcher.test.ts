import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { failureForStatus } from '../../src/gemini/classify-failure.js';
import type { GeminiCaller, GenerateAnswer } from '../../src/gemini/gemini-client.js';
import { parseRpcStatus } from '../../src/gemini/rpc-status.js';
import { Dispatcher, type DispatchEnd, type KeyPool, type ProjectGate } from '../../src/schedule/dispatcher.js';
import { ProjectLimiter } from '../../src/schedule/project-limiter.js';
import { RateLimitPolicy } from '../../src/schedule/rate-limit-policy.js';
import { TokenEstimator, tokenFeatures } from '../../src/schedule/token-estimator.js';
import type { RowOutcome, WorkItem } from '../../src/schedule/work-item.js';
import { fixtureText } from '../support/fixtures.js';

const T0 = Date.parse('2026-11-29T12:00:00Z');

function answer(text: string): GenerateAnswer {
  return { text, finishReason: 'STOP', blockReason: undefined, usage: { promptTokenCount: 10, candidatesTokenCount: 1, thoughtsTokenCount: 0 } };
}

function failure(name: string, status: number) {
  const text = fixtureText(name);
  return failureForStatus(status, parseRpcStatus(text), text);
}

/** A caller answering after `latencyMs` (fake timers) with whatever `behave` says for the n-th request of a row. */
function caller(behave: (row: number, nth: number) => 'ok' | Error, latencyMs = 100): GeminiCaller & { calls: number[] } {
  const seen = new Map<number, number>();
  const calls: number[] = [];
  return {
    calls,
    generate(request) {
      const row = Number(request.prompt);
      const nth = (seen.get(row) ?? 0) + 1;
      seen.set(row, nth);
      calls.push(row);
      return new Promise((resolve, reject) => {
        setTimeout(() => {
          const result = behave(row, nth);
          if (result === 'ok') resolve(answer('yes'));
          else reject(result);
        }, latencyMs);
      });
    },
  };
}

async function* items(n: number): AsyncGenerator<WorkItem> {
  for (let row = 0; row < n; row++) {
    yield {
      row,
      cells: [String(row)],
      fingerprint: `fp${row}`,
      features: tokenFeatures(String(row)),
      attempts: 0,
      earlierAttempts: 0,
      notBefore: 0,
      variant: undefined,
      retriedFor: new Set(),
      usage: { input: 0, output: 0, thoughts: 0 },
      earlierUsage: { input: 0, output: 0, thoughts: 0 },
      lastError: null,
      key: null,
    };
  }
}

interface Setup {
  pools: Array<{ project: string; client: GeminiCaller; concurrency?: number; alias?: string }>;
  rows: number;
  rpm?: number;
  maxAttempts?: number;
}

function start(s: Setup) {
  const gates = new Map<string, ProjectGate>();
  const notices: string[] = [];
  for (const p of s.pools) {
    if (gates.has(p.project)) continue;
    const limiter = new ProjectLimiter({
      project: p.project,
      model: 'gemini-2.5-flash',
      limits: { rpm: { value: s.rpm ?? 6_000, source: 'given' }, tpm: { value: 10_000_000, source: 'given' }, rpd: undefined },
      now: Date.now(),
    });
    gates.set(p.project, { limiter, policy: new RateLimitPolicy(limiter, (n) => notices.push(n.text), Date.now(), () => 0.5) });
  }
  const finished = new Map<number, RowOutcome & { key: string | null; attempts: number }>();
  const duplicates: number[] = [];
  const pools: KeyPool[] = s.pools.map((p, i) => ({ alias: p.alias ?? `key-${i + 1}`, project: p.project, client: p.client, concurrency: p.concurrency ?? 4 }));
  const dispatcher = new Dispatcher({
    pools,
    gates,
    rows: items(s.rows),
    estimator: new TokenEstimator(),
    buildRequest: (cells) => ({ model: 'gemini-2.5-flash', prompt: cells[0] ?? '', config: {} }),
    judge: (_item, a) => ({ kind: 'final', outcome: { status: 'ok', label: a.text ?? null, raw: a.text ?? null, finishReason: 'STOP', error: null } }),
    onFinished: (item, outcome) => {
      if (finished.has(item.row)) duplicates.push(item.row);
      finished.set(item.row, { ...outcome, key: item.key, attempts: item.attempts });
    },
    onNotice: (n) => notices.push(n.text),
    maxAttempts: s.maxAttempts ?? 8,
    stopGraceMs: 5_000,
    random: () => 0.5,
  });
  const done = dispatcher.run();
  return { dispatcher, done, finished, duplicates, notices, gates };
}

async function settle(done: Promise<DispatchEnd>): Promise<DispatchEnd> {
  let end: DispatchEnd | undefined;
  void done.then((e) => (end = e));
  for (let i = 0; i < 10_000 && end === undefined; i++) await vi.advanceTimersByTimeAsync(1_000);
  if (!end) throw new Error('dispatcher did not end');
  return end;
}

describe('Dispatcher', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('finishes every row exactly once through transient failures and 429s', async () => {
    const flaky = caller((row, nth) => {
      if (nth === 1 && row % 7 === 0) return failure('503-overloaded.json', 503);
      if (nth === 1 && row % 11 === 0) return failure('429-a-free-tpm-old-format.json', 429);
      if (nth <= 2 && row % 13 === 0) return Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
      return 'ok';
    });
    const run = start({ pools: [{ project: 'p1', client: flaky }], rows: 300 });
    const end = await settle(run.done);
    expect(end).toEqual({ kind: 'done' });
    expect(run.finished.size).toBe(300);
    expect(run.duplicates).toEqual([]);
    expect([...run.finished.values()].every((o) => o.status === 'ok')).toBe(true);
    expect(run.dispatcher.stats.rateLimited).toBeGreaterThan(0);
  });

  it('a row that keeps failing ends failed with its last error after --max-attempts requests; the others go on', async () => {
    const bad = caller((row) => (row === 3 ? failure('500-internal.json', 500) : 'ok'));
    const run = start({ pools: [{ project: 'p1', client: bad }], rows: 10, maxAttempts: 4 });
    await settle(run.done);
    expect(run.finished.get(3)).toMatchObject({ status: 'failed', attempts: 4 });
    expect(run.finished.get(3)?.error).toMatch(/HTTP 500 INTERNAL.*after 4 attempts/);
    expect([...run.finished.values()].filter((o) => o.status === 'ok')).toHaveLength(9);
  });

  it('other 4xx are not retried', async () => {
    const bad = caller((row) => (row === 1 ? failure('400-context-too-long.json', 400) : 'ok'));
    const run = start({ pools: [{ project: 'p1', client: bad }], rows: 3 });
    await settle(run.done);
    expect(run.finished.get(1)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(bad.calls.filter((r) => r === 1)).toHaveLength(1);
  });

  it('rows go to the pool with free capacity, not round-robin', async () => {
    const slow = caller(() => 'ok', 2_000);
    const fast = caller(() => 'ok', 50);
    const run = start({ pools: [{ project: 'a', client: slow, concurrency: 2 }, { project: 'b', client: fast, concurrency: 2 }], rows: 200 });
    await settle(run.done);
    expect(fast.calls.length).toBeGreaterThan(5 * slow.calls.length);
    expect(run.finished.size).toBe(200);
  });

  it('a refused key stops its pool and its rows move to the other key, without costing attempts', async () => {
    const refused = caller(() => failure('400-api-key-invalid.json', 400));
    const good = caller(() => 'ok');
    const run = start({ pools: [{ project: 'a', client: refused }, { project: 'b', client: good }], rows: 50, maxAttempts: 1 });
    const end = await settle(run.done);
    expect(end.kind).toBe('done');
    expect([...run.finished.values()].every((o) => o.status === 'ok' && o.key === 'key-2')).toBe(true);
    expect(run.notices.filter((n) => n.includes('refused'))).toHaveLength(1);
  });

  it('when every key is refused the run ends unavailable and rows stay pending', async () => {
    const refused = caller(() => failure('403-leaked-key.json', 403));
    const run = start({ pools: [{ project: 'a', client: refused }], rows: 20 });
    const end = await settle(run.done);
    expect(end.kind).toBe('unavailable');
    expect(run.finished.size).toBe(0);
  });

  it('a daily quota parks its project; rows move to the other project; when all are parked the run ends parked', async () => {
    const daily = caller(() => failure('429-b-free-rpd-short-retry-delay.json', 429));
    const good = caller((row) => (row >= 30 ? failure('429-c-free-rpd-flash.json', 429) : 'ok'));
    const run = start({ pools: [{ project: 'a', client: daily }, { project: 'b', client: good }], rows: 60 });
    const end = await settle(run.done);
    expect(end.kind).toBe('parked');
    if (end.kind === 'parked') expect(end.until).toBeGreaterThan(T0);
    expect(run.finished.size).toBeLessThan(60);
    expect([...run.finished.values()].every((o) => o.status === 'ok')).toBe(true);
    expect(run.duplicates).toEqual([]);
  });

  it('an endpoint that never answers ends the run as an outage; the rows stay pending, none is burnt to failed', async () => {
    const refused = caller(() => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }));
    const run = start({ pools: [{ project: 'a', client: refused }], rows: 200 });
    const end = await settle(run.done);
    expect(end.kind).toBe('outage');
    if (end.kind === 'outage') expect(end.reason).toContain('ECONNREFUSED');
    expect(run.finished.size).toBe(0);
    expect(refused.calls.length).toBeLessThan(40);
  });

  it('nothing but 503s for two minutes ends the run as an outage; rows that succeeded stay done', async () => {
    const down = caller((row) => (row < 10 ? 'ok' : failure('503-overloaded.json', 503)));
    const run = start({ pools: [{ project: 'a', client: down }], rows: 400, maxAttempts: 1_000 });
    const end = await settle(run.done);
    expect(end.kind).toBe('outage');
    expect(run.finished.size).toBe(10);
    expect(Date.now() - T0).toBeGreaterThanOrEqual(120_000);
  });

  it('404 for the model ends the run fatally', async () => {
    const run = start({ pools: [{ project: 'a', client: caller(() => failure('404-model-not-found.json', 404)) }], rows: 5 });
    const end = await settle(run.done);
    expect(end.kind).toBe('fatal');
  });

  it('stop() sends nothing new, lets requests in flight finish, and ends interrupted', async () => {
    const c = caller(() => 'ok', 1_000);
    const run = start({ pools: [{ project: 'a', client: c, concurrency: 3 }], rows: 100 });
    await vi.advanceTimersByTimeAsync(500);
    const sentBeforeStop = c.calls.length;
    run.dispatcher.stop();
    const end = await settle(run.done);
    expect(end).toEqual({ kind: 'interrupted' });
    expect(c.calls.length).toBe(sentBeforeStop);
    expect(run.finished.size).toBe(sentBeforeStop);
  });

  it('keeps request starts within RPM across two keys of one project', async () => {
    const starts: number[] = [];
    const c: GeminiCaller = {
      generate: () => {
        starts.push(Date.now());
        return new Promise((resolve) => setTimeout(() => resolve(answer('yes')), 100));
      },
    };
    const run = start({ pools: [{ project: 'p', client: c }, { project: 'p', client: c }], rows: 400, rpm: 120 });
    await settle(run.done);
    const limit = run.gates.get('p')!.limiter.rpmTarget;
    for (let i = 0; i < starts.length; i++) {
      const inWindow = starts.filter((t) => t > starts[i]! - 60_000 && t <= starts[i]!).length;
      expect(inWindow).toBeLessThanOrEqual(limit);
    }
    expect(run.finished.size).toBe(400);
  });
});
