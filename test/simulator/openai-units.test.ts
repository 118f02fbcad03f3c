/**
 * Units under the OpenAI dialect: Go-duration formatting (x-ratelimit-reset-*, "Please try again in …";
 * test/fixtures/openai/rate-limit-headers.json), and the headroom the x-ratelimit-* headers report for each window
 * policy: remaining = the limit less the use, and back at the full limit exactly `resetMs` later.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goDuration } from '../../src/simulator/go-duration.js';
import { createMinuteLimiter } from '../../src/simulator/minute-limiters.js';
import { strictSchemaProblem } from '../../src/simulator/openai-request.js';
import type { WindowPolicy } from '../../src/simulator/types.js';

describe('goDuration', () => {
  it.each([
    [0, '0s'],
    [0.2, '1ms'],
    [140, '140ms'],
    [999.5, '1s'],
    [1000, '1s'],
    [1500, '1.5s'],
    [17_087, '17.087s'],
    [60_000, '1m0s'],
    [360_000, '6m0s'],
    [3_600_000, '1h0m0s'],
    [3_723_450, '1h2m3.45s'],
  ])('%d ms → %s', (ms, text) => expect(goDuration(ms)).toBe(text));
});

describe('strict schema check', () => {
  it('accepts nested objects that follow the rules and names the context of the first that does not', () => {
    const ok = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } }, required: ['b'], additionalProperties: false } }, required: ['a'], additionalProperties: false };
    expect(strictSchemaProblem(ok, 'n')).toBeUndefined();
    const nested = structuredClone(ok) as any;
    delete nested.properties.a.additionalProperties;
    expect(strictSchemaProblem(nested, 'n')).toBe(
      "Invalid schema for response_format 'n': In context=('properties', 'a'), 'additionalProperties' is required to be supplied and to be false.",
    );
  });
});

const policies: [string, WindowPolicy][] = [
  ['rolling', { kind: 'rolling' }],
  ['fixed', { kind: 'fixed' }],
  ['bucket', { kind: 'bucket', burst: 5, tokenBurst: 400 }],
];

describe('headroom of the per-minute limiters', () => {
  it.each(policies)('%s: full again exactly resetMs after the last request, not before', (_name, policy) => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ dt: fc.integer({ min: 0, max: 30_000 }), tokens: fc.integer({ min: 1, max: 60 }) }), { minLength: 1, maxLength: 40 }),
        (events) => {
          const rpm = 30;
          const tpm = 2_400;
          let t = 0;
          // Replays the stream into a new limiter (headroom queries move a limiter's clock forward, so each probe gets its own).
          const replay = () => {
            const limiter = createMinuteLimiter(policy, rpm, tpm);
            t = 1_750_000_000_000;
            for (const e of events) {
              t += e.dt;
              const w = limiter.waits(t, e.tokens);
              if (w.rpm === 0 && w.tpm === 0) limiter.add(t, e.tokens);
            }
            return limiter;
          };
          const full = policy.kind === 'bucket' ? { requests: policy.burst, tokens: policy.tokenBurst } : { requests: rpm, tokens: tpm };
          const h = replay().headroom(t);
          for (const dim of ['requests', 'tokens'] as const) {
            const d = h[dim]!;
            expect(d.remaining).toBeLessThanOrEqual(full[dim] + 1e-9);
            if (d.resetMs === 0) expect(d.remaining).toBeCloseTo(full[dim], 6);
            else {
              expect(replay().headroom(t + d.resetMs - 1)[dim]!.remaining).toBeLessThan(full[dim] - 1e-9);
              expect(replay().headroom(t + d.resetMs)[dim]!.remaining).toBeCloseTo(full[dim], 6);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('an unlimited dimension reports no headroom', () => {
    expect(createMinuteLimiter({ kind: 'rolling' }, 10, undefined).headroom(0)).toEqual({ requests: { remaining: 10, resetMs: 0 } });
  });
});
