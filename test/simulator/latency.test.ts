/**
 * The latency model: uplink + generation + downlink, the quota counted at arrival (after the uplink), per-model
 * lognormal generation times; and 429s without details injected as a fault.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readRateLimitDetails } from '../../src/providers/google-quota-failure.js';
import { parseRpcStatus } from '../../src/providers/google-rpc-status.js';
import { seededRandom, delayMs } from '../../src/simulator/random.js';
import { parseScenario, startSimulator, type SimLogEntry, type SimStats, type SimulatorHandle } from '../../src/simulator/index.js';
import { closeSim, enumRequest, fixture, generate, scenario } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => (sim = await closeSim(sim)));

describe('latency = uplink + generation + downlink', () => {
  it('the request arrives after its uplink (the time the log and the quota ledger both use); the answer comes after generation and downlink', async () => {
    sim = await startSimulator(
      scenario({
        requestLog: true,
        latency: { medianMs: 100, p99Ms: 100, uplink: { medianMs: 300, p99Ms: 300 }, downlink: { medianMs: 150, p99Ms: 150 } },
      }),
    );
    const sent = Date.now();
    const r = await generate(sim.url, enumRequest('slow network'), 'key-a');
    const answered = Date.now();
    expect(r.status).toBe(200);
    const log = (await (await fetch(`${sim.url}/__sim/log?since=0`)).json()) as SimLogEntry[];
    expect(log[0]!.t - sent).toBeGreaterThanOrEqual(295);
    expect(answered - log[0]!.t).toBeGreaterThanOrEqual(245);
    expect(answered - sent).toBeGreaterThanOrEqual(545);
  });

  it('each model may have its own generation time', async () => {
    sim = await startSimulator(scenario({ latency: { medianMs: 10, p99Ms: 10, models: { 'gemini-2.5-flash-lite': { medianMs: 400, p99Ms: 400 } } } }));
    const timed = async (model: string) => {
      const t = Date.now();
      const r = await generate(sim!.url, enumRequest(`which model ${model}`), 'key-a', model);
      expect(r.status).toBe(200);
      return Date.now() - t;
    };
    expect(await timed('gemini-2.5-flash')).toBeLessThan(300);
    expect(await timed('gemini-2.5-flash-lite')).toBeGreaterThanOrEqual(395);
  });

  it('clamps draws to [minMs, maxMs]', () => {
    const r = seededRandom(3);
    const xs = Array.from({ length: 5_000 }, () => delayMs(r, { medianMs: 60_000, p99Ms: 200_000, minMs: 30_000, maxMs: 120_000 }));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(30_000);
    expect(Math.max(...xs)).toBeLessThanOrEqual(120_000);
    expect(delayMs(r, undefined)).toBe(0);
  });

  it('scenario errors name the field', () => {
    expect(() => parseScenario({ projects: [{ id: 'p' }], latency: { uplink: { medianMs: 10, typo: 1 } } }, 'x.json')).toThrow(/\$\.latency\.uplink\.typo: unknown field/);
    expect(() => parseScenario({ projects: [{ id: 'p' }], latency: { models: { m: { medianMs: 10, p99Ms: 5 } } } }, 'x.json')).toThrow(/\$\.latency\.models\.m\.p99Ms/);
  });
});

describe('429 without details as a fault', () => {
  it('answers the bare fixture body, counted as a 429 and as a fault', async () => {
    sim = await startSimulator(scenario({ faults: { '429-bare': 1 } }));
    const r = await generate(sim.url, enumRequest('capacity'), 'key-a');
    expect([r.status, r.json]).toEqual([429, fixture('429-h-bare-capacity')]);
    const details = readRateLimitDetails(parseRpcStatus(JSON.stringify(r.json))!);
    expect(details).toMatchObject({ hits: [], waitMs: undefined, noQuota: false });
    const stats = (await (await fetch(`${sim.url}/__sim/stats`)).json()) as SimStats;
    expect(stats.rateLimited.total).toBe(1);
    expect(stats.faults['429-bare']).toBe(1);
  });
});
