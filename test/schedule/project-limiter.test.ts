import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextPacificMidnight, pacificDay } from '../../src/schedule/pacific-day.js';
import { ProjectLimiter, type DailyUsageStore } from '../../src/schedule/project-limiter.js';

const T0 = Date.parse('2026-11-29T12:00:00Z');

function limiter(rpm: number, tpm: number, extra: Partial<ConstructorParameters<typeof ProjectLimiter>[0]> = {}) {
  return new ProjectLimiter({
    project: 'p1',
    model: 'gemini-2.5-flash',
    limits: { rpm: { value: rpm, source: 'given' }, tpm: { value: tpm, source: 'given' }, rpd: undefined },
    now: T0,
    ...extra,
  });
}

interface Sent {
  at: number;
  answeredAt: number;
  tokens: number;
}

/**
 * Sends every request as early as the limiter allows; each is answered `latencyMs` later (settled then). Returns when
 * each was sent and answered.
 */
function drive(l: ProjectLimiter, arrivals: Array<{ gapMs: number; tokens: number; latencyMs?: number }>): Sent[] {
  const sent: Sent[] = [];
  const pending: Array<{ due: number; reservation: ReturnType<ProjectLimiter['acquire']>; tokens: number }> = [];
  const settleUntil = (t: number) => {
    pending.sort((a, b) => a.due - b.due);
    while (pending.length > 0 && pending[0]!.due <= t) {
      const p = pending.shift()!;
      l.settle(p.reservation, p.tokens, p.due);
    }
  };
  let t = T0;
  for (const { gapMs, tokens, latencyMs = 200 } of arrivals) {
    t += gapMs;
    if (l.tooLarge(tokens)) continue;
    for (;;) {
      settleUntil(t);
      const at = l.readyAt(tokens, t);
      if (at <= t) break;
      const nextAnswer = pending.length > 0 ? Math.min(...pending.map((p) => p.due)) : Infinity;
      const next = Math.min(at, nextAnswer);
      if (!Number.isFinite(next)) throw new Error('limiter stuck');
      t = next;
    }
    const reservation = l.acquire(tokens, t);
    pending.push({ due: t + latencyMs, reservation, tokens });
    sent.push({ at: t, answeredAt: t + latencyMs, tokens });
  }
  settleUntil(Infinity);
  return sent;
}

/**
 * The most weight "occupying" any instant, where a request occupies [sent, answered + window): the server counted it
 * at its arrival, somewhere between sending and answer, so this bounds what any server window of that length saw.
 */
function maxOccupancy(sent: Sent[], windowMs: number, weight: (s: Sent) => number): number {
  const events = sent.flatMap((s) => [
    { t: s.at, d: weight(s) },
    { t: s.answeredAt + windowMs, d: -weight(s) },
  ]);
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let level = 0;
  let best = 0;
  for (const e of events) {
    level += e.d;
    best = Math.max(best, level);
  }
  return best;
}

const arrivals = fc.array(
  fc.record({
    gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3_000 })),
    tokens: fc.integer({ min: 1, max: 3_000 }),
    latencyMs: fc.oneof(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 30_000 })),
  }),
  { minLength: 1, maxLength: 300 },
);

describe('ProjectLimiter: no rolling window ever exceeds its limit', () => {
  it('RPM: at most rpmTarget requests are ever counted by any 60 s window, whatever the latency', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), arrivals, (rpm, stream) => {
        const l = limiter(rpm, 10_000_000);
        const sent = drive(l, stream);
        expect(maxOccupancy(sent, 60_000, () => 1)).toBeLessThanOrEqual(l.rpmTarget);
      }),
      { numRuns: 150 },
    );
  });

  it('TPM: reserved input tokens counted by any 60 s window stay within tpmTarget', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3_000, max: 200_000 }), arrivals, (tpm, stream) => {
        const l = limiter(100_000, tpm);
        const sent = drive(l, stream);
        expect(maxOccupancy(sent, 60_000, (s) => s.tokens)).toBeLessThanOrEqual(l.tpmTarget);
      }),
      { numRuns: 150 },
    );
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
        for (const { at } of sent) {
          level = Math.min(burst, level + ((at - last) * rpm) / 60_000);
          last = at;
          expect(level).toBeGreaterThanOrEqual(1 - 1e-9);
          level -= 1;
        }
      }),
      { numRuns: 150 },
    );
  });

  it('sustains its target: a backlog of requests goes at the target rate, less one latency per minute', () => {
    const l = limiter(600, 10_000_000);
    const sent = drive(l, Array.from({ length: 2_000 }, () => ({ gapMs: 0, tokens: 10, latencyMs: 200 })));
    const threeMinutes = sent.filter(({ at }) => at < T0 + 180_000).length;
    const perMinute = l.rpmTarget;
    expect(threeMinutes).toBeLessThanOrEqual(3 * perMinute + 1);
    expect(threeMinutes).toBeGreaterThanOrEqual(Math.floor(3 * perMinute * (60_000 / 60_300)) - 1);
  });
});

describe('ProjectLimiter: reservations', () => {
  it('settle corrects the reserved tokens with promptTokenCount', () => {
    const l = limiter(1_000, 10_000);
    const r = l.acquire(1_000, T0);
    expect(l.usage(T0).tokens).toBe(1_000);
    l.settle(r, 1_500, T0 + 100);
    expect(l.usage(T0 + 100).tokens).toBe(1_500);
    l.settle(r, 9_999, T0 + 200); // only the first settlement counts
    expect(l.usage(T0 + 200).tokens).toBe(1_500);
  });

  it('a request in flight blocks what would overflow until its answer, then counts from the answer on', () => {
    const l = limiter(1_000, 10_000);
    const r = l.acquire(8_000, T0);
    expect(l.readyAt(5_000, T0 + 30_000)).toBe(Infinity);
    l.settle(r, 8_000, T0 + 30_000);
    expect(l.readyAt(5_000, T0 + 30_000)).toBeGreaterThanOrEqual(T0 + 90_000);
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
    const l = new ProjectLimiter({
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
    const first = new ProjectLimiter({ project: 'p1', model: 'm', limits: limits(), daily, now: T0 });
    first.park(nextPacificMidnight(T0), 'daily quota exhausted');
    const second = new ProjectLimiter({ project: 'p1', model: 'm', limits: limits(), daily, now: T0 + 60_000 });
    expect(second.hold(T0 + 60_000)).toMatchObject({ kind: 'parked', until: nextPacificMidnight(T0) });
    expect(second.hold(nextPacificMidnight(T0))).toBeUndefined();
  });

  it('a second run the same Pacific day starts from what the store says was spent', () => {
    const daily = store();
    daily.counts.set(`p1|m|${pacificDay(T0)}`, 5);
    const l = new ProjectLimiter({
      project: 'p1',
      model: 'm',
      limits: { rpm: { value: 100, source: 'given' }, tpm: { value: 1e9, source: 'given' }, rpd: { value: 5, source: 'given' } },
      daily,
      now: T0,
    });
    expect(l.hold(T0)?.kind).toBe('parked');
  });
});
