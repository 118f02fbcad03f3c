/**
 * Property tests of the quota ledger with a fake clock: for random request streams (arrival gaps, token
 * sizes), no window ever admits more than its limit, a request is rejected exactly when some dimension would
 * be exceeded, each violation names such a dimension, and the announced wait is exact.
 * Oracles are naive recomputations over the list of admitted requests. The per-request checks of the longer
 * properties collect what disagrees and assert once per run: an `expect` per request and per window was two thirds of
 * this file's CPU (the ledger itself a tenth).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QuotaBucket } from '../../src/simulator/quota-ledger.js';
import type { ModelLimits, WindowPolicy } from '../../src/simulator/types.js';

interface Event {
  dt: number;
  tokens: number;
}
interface Admitted {
  t: number;
  tokens: number;
}

const eventsArb = fc.array(
  fc.record({ dt: fc.oneof(fc.constantFrom(0, 1, 20_000, 30_000, 60_000), fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 40_000 })), tokens: fc.integer({ min: 1, max: 80 }) }),
  { minLength: 1, maxLength: 150 },
);

/** Runs events through a bucket; returns every decision with its time. */
function run(limits: ModelLimits, events: Event[], start = 1_750_000_000_000, countRejected = false) {
  const bucket = new QuotaBucket(limits);
  let t = start;
  return events.map((e) => {
    t += e.dt;
    return { t, tokens: e.tokens, decision: bucket.tryAdmit(t, e.tokens, countRejected) };
  });
}

function dims(violations: { dimension: string }[]): string[] {
  return violations.map((v) => v.dimension).sort();
}

/** Whether two lists of dimension names are equal, element by element. */
function sameDims(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const rolling: WindowPolicy = { kind: 'rolling' };

describe('rolling window', () => {
  it('admits iff no 60 s window would exceed RPM or TPM, and names exactly the exceeded dimensions', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 80, max: 300 }), eventsArb, (rpm, tpm, events) => {
        const admitted: Admitted[] = [];
        const wrong: unknown[] = [];
        for (const { t, tokens, decision } of run({ rpm, tpm, limitZero: false, window: rolling }, events)) {
          const inWindow = admitted.filter((a) => a.t > t - 60_000);
          const sum = inWindow.reduce((s, a) => s + a.tokens, 0);
          const expected: string[] = [];
          if (inWindow.length + 1 > rpm) expected.push('rpm');
          if (sum + tokens > tpm) expected.push('tpm');
          const named = dims(decision.violations);
          if (!sameDims(named, expected.sort()) || decision.admitted !== (expected.length === 0)) {
            wrong.push({ t, tokens, admitted: decision.admitted, named, expected });
          }
          if (decision.admitted) admitted.push({ t, tokens });
        }
        // The invariant itself, over every window ending at an admitted request.
        for (const a of admitted) {
          const w = admitted.filter((b) => b.t > a.t - 60_000 && b.t <= a.t);
          const sum = w.reduce((s, b) => s + b.tokens, 0);
          if (w.length > rpm || sum > tpm) wrong.push({ windowEndingAt: a.t, requests: w.length, tokens: sum });
        }
        expect(wrong).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('announces the exact wait: room at t + wait, none just before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 80, max: 300 }), eventsArb, (rpm, tpm, events) => {
        const admitted: Admitted[] = [];
        for (const { t, tokens, decision } of run({ rpm, tpm, limitZero: false, window: rolling }, events)) {
          for (const v of decision.violations) {
            expect(v.waitMs).toBeGreaterThan(0);
            const at = (time: number) => {
              const w = admitted.filter((a) => a.t > time - 60_000);
              return v.dimension === 'rpm' ? w.length + 1 <= rpm : w.reduce((s, a) => s + a.tokens, 0) + tokens <= tpm;
            };
            expect(at(t + v.waitMs)).toBe(true);
            expect(at(t + v.waitMs - 0.5)).toBe(false);
          }
          if (decision.admitted) admitted.push({ t, tokens });
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a request counts until exactly 60,000 ms after it: refused at +59,999 ms with a 1 ms wait, admitted at +60,000 ms', () => {
    const t0 = 1_750_000_000_000;
    const bucket = new QuotaBucket({ rpm: 1, tpm: 1_000, limitZero: false, window: rolling });
    expect(bucket.tryAdmit(t0, 10, false).admitted).toBe(true);
    const edge = bucket.tryAdmit(t0 + 59_999, 10, false);
    expect(edge.admitted).toBe(false);
    expect(edge.violations.map((v) => [v.dimension, v.waitMs])).toEqual([['rpm', 1]]);
    expect(bucket.tryAdmit(t0 + 60_000, 10, false).admitted).toBe(true);
  });

  it('with countRejected, rejected requests use up the window but admitted ones still never exceed it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), eventsArb, (rpm, events) => {
        const admitted: number[] = [];
        const all: number[] = [];
        for (const { t, decision } of run({ rpm, limitZero: false, window: rolling }, events, 0, true)) {
          const counted = all.filter((x) => x > t - 60_000).length;
          expect(decision.admitted).toBe(counted + 1 <= rpm);
          all.push(t);
          if (decision.admitted) admitted.push(t);
        }
        for (const t of admitted) expect(admitted.filter((x) => x > t - 60_000 && x <= t).length).toBeLessThanOrEqual(rpm);
      }),
      { numRuns: 200 },
    );
  });

  it('never admits a request larger than TPM, and says it never clears', () => {
    const [first] = run({ tpm: 100, limitZero: false, window: rolling }, [{ dt: 0, tokens: 101 }]);
    expect(first!.decision.admitted).toBe(false);
    expect(first!.decision.violations).toEqual([{ dimension: 'tpm', limit: 100, waitMs: Infinity }]);
  });
});

describe('fixed clock minute', () => {
  it('admits at most the limit per clock minute and names exactly the exceeded dimensions', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 80, max: 300 }), eventsArb, (rpm, tpm, events) => {
        const admitted: Admitted[] = [];
        const wrong: unknown[] = [];
        for (const { t, tokens, decision } of run({ rpm, tpm, limitZero: false, window: { kind: 'fixed' } }, events)) {
          const minute = Math.floor(t / 60_000);
          const same = admitted.filter((a) => Math.floor(a.t / 60_000) === minute);
          const expected: string[] = [];
          if (same.length + 1 > rpm) expected.push('rpm');
          if (same.reduce((s, a) => s + a.tokens, 0) + tokens > tpm) expected.push('tpm');
          const named = dims(decision.violations);
          if (!sameDims(named, expected.sort())) wrong.push({ t, tokens, named, expected });
          for (const v of decision.violations) {
            if (t + v.waitMs !== (minute + 1) * 60_000) wrong.push({ t, dimension: v.dimension, waitMs: v.waitMs, nextMinute: (minute + 1) * 60_000 });
          }
          if (decision.admitted) admitted.push({ t, tokens });
        }
        expect(wrong).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('token bucket', () => {
  it('admits at most burst + rate * d over any interval of d ms, and rejects exactly when a bucket is short', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 30 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 200, max: 3000 }),
        fc.integer({ min: 80, max: 200 }),
        eventsArb,
        (rpm, burst, tpm, tokenBurst, events) => {
          const window: WindowPolicy = { kind: 'bucket', burst, tokenBurst };
          const admitted: Admitted[] = [];
          const wrong: unknown[] = [];
          let level = burst;
          let tokenLevel = tokenBurst;
          let last: number | undefined;
          for (const { t, tokens, decision } of run({ rpm, tpm, limitZero: false, window }, events)) {
            // Oracle: replay the refills since the last event.
            if (last !== undefined) {
              level = Math.min(burst, level + ((t - last) * rpm) / 60_000);
              tokenLevel = Math.min(tokenBurst, tokenLevel + ((t - last) * tpm) / 60_000);
            }
            last = t;
            const expected: string[] = [];
            if (level < 1 - 1e-9) expected.push('rpm');
            if (tokenLevel < tokens - 1e-9) expected.push('tpm');
            const named = dims(decision.violations);
            if (!sameDims(named, expected.sort())) wrong.push({ t, tokens, named, expected, level, tokenLevel });
            if (decision.admitted) {
              admitted.push({ t, tokens });
              level -= 1;
              tokenLevel -= tokens;
            }
          }
          for (let i = 0; i < admitted.length; i++) {
            let n = 0;
            let sum = 0;
            for (let j = i; j < admitted.length; j++) {
              n++;
              sum += admitted[j]!.tokens;
              const d = admitted[j]!.t - admitted[i]!.t;
              if (n > burst + (rpm * d) / 60_000 + 1e-6 || sum > tokenBurst + (tpm * d) / 60_000 + 1e-6) {
                wrong.push({ from: admitted[i]!.t, to: admitted[j]!.t, requests: n, tokens: sum });
              }
            }
          }
          expect(wrong).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('per Pacific day', () => {
  // One formatter for every call (toLocaleDateString builds one per call: most of this test's CPU); same YYYY-MM-DD.
  const pacificDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles' });
  const dayOf = (t: number) => (Number.isFinite(t) ? pacificDate.format(t) : `not a time: ${t}`);

  it('admits at most RPD per Pacific calendar day; the 429 names RPD and waits until Pacific midnight', () => {
    const longGaps = fc.array(fc.record({ dt: fc.integer({ min: 0, max: 6 * 3_600_000 }), tokens: fc.integer({ min: 1, max: 10 }) }), {
      minLength: 1,
      maxLength: 80,
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }), longGaps, (rpd, start, events) => {
        const admitted: number[] = [];
        const wrong: unknown[] = [];
        for (const { t, decision } of run({ rpd, limitZero: false, window: rolling }, events, start)) {
          const day = dayOf(t);
          const today = admitted.filter((a) => dayOf(a) === day).length;
          if (decision.admitted !== today + 1 <= rpd) wrong.push({ t, day, today, admitted: decision.admitted });
          if (!decision.admitted) {
            const named = dims(decision.violations);
            const wait = decision.violations[0]?.waitMs ?? NaN;
            // the wait ends on the next Pacific day, and not a millisecond earlier
            if (!sameDims(named, ['rpd']) || dayOf(t + wait) === day || dayOf(t + wait - 1) !== day) wrong.push({ t, day, named, wait });
          }
          if (decision.admitted) admitted.push(t);
        }
        expect(wrong).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('limit 0 rejects every request on RPD, RPM and TPM with waits that never clear', () => {
    const [first] = run({ rpm: 0, tpm: 0, rpd: 0, limitZero: true, window: rolling }, [{ dt: 0, tokens: 5 }]);
    expect(first!.decision.violations.map((v) => [v.dimension, v.limit, v.waitMs])).toEqual([
      ['rpd', 0, Infinity],
      ['rpm', 0, Infinity],
      ['tpm', 0, Infinity],
    ]);
  });
});
