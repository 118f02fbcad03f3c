/**
 * Each 429 style of the OpenAI dialect over real HTTP, through the official `openai` client where it can read them and
 * raw where it cannot, against the reference fixtures (test/fixtures/openai/; docs/reference/batch-openai-vertex-facts.md §b,
 * docs/reference/gemini-api-facts.md §7): (a) OpenAI's rate_limit_exceeded with x-ratelimit-*, retry-after(-ms) and "Please try
 * again in …", headers on or off; (b) Gemini compat's array-wrapped Google error without retry headers, with or without
 * details; (c) insufficient_quota and its newer codes. The quota engine is the Gemini dialect's (projects, RPM/TPM,
 * windows), with max_tokens counted against TPM in the openai style.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { FakeClock, scenario, shapeOf } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(here, '..', 'fixtures', 'openai', name), 'utf8'));

const START = Date.parse('2025-06-01T12:00:00Z');
const KEY = 'sk-test-0123456789abcdefWXYZ';
let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(limits: Record<string, unknown>, over: Record<string, unknown> = {}, project: Record<string, unknown> = {}): Promise<FakeClock> {
  const clock = new FakeClock(START);
  sim = await startSimulator(scenario({ projects: [{ id: 'p1', keys: [KEY], limits: { 'gemini-2.5-flash': limits }, ...project }], ...over }), { clock });
  return clock;
}

/** POSTs a chat completion; returns status, headers and the parsed body. */
async function chat(prefix: string, text: string, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${sim!.url}${prefix}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: text }], reasoning_effort: 'none', ...extra }),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

/** A Go duration (`140ms`, `1.5s`, `6m0s`, `1h0m0s`) in ms: the client side of go-duration.ts, written apart to check it. */
function goMs(d: string): number {
  let ms = 0;
  for (const [, n, unit] of d.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) ms += Number(n) * { h: 3_600_000, m: 60_000, s: 1000, ms: 1 }[unit as 'h'];
  return ms;
}

const ratelimitHeaders = (h: Headers) => Object.fromEntries([...h.entries()].filter(([k]) => k.startsWith('x-ratelimit-')));

describe('(a) OpenAI rate_limit_exceeded', () => {
  it('every answer carries x-ratelimit-* (Go-duration resets); the 429 has retry-after, retry-after-ms and the same wait in its message', async () => {
    const clock = await start({ rpm: 2, tpm: 100_000 });
    const first = await chat('/v1', 'one');
    expect(first.status).toBe(200);
    expect(Object.keys(ratelimitHeaders(first.headers)).sort()).toEqual(Object.keys(fixture('rate-limit-headers.json') as object).sort());
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(first.headers.get('x-ratelimit-reset-requests')).toBe('1m0s');
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
    expect(Number(first.headers.get('x-ratelimit-remaining-tokens'))).toBe(100_000 - first.json.usage.prompt_tokens);
    clock.advance(10_000);
    const second = await chat('/v1', 'two');
    expect(second.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    // Back at the full limit when the newest request leaves the window.
    expect(second.headers.get('x-ratelimit-reset-requests')).toBe('1m0s');
    clock.advance(10_000);

    const err = await new OpenAI({ apiKey: KEY, baseURL: `${sim!.url}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'three' }], reasoning_effort: 'none' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const e = err as InstanceType<typeof OpenAI.RateLimitError>;
    expect([e.status, e.code, e.type, e.param]).toEqual([429, 'rate_limit_exceeded', 'requests', null]);
    expect(shapeOf(e.error)).toEqual(shapeOf((fixture('429-rate-limit-exceeded-tokens.json') as any).error));
    // The oldest request (t = 0) leaves the window at 60 s: 40 s from now (rounded up to the ms).
    const waitMs = Number(e.headers.get('retry-after-ms'));
    expect(waitMs).toBe(40_000);
    expect(e.headers.get('retry-after')).toBe('40');
    const m = /^Rate limit reached for gemini-2\.5-flash in organization p1 on requests per min \(RPM\): Limit 2, Used 2, Requested 1\. Please try again in (\S+)\.$/.exec(String((e.error as any).message));
    expect(m).not.toBeNull();
    expect(goMs(m![1]!)).toBe(waitMs);
    expect(e.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(goMs(e.headers.get('x-ratelimit-reset-requests')!)).toBe(50_000);
    expect(sim!.stats().rateLimited.byQuotaId).toEqual({ 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier': 1 });
  });

  it('max_tokens counts against TPM up front: type tokens, Requested = prompt + max_tokens', async () => {
    await start({ rpm: 100, tpm: 2_500 });
    const a = await chat('/v1', 'one', { max_completion_tokens: 1_000 });
    expect(a.status).toBe(200);
    const charge = a.json.usage.prompt_tokens + 1_000;
    expect(Number(a.headers.get('x-ratelimit-remaining-tokens'))).toBe(2_500 - charge);
    expect((await chat('/v1', 'one', { max_completion_tokens: 1_000 })).status).toBe(200);
    const r = await chat('/v1', 'one', { max_completion_tokens: 1_000 });
    expect(r.status).toBe(429);
    expect(r.json.error.type).toBe('tokens');
    expect(r.json.error.message).toContain(`on tokens per min (TPM): Limit 2500, Used ${2 * charge}, Requested ${charge}. Please try again in 1m0s.`);
    // The same requests through Gemini's compatibility path charge input tokens only.
    expect((await chat('/v1beta/openai', 'one', { max_completion_tokens: 1_000 })).status).toBe(200);
  });

  it('headers off: no x-ratelimit-*, no retry-after; the message still says when', async () => {
    const clock = await start({ rpm: 1 }, { openai: { rateLimitHeaders: false, retryAfterHeaders: false } });
    const ok = await chat('/v1', 'one');
    expect(ratelimitHeaders(ok.headers)).toEqual({});
    clock.advance(1_500);
    const r = await chat('/v1', 'two');
    expect(r.status).toBe(429);
    expect(ratelimitHeaders(r.headers)).toEqual({});
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.headers.get('retry-after-ms')).toBeNull();
    expect(/Please try again in (\S+)\.$/.exec(r.json.error.message)![1]).toBe('58.5s');
  });

  it('a token bucket reports what it holds, and the time to refill it', async () => {
    const clock = await start({ rpm: 60, window: { policy: 'bucket', burst: 6 } });
    const r = await chat('/v1', 'one');
    expect(r.headers.get('x-ratelimit-limit-requests')).toBe('60');
    expect(r.headers.get('x-ratelimit-remaining-requests')).toBe('5');
    expect(r.headers.get('x-ratelimit-reset-requests')).toBe('1s');
    clock.advance(500);
    expect((await chat('/v1', 'two')).headers.get('x-ratelimit-reset-requests')).toBe('1.5s');
  });
});

describe('(b) Gemini compat: a JSON array wrapping a Google error', () => {
  it('bare flavour: the fixture body exactly, no retry or rate-limit headers; openai-node loses it ("no body")', async () => {
    const clock = await start({ rpm: 1 }, { quota429: 'bare' });
    expect((await chat('/v1beta/openai', 'one')).status).toBe(200);
    clock.advance(1_000);
    const r = await chat('/v1beta/openai', 'two');
    expect(r.status).toBe(429);
    expect(r.json).toEqual(fixture('429-compat-bare-array.json'));
    expect(r.headers.get('retry-after')).toBeNull();
    expect(ratelimitHeaders(r.headers)).toEqual({});

    // What the official client makes of it (docs/reference/batch-openai-vertex-facts.md, last section): the body is gone, so an adapter
    // must capture the raw response itself, here through the client's `fetch` option.
    const raw: string[] = [];
    const capture: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (res.status === 429) raw.push(await res.clone().text());
      return res;
    };
    const err = await new OpenAI({ apiKey: KEY, baseURL: `${sim!.url}/v1beta/openai`, maxRetries: 0, fetch: capture }).chat.completions
      .create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'three' }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.APIError>).error).toBeUndefined();
    expect((err as Error).message).toBe('429 status code (no body)');
    expect(JSON.parse(raw[0]!)).toEqual(fixture('429-compat-bare-array.json'));
  });

  it('full flavour: the array holds QuotaFailure (quotaId, quotaValue) and RetryInfo; max_tokens is not charged', async () => {
    const clock = await start({ rpm: 2, tpm: 100_000 }, { quota429: 'full-new' });
    expect((await chat('/v1beta/openai', 'one', { max_tokens: 90_000 })).status).toBe(200);
    clock.advance(10_000);
    expect((await chat('/v1beta/openai', 'two', { max_tokens: 90_000 })).status).toBe(200);
    clock.advance(10_000);
    const r = await chat('/v1beta/openai', 'three');
    expect(r.status).toBe(429);
    expect(r.json).toHaveLength(1);
    const details = r.json[0].error.details as any[];
    const violation = details.find((d) => d['@type'].endsWith('QuotaFailure')).violations[0];
    expect([violation.quotaId, violation.quotaValue]).toEqual(['GenerateRequestsPerMinutePerProjectPerModel-FreeTier', '2']);
    expect(details.find((d) => d['@type'].endsWith('RetryInfo')).retryDelay).toBe('40s');
    expect(r.headers.get('retry-after')).toBeNull();
  });

  it('the array-wrapped 400 of an unknown field has the fixture shape', async () => {
    await start({ rpm: 100 }, { scripts: [{ match: '#400', responses: [{ kind: 'error', fixture: 'compat-400-unknown-field-array' }] }] });
    const r = await chat('/v1beta/openai', 'x #400');
    expect(r.status).toBe(400);
    expect(r.json).toEqual(fixture('400-compat-unknown-field-array.json'));
  });
});

describe('(c) insufficient_quota', () => {
  it('after the project\'s credit runs out every request gets the billing 429 (fixture body), the quota untouched', async () => {
    await start({ rpm: 100 }, {}, { insufficientQuota: { afterRequests: 2 } });
    expect((await chat('/v1', 'one')).status).toBe(200);
    expect((await chat('/v1', 'two')).status).toBe(200);
    const err = await new OpenAI({ apiKey: KEY, baseURL: `${sim!.url}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'three' }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const e = err as InstanceType<typeof OpenAI.APIError>;
    expect([e.code, e.type]).toEqual(['insufficient_quota', 'insufficient_quota']);
    expect(e.error).toEqual((fixture('429-insufficient-quota.json') as any).error);
    expect(e.headers!.get('retry-after')).toBeNull();
    expect(e.headers!.get('x-ratelimit-remaining-requests')).toBe('98');
    const stats = sim!.stats();
    expect(stats.requests.byStatus).toEqual({ '200': 2, '429': 1 });
    expect(stats.faults).toEqual({ insufficient_quota: 1 });
  });

  it.each(['credit_balance_exhausted', 'organization_spend_limit_exceeded', 'project_spend_limit_exceeded', 'organization_usage_limit_exceeded'])(
    'the newer code %s from the first request',
    async (code) => {
      await start({ rpm: 100 }, {}, { insufficientQuota: { code } });
      const r = await chat('/v1', 'one');
      expect(r.status).toBe(429);
      expect(r.json.error).toMatchObject({ code, type: code, param: null });
    },
  );
});

describe('faults in the openai style', () => {
  it('503 and 500 are OpenAI server_error bodies; 429-bare has no code and no retry headers', async () => {
    await start(
      { rpm: 1000 },
      {
        scripts: [
          { match: '#503', responses: [{ kind: 'error', status: 503 }] },
          { match: '#500', responses: [{ kind: 'error', status: 500 }] },
        ],
        faults: { '429-bare': 1 },
      },
    );
    for (const [marker, status] of [['#503', 503], ['#500', 500]] as const) {
      const r = await chat('/v1', `x ${marker}`);
      expect(r.status).toBe(status);
      expect(r.json.error).toMatchObject({ type: 'server_error', param: null, code: null });
    }
    const r = await chat('/v1', 'unscripted');
    expect(r.status).toBe(429);
    expect(r.json.error.code).toBeNull();
    expect(r.headers.get('retry-after')).toBeNull();
  });
});
