/**
 * Non-quota errors and injected faults over real HTTP, against the reference fixtures
 * (test/fixtures/gemini/; docs/reference/gemini-api-facts.md §3).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { closeSim, enumRequest, fixture, generate, post, scenario, shapeOf } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => (sim = await closeSim(sim)));

describe('request errors', () => {
  it('missing key 403, unknown key 400 API_KEY_INVALID, leaked key 403, as in the fixtures', async () => {
    sim = await startSimulator(
      scenario({ projects: [{ id: 'p1', keys: ['key-a', { key: 'key-leaked', leaked: true }], limits: {} }] }),
    );
    const missing = await generate(sim.url, enumRequest('x'), null);
    expect([missing.status, missing.json]).toEqual([403, fixture('403-missing-key')]);
    const unknown = await generate(sim.url, enumRequest('x'), 'not-a-key');
    expect([unknown.status, unknown.json]).toEqual([400, fixture('400-api-key-invalid')]);
    const leaked = await generate(sim.url, enumRequest('x'), 'key-leaked');
    expect([leaked.status, leaked.json]).toEqual([403, fixture('403-leaked-key')]);
    expect(unknown.headers.get('content-type')).toBe('application/json; charset=UTF-8');
  });

  it('accepts the key as ?key= too', async () => {
    sim = await startSimulator(scenario());
    const r = await post(sim.url, '/v1beta/models/gemini-2.5-flash:generateContent?key=key-a', enumRequest('x'), null);
    expect(r.status).toBe(200);
  });

  it('unknown model 404 names the model (fixture 404-model-not-found)', async () => {
    sim = await startSimulator(scenario());
    const r = await generate(sim.url, enumRequest('x'), 'key-a', 'gemini-pro');
    expect([r.status, r.json]).toEqual([404, fixture('404-model-not-found')]);
  });

  it('thinkingBudget 0 on gemini-2.5-pro is a 400 (fixture 400-thinking-budget-zero)', async () => {
    sim = await startSimulator(scenario());
    const r = await generate(sim.url, enumRequest('x'), 'key-a', 'gemini-2.5-pro');
    expect([r.status, r.json]).toEqual([400, fixture('400-thinking-budget-zero')]);
  });

  it('a prompt over the context window is a 400 naming the limit (fixture 400-context-too-long)', async () => {
    sim = await startSimulator(scenario({ models: { 'gemini-2.5-flash': { contextWindow: 50 } } }));
    const ok = await generate(sim.url, enumRequest('short'));
    expect(ok.status).toBe(200);
    const r = await generate(sim.url, enumRequest('word '.repeat(60)));
    expect(r.status).toBe(400);
    expect(shapeOf(r.json)).toEqual(shapeOf(fixture('400-context-too-long')));
    expect(r.json.error.message).toBe('The input token count exceeds the maximum number of tokens allowed 50.');
  });

  it('a body that is not JSON, or has no contents, is a 400 INVALID_ARGUMENT', async () => {
    sim = await startSimulator(scenario());
    const bad = await generate(sim.url, '{not json');
    expect(bad.status).toBe(400);
    expect(bad.json.error.status).toBe('INVALID_ARGUMENT');
    const empty = await generate(sim.url, { contents: [] });
    expect(empty.status).toBe(400);
    expect(empty.json.error.message).toContain('contents');
  });

  it('with countRejected, 400s count against RPM; without, they do not', async () => {
    for (const countRejected of [false, true]) {
      sim = await startSimulator(
        scenario({ countRejected, models: { 'gemini-2.5-flash': { contextWindow: 20 } }, projects: [{ id: 'p1', keys: ['key-a'], limits: { 'gemini-2.5-flash': { rpm: 1 } } }] }),
      );
      expect((await generate(sim.url, enumRequest('word '.repeat(40)))).status).toBe(400);
      expect((await generate(sim.url, enumRequest('ok'))).status).toBe(countRejected ? 429 : 200);
      await sim.close();
      sim = undefined;
    }
  });
});

/** A scenario where every request gets fault `kind`. */
function allFault(kind: string) {
  return scenario({ faults: { [kind]: 1 } });
}

describe('faults', () => {
  it('503 in both wordings (fixtures 503-overloaded and 503-high-demand)', async () => {
    sim = await startSimulator(allFault('503'));
    const seen = new Set<string>();
    for (let i = 0; i < 16; i++) {
      const r = await generate(sim.url, enumRequest(`row ${i}`));
      expect(r.status).toBe(503);
      expect([fixture('503-overloaded'), fixture('503-high-demand')]).toContainEqual(r.json);
      seen.add(r.json.error.message);
    }
    expect(seen.size).toBe(2);
    expect(sim.stats().faults).toEqual({ '503': 16 });
  });

  it('500 and 504 bodies as in the fixtures', async () => {
    sim = await startSimulator(allFault('500'));
    const r500 = await generate(sim.url, enumRequest('x'));
    expect([r500.status, r500.json]).toEqual([500, fixture('500-internal')]);
    await sim.close();
    sim = await startSimulator(allFault('504'));
    const r504 = await generate(sim.url, enumRequest('x'));
    expect([r504.status, r504.json]).toEqual([504, fixture('504-deadline-inferred')]);
  });

  it('a proxy 502 answers HTML, not JSON', async () => {
    sim = await startSimulator(allFault('html-502'));
    const r = await generate(sim.url, enumRequest('x'));
    expect(r.status).toBe(502);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.text).toMatch(/^<!DOCTYPE html>/);
    expect(r.json).toBeUndefined();
  });

  it('a connection reset fails the request without a status', async () => {
    sim = await startSimulator(allFault('reset'));
    await expect(generate(sim.url, enumRequest('x'))).rejects.toThrow(/fetch failed/);
    expect(sim.stats().requests.byStatus).toEqual({ reset: 1 });
  });

  it('a hung request never answers until the client gives up, and close() still returns', async () => {
    sim = await startSimulator(allFault('hang'));
    const started = Date.now();
    const aborted = fetch(`${sim.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'key-a' },
      body: JSON.stringify(enumRequest('x')),
      signal: AbortSignal.timeout(300),
    });
    await expect(aborted).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    void fetch(`${sim.url}/v1beta/models/gemini-2.5-flash:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': 'key-a' }, body: JSON.stringify(enumRequest('y')) }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    await sim.close();
    sim = undefined;
  });

  it('faults follow the seed: same scenario, same prompts, same outcomes; another seed differs', async () => {
    const outcomes = async (seed: number) => {
      sim = await startSimulator(scenario({ seed, faults: { '503': 0.3, '500': 0.2 } }));
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await generate(sim.url, enumRequest(`row ${i % 20}`))).status);
      await sim.close();
      sim = undefined;
      return out;
    };
    const a = await outcomes(7);
    expect(await outcomes(7)).toEqual(a);
    expect(await outcomes(8)).not.toEqual(a);
    expect(a.filter((s) => s !== 200).length).toBeGreaterThan(5);
  });

  it('with faults counting against quota (default), a 503 uses up RPM; otherwise it does not', async () => {
    for (const countAgainstQuota of [true, false]) {
      sim = await startSimulator(
        scenario({ faults: { '503': 1, countAgainstQuota }, projects: [{ id: 'p1', keys: ['key-a'], limits: { 'gemini-2.5-flash': { rpm: 1 } } }] }),
      );
      expect((await generate(sim.url, enumRequest('a'))).status).toBe(503);
      expect((await generate(sim.url, enumRequest('b'))).status).toBe(countAgainstQuota ? 429 : 503);
      await sim.close();
      sim = undefined;
    }
  });
});
