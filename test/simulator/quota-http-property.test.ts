/**
 * The quota property over real HTTP (a smaller run than quota-ledger.test.ts): random request streams with a
 * fake clock; every window admits at most its limit (checked against /__sim/stats peaks and an oracle), and
 * every 429 names exactly the quotaIds of the dimensions that were exceeded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { detail, enumRequest, FakeClock, generate, post, scenario } from './helpers.js';

const IDS = { rpm: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier', tpm: 'GenerateContentInputTokensPerModelPerMinute-FreeTier' };

describe('quota over HTTP', () => {
  it('rolling window: admitted peaks stay within RPM/TPM and each 429 names the exceeded quotaIds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 60, max: 200 }),
        fc.array(fc.record({ dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30_000 })), words: fc.integer({ min: 1, max: 40 }) }), { minLength: 5, maxLength: 30 }),
        async (rpm, tpm, events) => {
          const clock = new FakeClock(Date.parse('2025-06-01T00:00:00Z'));
          const sim = await startSimulator(scenario({ projects: [{ id: 'p1', keys: ['key-a'], limits: { 'gemini-2.5-flash': { rpm, tpm } } }] }), { clock });
          try {
            const admitted: { t: number; tokens: number }[] = [];
            for (const [i, e] of events.entries()) {
              clock.advance(e.dt);
              const body = enumRequest(`${i} ${'word '.repeat(e.words)}`);
              const tokens = (await post(sim.url, '/v1beta/models/gemini-2.5-flash:countTokens', body)).json.totalTokens as number;
              const r = await generate(sim.url, body);
              const window = admitted.filter((a) => a.t > clock.t - 60_000);
              const expected: string[] = [];
              if (window.length + 1 > rpm) expected.push(IDS.rpm);
              if (window.reduce((s, a) => s + a.tokens, 0) + tokens > tpm) expected.push(IDS.tpm);
              if (r.status === 200) {
                expect(expected).toEqual([]);
                expect(r.json.usageMetadata.promptTokenCount).toBe(tokens);
                admitted.push({ t: clock.t, tokens });
              } else {
                expect(r.status).toBe(429);
                expect(detail(r.json, 'QuotaFailure').violations.map((v: any) => v.quotaId).sort()).toEqual(expected.sort());
              }
            }
            const peak = sim.stats().projects.p1!.models['gemini-2.5-flash']!.peak60s;
            expect(peak.admitted.requests).toBeLessThanOrEqual(rpm);
            expect(peak.admitted.inputTokens).toBeLessThanOrEqual(tpm);
            expect(peak.arrived.requests).toBeGreaterThanOrEqual(peak.admitted.requests);
          } finally {
            await sim.close();
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
