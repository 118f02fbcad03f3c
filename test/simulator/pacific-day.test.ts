/**
 * RPD resets at midnight America/Los_Angeles (https://ai.google.dev/gemini-api/docs/rate-limits), DST-aware:
 * the day before "spring forward" is 23 h long, the day of "fall back" 25 h.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { PACIFIC_DAY } from '../../src/providers/gemini/quota-day.js';

const nextPacificMidnight = (ms: number) => PACIFIC_DAY.nextBoundary(ms);
const pacificDayKey = (ms: number) => PACIFIC_DAY.dayOf(ms);
import { enumRequest, FakeClock, generate, scenario } from './helpers.js';

const H = 3_600_000;

describe('Pacific midnight', () => {
  it('is 00:00 PST (08:00 UTC) in winter and 00:00 PDT (07:00 UTC) in summer', () => {
    expect(nextPacificMidnight(Date.parse('2025-01-15T12:00:00Z'))).toBe(Date.parse('2025-01-16T08:00:00Z'));
    expect(nextPacificMidnight(Date.parse('2025-07-15T12:00:00Z'))).toBe(Date.parse('2025-07-16T07:00:00Z'));
  });

  it('crosses the spring-forward day (23 h) and the fall-back day (25 h)', () => {
    const springDay = Date.parse('2025-03-09T08:00:00Z'); // 2025-03-09 00:00 PST
    expect(nextPacificMidnight(springDay) - springDay).toBe(23 * H);
    const fallDay = Date.parse('2025-11-02T07:00:00Z'); // 2025-11-02 00:00 PDT
    expect(nextPacificMidnight(fallDay) - fallDay).toBe(25 * H);
  });

  it('moves to the next day exactly at midnight, not a millisecond before', () => {
    const midnight = Date.parse('2025-03-09T08:00:00Z');
    expect(pacificDayKey(midnight - 1)).toBe('2025-03-08');
    expect(pacificDayKey(midnight)).toBe('2025-03-09');
    expect(nextPacificMidnight(midnight - 1)).toBe(midnight);
  });
});

describe('RPD over HTTP with a fake clock', () => {
  let sim: SimulatorHandle | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('refuses the third request of a 2-RPD day until Pacific midnight, across the spring-forward change', async () => {
    const clock = new FakeClock(Date.parse('2025-03-09T07:59:50Z')); // 2025-03-08 23:59:50 PST
    sim = await startSimulator(
      scenario({ projects: [{ id: 'p1', keys: ['key-a'], limits: { 'gemini-2.5-flash': { rpd: 2, rpm: 100 } } }], quota429: 'full-new' }),
      { clock },
    );
    const send = (i: number) => generate(sim!.url, enumRequest(`row ${i}`));
    expect((await send(1)).status).toBe(200);
    expect((await send(2)).status).toBe(200);
    const refused = await send(3);
    expect(refused.status).toBe(429);
    const details = refused.json.error.details as any[];
    const failure = details.find((d) => d['@type'].endsWith('QuotaFailure'));
    expect(failure.violations.map((v: any) => v.quotaId)).toEqual(['GenerateRequestsPerDayPerProjectPerModel-FreeTier']);
    expect(failure.violations[0].quotaValue).toBe('2');
    expect(details.find((d) => d['@type'].endsWith('RetryInfo')).retryDelay).toBe('10s');

    clock.advance(10_000); // 2025-03-09 00:00 PST: a new day
    expect((await send(4)).status).toBe(200);
    expect((await send(5)).status).toBe(200);
    const nextRefusal = await send(6);
    expect(nextRefusal.status).toBe(429);
    const retry = (nextRefusal.json.error.details as any[]).find((d) => d['@type'].endsWith('RetryInfo')).retryDelay;
    expect(retry).toBe(`${23 * 3600}s`); // the 23-hour day: next midnight is 00:00 PDT
    clock.advance(23 * H);
    expect((await send(7)).status).toBe(200);
  });
});
