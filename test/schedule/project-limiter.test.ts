import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextPacificMidnight, pacificDay } from '../../src/schedule/pacific-day.js';
import { ProjectLimiter, type DailyUsageStore } from '../../src/schedule/project-limiter.js';
import { WINDOW_GUARD_MS } from '../../src/schedule/quota-limits.js';

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

/** Starts every request as early as the limiter allows; returns [start time, tokens] pairs. */
function drive(l: ProjectLimiter, arrivals: Array<{ gapMs: number; tokens: number }>): Array<[number, number]> {
  const starts: Array<[number, number]> = [];
  let t = T0;
  for (const { gapMs, tokens } of arrivals) {
    t += gapMs;
    const at = l.readyAt(tokens, t);
    if (!Number.isFinite(at)) continue;
    t = Math.max(t, at);
    l.acquire(tokens, t);
    starts.push([t, tokens]);
  }
  return starts;
}

/** Largest sum of weights in any window of `windowMs` ending at an event. */
function maxInWindow(events: Array<[number, number]>, windowMs: number): number {
  let best = 0;
  let sum = 0;
  let lo = 0;
  for (let hi = 0; hi < events.length; hi++) {
    sum += events[hi]![1];
    while (events[lo]![0] <= events[hi]![0] - windowMs) sum -= events[lo++]![1];
    best = Math.max(best, sum);
  }
  return best;
}

const arrivals = fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 3_000 }), tokens: fc.integer({ min: 1, max: 3_000 }) }), {
  minLength: 1,
  maxLength: 400,
});

describe('ProjectLimiter: no rolling window ever exceeds its limit', () => {
  it('RPM: at most rpmTarget request starts in any 60 s window', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), arrivals, (rpm, stream) => {
        const l = limiter(rpm, 10_000_000);
        const starts = drive(l, stream).map(([t]) => [t, 1] as [number, number]);
        expect(maxInWindow(starts, 60_000 + WINDOW_GUARD_MS)).toBeLessThanOrEqual(l.rpmTarget);
      }),
      { numRuns: 150 },
    );
  });

  it('TPM: reserved input tokens in any 60 s window stay within tpmTarget', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3_000, max: 200_000 }), arrivals, (tpm, stream) => {
        const l = limiter(100_000, tpm);
        const starts = drive(l, stream);
        expect(maxInWindow(starts, 60_000 + WINDOW_GUARD_MS)).toBeLessThanOrEqual(l.tpmTarget);
      }),
      { numRuns: 150 },
    );
  });

  it('pacing: a token-bucket server with a sixth of a minute of burst never rejects the stream', () => {
    fc.assert(
      fc.property(fc.integer({ min: 6, max: 3_000 }), arrivals, (rpm, stream) => {
        const l = limiter(rpm, 100_000_000);
        const starts = drive(l, stream);
        // The server's bucket: burst rpm/6, refilled rpm/60 per second, full at the start.
        const burst = rpm / 6;
        let level = burst;
        let last = T0;
        for (const [t] of starts) {
          level = Math.min(burst, level + ((t - last) * rpm) / 60_000);
          last = t;
          expect(level).toBeGreaterThanOrEqual(1 - 1e-9);
          level -= 1;
        }
      }),
      { numRuns: 150 },
    );
  });

  it('sustains its target: a backlog of requests starts at the target rate', () => {
    const l = limiter(600, 10_000_000);
    const starts = drive(l, Array.from({ length: 2_000 }, () => ({ gapMs: 0, tokens: 10 })));
    const firstMinutes = starts.filter(([t]) => t < T0 + 180_000).length;
    // 3 minutes at 600 × (1 − headroom) per minute, give or take one burst.
    expect(firstMinutes).toBeGreaterThanOrEqual(3 * l.rpmTarget - 1);
    expect(firstMinutes).toBeLessThanOrEqual(3 * l.rpmTarget + 1);
  });
});

describe('ProjectLimiter: reservations', () => {
  it('settle corrects the reserved tokens with promptTokenCount', () => {
    const l = limiter(1_000, 10_000);
    const r = l.acquire(1_000, T0);
    expect(l.usage(T0).tokens).toBe(1_000);
    l.settle(r, 1_500);
    expect(l.usage(T0).tokens).toBe(1_500);
    l.settle(r, 9_999); // only the first settlement counts
    expect(l.usage(T0).tokens).toBe(1_500);
  });

  it('refund gives back the tokens of a rejected request but keeps it counted as a request', () => {
    const l = limiter(1_000, 10_000);
    const r = l.acquire(8_000, T0);
    expect(l.readyAt(5_000, T0)).toBeGreaterThan(T0);
    l.refund(r);
    expect(l.usage(T0)).toEqual({ requests: 1, tokens: 0 });
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
  function store(): DailyUsageStore & { counts: Map<string, number> } {
    const counts = new Map<string, number>();
    return {
      counts,
      get: (p, m, d) => counts.get(`${p}|${m}|${d}`) ?? 0,
      increment: (p, m, d) => counts.set(`${p}|${m}|${d}`, (counts.get(`${p}|${m}|${d}`) ?? 0) + 1),
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
      l.acquire(1, t);
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
