/**
 * The OpenAI adapter's caller (the official `openai` client, retries off, our transport) against the simulator over
 * real HTTP on 127.0.0.1: labels read back from the strict json_schema answer, usage and limit hints, each 429 style
 * taking its path (OpenAI rate_limit_exceeded with and without headers, Gemini compat's array-wrapped body captured
 * before the client drops it, insufficient_quota), and the request shape stepping down once, with one notice, on a
 * server that refuses json_schema or reasoning_effort.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/providers/contract.js';
import { BillingFailure, RateLimitFailure } from '../../../src/providers/failures.js';
import { createOpenAiCaller } from '../../../src/providers/openai/openai-caller.js';
import { ParamLadder } from '../../../src/providers/openai/param-ladder.js';
import { parseScenario, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';

const KEY = 'sk-test-caller-0123456789abcdef';
const LABELS = ['positive', 'negative', 'neutral'];
const request = (prompt: string, over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'gemini-2.5-flash',
  prompt,
  output: { kind: 'labels', labels: LABELS },
  reasoning: 'least',
  ...over,
});

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function setup(scenario: Record<string, unknown>, prefix = '/v1') {
  sim = await startSimulator(parseScenario({ projects: [{ id: 'p1', keys: [KEY], limits: { 'gemini-2.5-flash': { rpm: 1000, tpm: 1_000_000 } } }], ...scenario }, 'test'));
  const notices: string[] = [];
  const caller = createOpenAiCaller({ apiKey: KEY, baseUrl: sim.url + prefix, timeoutMs: 10_000, ladder: new ParamLadder((m) => notices.push(m)) });
  return { caller, notices };
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('answers', () => {
  it('a label from the strict json_schema answer, usage, and the x-ratelimit-* headers as limit hints', async () => {
    const { caller, notices } = await setup({});
    const a = await caller.generate(request('The box was crushed.'));
    expect(LABELS).toContain(a.text);
    expect([a.finish, a.finishDetail]).toEqual(['stop', 'stop']);
    expect(a.usage.inputTokens).toBeGreaterThan(0);
    expect(a.usage.outputTokens).toBeGreaterThan(0);
    expect(a.usage.reasoningTokens).toBe(0);
    expect(a.limits?.requests).toEqual({ limit: 1000, remaining: 999, resetMs: 60_000 });
    expect(a.limits?.tokens?.limit).toBe(1_000_000);
    expect(notices).toEqual([]);
    // The simulator charged the prompt plus max_completion_tokens to TPM, as OpenAI does.
    expect(1_000_000 - a.limits!.tokens!.remaining!).toBe(a.usage.inputTokens + 64);
  });

  it('reasoning cut at the cap: finish length, no text', async () => {
    const { caller } = await setup({});
    const a = await caller.generate(request('why?', { output: { kind: 'text' }, reasoning: { budgetTokens: -1 }, maxOutputTokens: 30 }));
    expect([a.finish, a.text]).toEqual(['length', undefined]);
    expect(a.usage.reasoningTokens).toBe(29);
  });
});

describe('each 429 style takes its path', () => {
  it('(a) rate_limit_exceeded with headers: requests per minute, the limit, retry-after-ms', async () => {
    const { caller } = await setup({ projects: [{ id: 'p1', keys: [KEY], limits: { 'gemini-2.5-flash': { rpm: 1 } } }] });
    await caller.generate(request('one'));
    const f = await failureOf(caller.generate(request('two')));
    expect(f).toBeInstanceOf(RateLimitFailure);
    const d = (f as RateLimitFailure).details;
    expect(d.hits).toEqual([{ dimension: 'requests', period: 'minute', limit: 1, id: 'rate_limit_exceeded' }]);
    expect(d.waitMs).toBeGreaterThan(55_000);
    expect(d.waitMs).toBeLessThanOrEqual(60_000);
    expect(d.scope).toBe('project');
  });

  it('(a) headers off: the wait read from "Please try again in …"', async () => {
    const { caller } = await setup({ openai: { rateLimitHeaders: false, retryAfterHeaders: false }, projects: [{ id: 'p1', keys: [KEY], limits: { 'gemini-2.5-flash': { rpm: 1 } } }] });
    const first = await caller.generate(request('one'));
    expect(first.limits).toBeUndefined();
    const d = ((await failureOf(caller.generate(request('two')))) as RateLimitFailure).details;
    expect(d.waitMs).toBeGreaterThan(55_000);
    expect(d.hits[0]!.limit).toBe(1);
  });

  it('(b) Gemini compat with details: the Google error inside the array reaches us (quotaId, quotaValue, retryDelay)', async () => {
    const { caller } = await setup({ quota429: 'full-new', projects: [{ id: 'p1', keys: [KEY], limits: { 'gemini-2.5-flash': { rpm: 1 } } }] }, '/v1beta/openai');
    await caller.generate(request('one'));
    const f = (await failureOf(caller.generate(request('two')))) as RateLimitFailure;
    expect(f).toBeInstanceOf(RateLimitFailure);
    expect(f.details.hits).toEqual([{ dimension: 'requests', period: 'minute', limit: 1, id: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }]);
    expect(f.details.waitMs).toBeGreaterThan(55_000);
    expect(Array.isArray(f.raw)).toBe(true);
  });

  it('(b) Gemini compat bare: a 429 naming nothing (the scheduler slows down)', async () => {
    const { caller } = await setup({ quota429: 'bare', projects: [{ id: 'p1', keys: [KEY], limits: { 'gemini-2.5-flash': { rpm: 1 } } }] }, '/v1beta/openai');
    await caller.generate(request('one'));
    const f = (await failureOf(caller.generate(request('two')))) as RateLimitFailure;
    expect(f.details).toEqual({ hits: [], waitMs: undefined, noQuota: false, scope: 'project' });
    expect(f.message).toBe('HTTP 429 RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).');
  });

  it('(c) insufficient_quota: BillingFailure', async () => {
    const { caller } = await setup({ projects: [{ id: 'p1', keys: [KEY], insufficientQuota: { afterRequests: 1 } }] });
    await caller.generate(request('one'));
    const f = await failureOf(caller.generate(request('two')));
    expect(f).toBeInstanceOf(BillingFailure);
    expect((f as BillingFailure).httpStatus).toBe(429);
  });
});

describe('servers that refuse a field', () => {
  it('no json_schema: steps to json_object once, with one notice, and the label is read from the object', async () => {
    const { caller, notices } = await setup({
      openai: { responseFormats: ['json_object', 'text'] },
      scripts: [{ match: 'row', responses: [{ kind: 'json', value: { label: 'negative' } }] }],
    });
    const answers = await Promise.all([caller.generate(request('row 1')), caller.generate(request('row 2'))]);
    expect(answers.map((a) => a.text)).toEqual(['negative', 'negative']);
    expect(await caller.generate(request('row 3')).then((a) => a.text)).toBe('negative');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^the server refused response_format json_schema \(.*not supported.*\); sending response_format json_object/);
    // Two rows refused once, then three answered: five requests in all.
    expect(sim!.stats().requests.byStatus).toEqual({ '200': 3, '400': 2 });
  });

  it('reasoning_effort none refused (a model that always reasons): steps to minimal', async () => {
    const { caller, notices } = await setup({});
    const a = await caller.generate(request('x', { model: 'gemini-2.5-pro' }));
    expect(LABELS).toContain(a.text);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/refused reasoning_effort none .*; sending reasoning_effort minimal/);
  });
});
