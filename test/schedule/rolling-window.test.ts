import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RollingWindow } from '../../src/schedule/rolling-window.js';

describe('RollingWindow', () => {
  it('sum and earliestFit agree with a brute-force count over random event streams', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 20_000 }), weight: fc.integer({ min: 0, max: 50 }) }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 60 }),
        (events, limit, weight) => {
          const w = new RollingWindow(60_000);
          const log: Array<{ at: number; weight: number }> = [];
          let t = 0;
          for (const e of events) {
            t += e.gap;
            w.add(e.weight, t);
            log.push({ at: t, weight: e.weight });
            const brute = (at: number) => log.filter((x) => x.at > at - 60_000 && x.at <= at).reduce((s, x) => s + x.weight, 0);
            expect(w.sum(t)).toBe(brute(t));
            const fit = w.earliestFit(weight, limit, t);
            if (weight > limit) expect(fit).toBe(Infinity);
            else {
              expect(fit).toBeGreaterThanOrEqual(t);
              // At fit the event fits; one ms earlier (if later than now) it did not.
              expect(brute(fit) + weight).toBeLessThanOrEqual(limit);
              if (fit > t) expect(brute(fit - 1) + weight).toBeGreaterThan(limit);
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('an event counts until exactly 60,000 ms after it: in at +59,999 ms, out at +60,000 ms (random streams rarely land on the edge)', () => {
    const w = new RollingWindow(60_000);
    w.add(1, 1_000);
    expect(w.earliestFit(1, 1, 1_000)).toBe(61_000);
    expect(w.earliestFit(1, 1, 60_999)).toBe(61_000);
    expect(w.sum(60_999)).toBe(1);
    expect(w.sum(61_000)).toBe(0);
    expect(w.earliestFit(1, 1, 61_000)).toBe(61_000);
  });
});
