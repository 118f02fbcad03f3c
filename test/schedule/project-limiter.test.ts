import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PACIFIC_DAY } from '../../src/providers/gemini/quota-day.js';

const nextPacificMidnight = (ms: number) => PACIFIC_DAY.nextBoundary(ms);
const pacificDay = (ms: number) => PACIFIC_DAY.dayOf(ms);
import { arrivalBound } from '../../src/schedule/arrival-bound.js';
import { ProjectLimiter, type DailyUsageStore } from '../../src/schedule/project-limiter.js';
import { EventHeap } from '../support/event-heap.js';

const T0 = Date.parse('2026-11-29T12:00:00Z');

function limiter(rpm: number, tpm: number, extra: Partial<ConstructorParameters<typeof ProjectLimiter>[0]> = {}) {
  return new ProjectLimiter({ quotaDay: PACIFIC_DAY,
    project: 'p1',
    model: 'gemini-2.5-flash',
    limits: { rpm: { value: rpm, source: 'given' }, tpm: { value: tpm, source: 'given' }, rpd: undefined },
    now: T0,
    ...extra,
  });
}

interface Sent {
  at: number;
  /** When the server counted it. */
  arrivedAt: number;
  answeredAt: number;
  tokens: number;
}

interface Arrival {
  gapMs: number;
  tokens: number;
  latencyMs?: number;
  /** Time from sending until the transport hands the last byte to the OS (event loop, connect, TLS), ms. */
  flushMs?: number;
  /** The connection's measured connect round trip, ms. */
  rttMs?: number;
  /** Where in [0, 1] of its allowance after the flush (round trip + margin) the request reaches the server. */
  transit?: number;
}

/**
 * Sends every request as early as the limiter allows. Each request's bytes reach the OS `flushMs` after sending (the
 * transport then reports it and the limiter bounds its arrival), reach the server anywhere within the guard after that
 * (the server counts it then), and are answered `latencyMs` after sending (settled then). Returns the times of each.
 */
function drive(l: ProjectLimiter, arrivals: Arrival[]): Sent[] {
  const sent: Sent[] = [];
  // Uploads and answers by time, then in the order they were scheduled.
  const pending = new EventHeap<() => void>();
  const runUntil = (t: number) => {
    while (pending.size > 0 && pending.nextAt <= t) pending.pop()();
  };
  let t = T0;
  for (const { gapMs, tokens, latencyMs = 200, flushMs = 0, rttMs = 0, transit = 1 } of arrivals) {
    t += gapMs;
    if (l.tooLarge(tokens)) continue;
    for (;;) {
      runUntil(t);
      const at = l.readyAt(tokens, t);
      if (at <= t) break;
      const next = Math.min(at, pending.nextAt);
      if (!Number.isFinite(next)) throw new Error('limiter stuck');
      t = next;
    }
    const reservation = l.acquire(tokens, t);
    const flushedAt = t + Math.min(flushMs, latencyMs);
    const bound = arrivalBound({ flushedAt, connectRttMs: rttMs });
    const arrivedAt = Math.min(flushedAt + transit * (bound - flushedAt), t + latencyMs);
    const answeredAt = t + latencyMs;
    pending.push(flushedAt, () => l.arrived(reservation, bound));
    pending.push(answeredAt, () => l.settle(reservation, tokens, answeredAt));
    sent.push({ at: t, arrivedAt, answeredAt, tokens });
  }
  runUntil(Infinity);
  return sent;
}

/** The most weight the server's own rolling window (arrivals in (t − 60 s, t]) ever holds. */
function serverPeak(sent: Sent[], weight: (s: Sent) => number): number {
  const byArrival = [...sent].sort((a, b) => a.arrivedAt - b.arrivedAt);
  let best = 0;
  let sum = 0;
  let tail = 0;
  for (const s of byArrival) {
    sum += weight(s);
    while (byArrival[tail]!.arrivedAt <= s.arrivedAt - 60_000) sum -= weight(byArrival[tail++]!);
    best = Math.max(best, sum);
  }
  return best;
}

const arrivals = fc.array(
  fc.record({
    gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3_000 })),
    tokens: fc.integer({ min: 1, max: 3_000 }),
    latencyMs: fc.oneof(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 30_000 })),
    flushMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 })),
    rttMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 600 })),
    transit: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
  }),
  { minLength: 1, maxLength: 300 },
);

describe('ProjectLimiter: the server\'s window never exceeds the limit', () => {
  it('RPM: at most rpmTarget requests arrive in any 60 s, whatever the latency and the uplink (up to the guard)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), arrivals, (rpm, stream) => {
        const l = limiter(rpm, 10_000_000);
        const sent = drive(l, stream);
        expect(serverPeak(sent, () => 1)).toBeLessThanOrEqual(l.rpmTarget);
      }),
      { numRuns: 150 },
    );
  });

  it('TPM: the input tokens arriving in any 60 s stay within tpmTarget', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3_000, max: 200_000 }), arrivals, (tpm, stream) => {
        const l = limiter(100_000, tpm);
        const sent = drive(l, stream);
        expect(serverPeak(sent, (s) => s.tokens)).toBeLessThanOrEqual(l.tpmTarget);
      }),
      { numRuns: 150 },
    );
  });

  it('a transport that never reports the upload is safe too: the request counts until its answer, then 60 s more', () => {
    const l = limiter(60, 10_000_000);
    let t = T0;
    const sent: Sent[] = [];
    for (let i = 0; i < 200; i++) {
      t = Math.max(t, l.readyAt(1, t));
      const r = l.acquire(1, t);
      // Arrival anywhere up to the answer 5 s later; the answer settles it.
      l.settle(r, 1, t + 5_000);
      sent.push({ at: t, arrivedAt: t + 5_000, answeredAt: t + 5_000, tokens: 1 });
    }
    expect(serverPeak(sent, () => 1)).toBeLessThanOrEqual(l.rpmTarget);
  });

  it('pacing: a token-bucket server with a sixth of a minute of burst never rejects the stream', () => {
    fc.assert(
      fc.property(fc.integer({ min: 6, max: 3_000 }), arrivals, (rpm, stream) => {
        const l = limiter(rpm, 100_000_000);
        const sent = drive(l, stream);
        // The server's bucket: burst rpm/6, refilled rpm/60 per second, full at the start.
        const burst = rpm / 6;
        let level = burst;
        let last = T0;
        // The bucket's level at the first request it would reject (asserted once, after the stream).
        let rejected: { request: number; at: number; level: number } | undefined;
        for (const [request, { at }] of sent.entries()) {
          level = Math.min(burst, level + ((at - last) * rpm) / 60_000);
          last = at;
          if (level < 1 - 1e-9) {
            rejected = { request, at, level };
            break;
          }
          level -= 1;
        }
        expect(rejected).toBeUndefined();
      }),
      { numRuns: 150 },
    );
  });

  it.each([200, 5_000, 20_000, 60_000])('sustains its target whatever the latency (answers after %i ms)', (latencyMs) => {
    const l = limiter(600, 10_000_000);
    const sent = drive(l, Array.from({ length: 4_000 }, () => ({ gapMs: 0, tokens: 10, latencyMs, flushMs: 2, rttMs: 20 })));
    const fiveMinutes = sent.filter(({ at }) => at < T0 + 300_000).length;
    const perMinute = l.rpmTarget;
    expect(fiveMinutes).toBeLessThanOrEqual(5 * perMinute + 1);
    // Each request holds the window for 60 s + its uplink guard (2 + 20 + 25 ms) + 50 ms of timer granularity.
    expect(fiveMinutes).toBeGreaterThanOrEqual(Math.floor(5 * perMinute * (60_000 / 60_100)) - 1);
  });
});

describe('ProjectLimiter: token estimates that are off', () => {
  /** Requests of 100–4,000 estimated tokens whose real count is off by a seeded normal error of `sigma`. */
  function run(withMargin: boolean): number {
    const sigma = 0.15;
    const l = limiter(100_000, 100_000);
    l.setEstimateError(withMargin ? sigma : 0);
    let seed = 5;
    const uniform = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
    const sent: Array<{ at: number; arrivedAt: number; answeredAt: number; tokens: number }> = [];
    const pending = new EventHeap<{ due: number; r: ReturnType<ProjectLimiter['acquire']>; actual: number }>();
    let t = T0;
    for (let i = 0; i < 3_000; i++) {
      const estimate = Math.round(100 * Math.exp(uniform() * Math.log(40)));
      const actual = Math.max(1, Math.round(estimate * (1 + sigma * normal())));
      for (;;) {
        while (pending.nextAt <= t) {
          const p = pending.pop();
          l.settle(p.r, p.actual, p.due);
        }
        const at = l.readyAt(estimate, t);
        if (at <= t) break;
        t = Math.min(at, pending.nextAt);
      }
      const r = l.acquire(estimate, t);
      l.arrived(r, t + 30);
      pending.push(t + 2_000, { due: t + 2_000, r, actual });
      sent.push({ at: t, arrivedAt: t + 30, answeredAt: t + 2_000, tokens: actual });
    }
    return serverPeak(sent, (x) => x.tokens);
  }

  it('a margin of the estimates\' summed error keeps the server\'s window under the limit, where none does not', () => {
    expect(run(true)).toBeLessThanOrEqual(100_000);
    expect(run(false)).toBeGreaterThan(100_000);
  });
});

describe('ProjectLimiter: reservations', () => {
  it('settle corrects the reserved tokens with promptTokenCount', () => {
    const l = limiter(1_000, 10_000);
    const r = l.acquire(1_000, T0);
    expect(l.usage(T0).tokens).toBe(1_000);
    l.arrived(r, T0 + 30);
    expect(l.usage(T0 + 30).tokens).toBe(1_000);
    l.settle(r, 1_500, T0 + 100);
    expect(l.usage(T0 + 100).tokens).toBe(1_500);
    l.settle(r, 9_999, T0 + 200); // only the first settlement counts
    expect(l.usage(T0 + 200).tokens).toBe(1_500);
  });

  it('a request counts from its sending: while sending it blocks what would overflow; once arrived it leaves 60 s after its arrival, not after its answer', () => {
    const l = limiter(1_000, 10_000);
    const r = l.acquire(8_000, T0);
    expect(l.readyAt(5_000, T0 + 10)).toBe(Infinity);
    l.arrived(r, T0 + 40);
    expect(l.readyAt(5_000, T0 + 50)).toBeGreaterThanOrEqual(T0 + 60_040);
    expect(l.readyAt(5_000, T0 + 50)).toBeLessThanOrEqual(T0 + 60_040 + 50);
    l.settle(r, 8_000, T0 + 30_000); // a slow answer does not extend its stay
    expect(l.readyAt(5_000, T0 + 30_000)).toBeLessThanOrEqual(T0 + 60_040 + 50);
  });

  it('refund gives back the tokens of a rejected request but keeps it counted as a request', () => {
    const l = limiter(1_000, 10_000);
    const r = l.acquire(8_000, T0);
    expect(l.readyAt(5_000, T0)).toBeGreaterThan(T0);
    l.refund(r, T0 + 100);
    expect(l.usage(T0 + 100)).toEqual({ requests: 1, tokens: 0 });
    // With the tokens back, only the pacer's spacing separates the next request from the first.
    expect(l.readyAt(5_000, T0 + 60_000)).toBe(T0 + 60_000);
  });

  it('a request larger than the TPM target never fits', () => {
    const l = limiter(1_000, 10_000);
    expect(l.tooLarge(l.tpmTarget + 1)).toBe(true);
    expect(l.readyAt(l.tpmTarget + 1, T0)).toBe(Infinity);
  });

  it('says which constraint holds the next request', () => {
    const l = limiter(60, 10_000_000);
    expect(l.whenReady(1, T0).wait).toBe('none');
    l.acquire(1, T0);
    expect(l.whenReady(1, T0).wait).toBe('rpm');
    const t = limiter(1_000_000, 1_000);
    t.arrived(t.acquire(900, T0), T0 + 10);
    expect(t.whenReady(500, T0 + 20).wait).toBe('tpm');
    t.pause(T0 + 90_000, 'rate limited');
    expect(t.whenReady(500, T0 + 20)).toEqual({ at: T0 + 90_000, wait: 'paused' });
  });

  it('a lower rate scale slows the pacing without stopping all sending until the window drains', () => {
    const l = limiter(600, 10_000_000);
    let t = T0;
    for (let i = 0; i < 2_000 && t < T0 + 120_000; i++) {
      t = Math.max(t, l.readyAt(1, t));
      l.arrived(l.acquire(1, t), t + 10);
    }
    l.setRateScale(0.85);
    const next = l.readyAt(1, t);
    // The next request waits the pacer's new spacing (60 s ÷ 504), not the 9 s the window needs to drain to 504.
    expect(next - t).toBeLessThan(1_000);
  });

  it('adoptLimit changes the limit, its source and the pacing', () => {
    const l = limiter(60, 10_000_000);
    l.adoptLimit('rpm', 600, 'learned');
    expect(l.limits.rpm).toEqual({ value: 600, source: 'learned' });
    expect(l.rpmTarget).toBe(594);
    expect(() => l.adoptLimit('rpm', 0, 'given')).toThrow(RangeError);
  });
});

describe('ProjectLimiter: requests per day', () => {
  function store(): DailyUsageStore & { counts: Map<string, number>; parks: Map<string, { until: number; reason: string }> } {
    const counts = new Map<string, number>();
    const parks = new Map<string, { until: number; reason: string }>();
    return {
      counts,
      parks,
      get: (p, m, d) => counts.get(`${p}|${m}|${d}`) ?? 0,
      increment: (p, m, d) => counts.set(`${p}|${m}|${d}`, (counts.get(`${p}|${m}|${d}`) ?? 0) + 1),
      parked: (p, m) => parks.get(`${p}|${m}`),
      park: (p, m, until, reason) => parks.set(`${p}|${m}`, { until, reason }),
    };
  }

  it('parks the project when RPD is spent and resumes after midnight Pacific', () => {
    const daily = store();
    const l = new ProjectLimiter({ quotaDay: PACIFIC_DAY,
      project: 'p1',
      model: 'm',
      limits: { rpm: { value: 60_000, source: 'given' }, tpm: { value: 1e9, source: 'given' }, rpd: { value: 5, source: 'given' } },
      daily,
      now: T0,
    });
    let t = T0;
    for (let i = 0; i < 5; i++) {
      t = Math.max(t, l.readyAt(1, t));
      l.settle(l.acquire(1, t), 1, t);
    }
    const hold = l.hold(t);
    expect(hold?.kind).toBe('parked');
    const midnight = nextPacificMidnight(t);
    expect(hold && 'until' in hold ? hold.until : 0).toBe(midnight);
    expect(l.readyAt(1, midnight - 1)).toBe(Infinity);
    expect(pacificDay(midnight)).not.toBe(pacificDay(midnight - 1));
    expect(l.hold(midnight)).toBeUndefined();
    expect(l.readyAt(1, midnight)).toBe(midnight);
  });

  it('a park is remembered: a second run the same day starts parked until midnight Pacific', () => {
    const daily = store();
    const limits = () => ({ rpm: { value: 100, source: 'given' as const }, tpm: { value: 1e9, source: 'given' as const }, rpd: undefined });
    const first = new ProjectLimiter({ quotaDay: PACIFIC_DAY, project: 'p1', model: 'm', limits: limits(), daily, now: T0 });
    first.park(nextPacificMidnight(T0), 'daily quota exhausted');
    const second = new ProjectLimiter({ quotaDay: PACIFIC_DAY, project: 'p1', model: 'm', limits: limits(), daily, now: T0 + 60_000 });
    expect(second.hold(T0 + 60_000)).toMatchObject({ kind: 'parked', until: nextPacificMidnight(T0) });
    expect(second.hold(nextPacificMidnight(T0))).toBeUndefined();
  });

  it('a second run the same Pacific day starts from what the store says was spent', () => {
    const daily = store();
    daily.counts.set(`p1|m|${pacificDay(T0)}`, 5);
    const l = new ProjectLimiter({ quotaDay: PACIFIC_DAY,
      project: 'p1',
      model: 'm',
      limits: { rpm: { value: 100, source: 'given' }, tpm: { value: 1e9, source: 'given' }, rpd: { value: 5, source: 'given' } },
      daily,
      now: T0,
    });
    expect(l.hold(T0)?.kind).toBe('parked');
  });
});
