/**
 * Scripted answers for marked prompts, the request log (`GET /__sim/log`), stats and reset.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { enumRequest, fixture, generate, post, scenario, shapeOf, without } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const LABELS = ['Yes', 'No'];

describe('scripts', () => {
  it('uses responses in order per distinct prompt, the last one repeating', async () => {
    sim = await startSimulator(
      scenario({ scripts: [{ match: '#sim:flaky', responses: [{ kind: 'text', text: 'Label: **Yes**.' }, { kind: 'enum' }] }] }),
    );
    const texts = async (prompt: string) => (await generate(sim!.url, enumRequest(prompt, LABELS))).json.candidates[0].content.parts[0].text;
    expect(await texts('row 1 #sim:flaky')).toBe('Label: **Yes**.');
    expect(await texts('row 2 #sim:flaky')).toBe('Label: **Yes**.'); // another prompt starts over
    const second = await texts('row 1 #sim:flaky');
    expect(LABELS).toContain(second);
    expect(await texts('row 1 #sim:flaky')).toBe(second);
  });

  it('blocked: promptFeedback.blockReason and no candidates', async () => {
    sim = await startSimulator(scenario({ scripts: [{ match: '#sim:blocked', responses: [{ kind: 'blocked', blockReason: 'PROHIBITED_CONTENT' }] }] }));
    const r = await generate(sim.url, enumRequest('bad #sim:blocked'));
    expect(r.status).toBe(200);
    expect(r.json.candidates).toBeUndefined();
    expect(r.json.promptFeedback).toEqual({ blockReason: 'PROHIBITED_CONTENT' });
    expect(r.json.usageMetadata.totalTokenCount).toBe(r.json.usageMetadata.promptTokenCount);
  });

  it('finish: SAFETY without content, RECITATION with content', async () => {
    sim = await startSimulator(
      scenario({
        scripts: [
          { match: '#sim:safety', responses: [{ kind: 'finish', finishReason: 'SAFETY' }] },
          { match: '#sim:recitation', responses: [{ kind: 'finish', finishReason: 'RECITATION', text: 'Once upon' }] },
        ],
      }),
    );
    const safety = (await generate(sim.url, enumRequest('x #sim:safety'))).json.candidates[0];
    expect(safety.finishReason).toBe('SAFETY');
    expect(safety.content).toBeUndefined();
    const recitation = (await generate(sim.url, enumRequest('x #sim:recitation'))).json.candidates[0];
    expect([recitation.finishReason, recitation.content.parts[0].text]).toEqual(['RECITATION', 'Once upon']);
  });

  it('max-tokens gives the thinking shape; json answers the given value; error serves a fixture', async () => {
    sim = await startSimulator(
      scenario({
        scripts: [
          { match: '#sim:max', responses: [{ kind: 'max-tokens' }] },
          { match: '#sim:json', responses: [{ kind: 'json', value: { label: 'Yes', score: 2 } }] },
          { match: '#sim:err', responses: [{ kind: 'error', fixture: '503-high-demand' }, { kind: 'error', status: 500 }] },
        ],
      }),
    );
    const max = await generate(sim.url, enumRequest('x #sim:max'));
    expect(shapeOf(max.json)).toEqual(shapeOf(without(fixture('200-thinking-max-tokens-no-text'), 'turnToken')));
    expect(max.json.candidates[0]).toEqual({ content: { role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 });
    expect(max.json.usageMetadata.candidatesTokenCount).toBeUndefined();
    expect(max.json.usageMetadata.thoughtsTokenCount).toBeGreaterThan(0);
    expect(JSON.parse((await generate(sim.url, enumRequest('x #sim:json'))).json.candidates[0].content.parts[0].text)).toEqual({ label: 'Yes', score: 2 });
    const e1 = await generate(sim.url, enumRequest('x #sim:err'));
    expect([e1.status, e1.json]).toEqual([503, fixture('503-high-demand')]);
    const e2 = await generate(sim.url, enumRequest('x #sim:err'));
    expect([e2.status, e2.json.error.status]).toEqual([500, 'INTERNAL']);
  });

  it('reset, delay-ms and hang', async () => {
    sim = await startSimulator(
      scenario({
        scripts: [
          { match: '#sim:reset-once', responses: [{ kind: 'reset' }, { kind: 'enum' }] },
          { match: '#sim:slow', responses: [{ kind: 'delay-ms', ms: 150 }] },
          { match: '#sim:hang', responses: [{ kind: 'hang' }] },
        ],
      }),
    );
    await expect(generate(sim.url, enumRequest('x #sim:reset-once'))).rejects.toThrow();
    expect((await generate(sim.url, enumRequest('x #sim:reset-once'))).status).toBe(200);
    const t0 = Date.now();
    expect((await generate(sim.url, enumRequest('x #sim:slow'))).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    const hung = fetch(`${sim.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'key-a' },
      body: JSON.stringify(enumRequest('x #sim:hang')),
      signal: AbortSignal.timeout(200),
    });
    await expect(hung).rejects.toThrow();
    expect(sim.stats().faults).toEqual({ 'script-reset': 1, 'script-hang': 1 });
  });
});

describe('request log, stats and reset', () => {
  it('logs each request with its project, status, outcome, label and the sha256 of its user text', async () => {
    sim = await startSimulator(scenario({ requestLog: true, projects: [{ id: 'p1', keys: ['key-a'], limits: { 'gemini-2.5-flash': { rpm: 1 } } }] }));
    await generate(sim.url, enumRequest('first row', LABELS));
    await generate(sim.url, enumRequest('second row', LABELS));
    const log = (await (await fetch(`${sim.url}/__sim/log?since=0`)).json()) as any[];
    expect(log.map((e) => [e.seq, e.project, e.keyAlias, e.model, e.status, e.outcome])).toEqual([
      [1, 'p1', 'p1/key-1', 'gemini-2.5-flash', 200, 'ok'],
      [2, 'p1', 'p1/key-1', 'gemini-2.5-flash', 429, 'rate-limited'],
    ]);
    expect(log[0].promptSha256).toBe(createHash('sha256').update('first row').digest('hex'));
    expect(LABELS).toContain(log[0].label);
    const later = (await (await fetch(`${sim.url}/__sim/log?since=1`)).json()) as any[];
    expect(later.map((e) => e.seq)).toEqual([2]);
    expect(JSON.stringify(log)).not.toContain('key-a'); // aliases only, never the key string
  });

  it('the log is off by default', async () => {
    sim = await startSimulator(scenario());
    expect((await fetch(`${sim.url}/__sim/log`)).status).toBe(404);
  });

  it('stats over HTTP equal stats(), and reset zeroes counters but keeps the quota window', async () => {
    sim = await startSimulator(scenario({ projects: [{ id: 'p1', keys: ['key-a'], limits: { 'gemini-2.5-flash': { rpm: 2 } } }] }));
    await generate(sim.url, enumRequest('a'));
    await post(sim.url, '/v1beta/models/gemini-2.5-flash:countTokens', enumRequest('a'));
    const overHttp = (await (await fetch(`${sim.url}/__sim/stats`)).json()) as Record<string, unknown>;
    const direct = sim.stats();
    expect({ ...overHttp, now: 0 }).toEqual({ ...direct, now: 0 });
    expect(direct.requests).toEqual({ total: 2, byStatus: { '200': 2 }, byEndpoint: { generateContent: 1, countTokens: 1 } });
    expect(direct.answeredOk).toBe(1);
    expect(direct.tokens.input).toBeGreaterThan(0);
    expect((await post(sim.url, '/__sim/reset', {})).json).toEqual({ reset: true });
    expect(sim.stats().requests.total).toBe(0);
    expect((await generate(sim.url, enumRequest('b'))).status).toBe(200);
    expect((await generate(sim.url, enumRequest('c'))).status).toBe(429); // the window still holds 'a'
  });
});
