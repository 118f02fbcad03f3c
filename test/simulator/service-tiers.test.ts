/**
 * The service tiers end to end over real HTTP on 127.0.0.1, driven through the Gemini adapter (the official
 * @google/genai client): the request carries `serviceTier` at the root of the body; the simulator's Flex mode sheds with
 * the real 503 body and answers after the scaled Flex latency; the tier that served comes back in
 * `x-gemini-service-tier` (Developer API) or `usageMetadata.trafficType` (Vertex) and the adapter reads it; a shed is
 * a ShedFailure; Priority over its limit is served at standard (docs/service-tiers.md).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/providers/contract.js';
import { ServerFailure, ShedFailure } from '../../src/providers/failures.js';
import { createGeminiProvider, createVertexProvider } from '../../src/providers/gemini/provider.js';
import { parseScenario, startSimulator, type SimLogEntry, type SimulatorHandle } from '../../src/simulator/index.js';
import { FLEX_LATENCY } from '../../src/simulator/service-tiers.js';
import { fixture } from './helpers.js';

const KEY = 'tier-key-1';
let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

async function simulator(extra: Record<string, unknown> = {}): Promise<SimulatorHandle> {
  const sim = await startSimulator(parseScenario({ projects: [{ id: 'p', keys: [KEY], limits: { '*': { rpm: 100_000, tpm: 100_000_000 } } }], requestLog: true, ...extra }, 'tiers'));
  closers.push(() => sim.close());
  return sim;
}

/** A proxy in front of `target` that records each request body and the answer's x-gemini-service-tier header. */
async function recordingProxy(target: string, seen: Array<{ body: Record<string, unknown>; header: string | undefined }>): Promise<string> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const up = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        const header = answer.headers['x-gemini-service-tier'];
        seen.push({ body: JSON.parse(body.toString('utf8')) as Record<string, unknown>, header: typeof header === 'string' ? header : undefined });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const request = (prompt: string, serviceTier?: ModelRequest['serviceTier']): ModelRequest => ({
  model: 'gemini-2.5-flash',
  prompt,
  output: { kind: 'labels', labels: ['yes', 'no'] },
  temperature: 0,
  reasoning: 'least',
  ...(serviceTier ? { serviceTier } : {}),
});

function geminiCaller(url: string) {
  return createGeminiProvider({ baseUrl: url, timeoutMs: 10_000, env: {} }).caller({ alias: 'key-1', project: 'p', secret: KEY });
}

async function log(sim: SimulatorHandle): Promise<SimLogEntry[]> {
  return (await (await fetch(`${sim.url}/__sim/log?since=0`)).json()) as SimLogEntry[];
}

describe('service tiers through the Gemini adapter and the simulator', () => {
  it('sends serviceTier at the root of the body and reads the tier that served from x-gemini-service-tier', async () => {
    const sim = await simulator();
    const seen: Array<{ body: Record<string, unknown>; header: string | undefined }> = [];
    const caller = geminiCaller(await recordingProxy(sim.url, seen));
    const flex = await caller.generate(request('Is this about parcels? A box arrived late.', 'flex'));
    const plain = await caller.generate(request('Is this about parcels? A box arrived late.'));
    expect(seen[0]!.body.serviceTier).toBe('flex');
    expect(seen[0]!.body.generationConfig).not.toHaveProperty('serviceTier');
    expect(seen[0]!.header).toBe('flex');
    expect(flex.served?.serviceTier).toBe('flex');
    // A request that names no tier sends none and is told none (counted at the tier asked: standard).
    expect(seen[1]!.body).not.toHaveProperty('serviceTier');
    expect(seen[1]!.header).toBeUndefined();
    expect(plain.served?.serviceTier).toBeUndefined();
    expect(sim.stats().servedTiers).toEqual({ flex: 1 });
  });

  it('sheds Flex requests at the scenario rate with the real 503 body, as ShedFailure; standard requests are never shed', async () => {
    const sim = await simulator({ seed: 5, flex: { shedRate: 0.25, timeScale: 0 } });
    const caller = geminiCaller(sim.url);
    const outcomes = await Promise.all(
      Array.from({ length: 400 }, (_, i) => caller.generate(request(`Flex row ${i}: is it late?`, 'flex')).then(() => 'ok', (e: unknown) => e)),
    );
    const sheds = outcomes.filter((o) => o instanceof ShedFailure);
    expect(outcomes.filter((o) => o !== 'ok' && !(o instanceof ShedFailure))).toEqual([]);
    // 400 draws at p = 0.25: the count lies within 4 standard deviations (√(400·0.25·0.75) ≈ 8.7) of 100.
    expect(Math.abs(sheds.length - 100)).toBeLessThan(35);
    expect(sheds[0]).toBeInstanceOf(ServerFailure);
    expect(sheds[0]!.httpStatus).toBe(503);
    // The body is one of the recorded 503s (test/fixtures/gemini/503-*.json), verbatim.
    const real = [fixture('503-overloaded'), fixture('503-high-demand')].map((f) => (f as { error: { message: string; status: string } }).error);
    for (const shed of sheds) {
      const rpc = shed.raw as { message: string; status: string };
      expect(real.map((r) => r.message)).toContain(rpc.message);
      expect(rpc.status).toBe('UNAVAILABLE');
    }
    expect(sim.stats().faults['flex-shed']).toBe(sheds.length);
    expect(sim.stats().servedTiers.flex).toBe(400 - sheds.length);
    // The first 40 prompts again at standard: no shed. Were standard requests shed at the Flex rate, all 40 would be
    // answered with probability 0.75^40 ≈ 1e-5 (100 until this cut: each request through the SDK is ~1.4 ms of CPU).
    const standard = await Promise.all(Array.from({ length: 40 }, (_, i) => caller.generate(request(`Flex row ${i}: is it late?`, 'standard')).then(() => 'ok', (e: unknown) => e)));
    expect(standard.every((o) => o === 'ok')).toBe(true);
  });

  it('answers Flex requests after the Flex latency times the time scale; other tiers after the scenario latency', async () => {
    // Flex latency 60-900 s scaled to 6-90 ms: the bounds below still tell a scaled latency from an unscaled one (or a
    // twice-scaled one, under 1 ms), and the 12 requests wait at most 90 ms (0.45 s at the 0.0005 used until this cut).
    const timeScale = 0.0001;
    const sim = await simulator({ seed: 9, flex: { timeScale } });
    const caller = geminiCaller(sim.url);
    await Promise.all(Array.from({ length: 12 }, (_, i) => caller.generate(request(`Slow row ${i}`, 'flex'))));
    await caller.generate(request('A standard row', 'standard'));
    const entries = await log(sim);
    const flex = entries.filter((e) => e.outcome === 'ok').slice(0, 12);
    for (const e of flex) {
      expect(e.latencyMs).toBeGreaterThanOrEqual(Math.floor(FLEX_LATENCY.minMs! * timeScale));
      expect(e.latencyMs).toBeLessThanOrEqual(Math.ceil(FLEX_LATENCY.maxMs! * timeScale));
    }
    expect(entries.at(-1)!.latencyMs).toBe(0);
  });

  it('serves Priority requests over the scenario limit at standard, and says so', async () => {
    const sim = await simulator({ priority: { rpm: 3 } });
    const caller = geminiCaller(sim.url);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await caller.generate(request(`Urgent row ${i}`, 'priority')));
    expect(answers.map((a) => a.served?.serviceTier)).toEqual(['priority', 'priority', 'priority', 'standard', 'standard']);
    expect(sim.stats().servedTiers).toEqual({ priority: 3, standard: 2 });
  });

  it('Vertex says the tier in usageMetadata.trafficType, which the adapter reads', async () => {
    const sim = await simulator({ flex: { shedRate: 0, timeScale: 0 } });
    const vertex = createVertexProvider({ baseUrl: sim.url, project: 'my-project', location: 'us-central1', timeoutMs: 10_000, env: {}, accessToken: KEY });
    const caller = vertex.caller({ alias: 'adc', project: 'p', secret: undefined });
    const flex = await caller.generate(request('Vertex flex row', 'flex'));
    const plain = await caller.generate(request('Vertex plain row'));
    expect(flex.served?.serviceTier).toBe('flex');
    expect((flex.raw as { usageMetadata: { trafficType: string } }).usageMetadata.trafficType).toBe('ON_DEMAND_FLEX');
    expect(plain.served?.serviceTier).toBe('standard');
  });

  it('refuses a bad flex or priority block with its JSON path', () => {
    const base = { projects: [{ id: 'p', keys: [KEY] }] };
    expect(() => parseScenario({ ...base, flex: { shedRate: 1.5 } }, 'bad.json')).toThrow(/\$\.flex\.shedRate/);
    expect(() => parseScenario({ ...base, flex: { shed: 0.1 } }, 'bad.json')).toThrow(/flex/);
    expect(() => parseScenario({ ...base, priority: {} }, 'bad.json')).toThrow(/\$\.priority\.rpm/);
  });
});
