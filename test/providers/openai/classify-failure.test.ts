/**
 * From a captured error response to a typed failure (src/providers/openai/classify-failure.ts), on the reference
 * fixtures (test/fixtures/openai/): OpenAI's rate_limit_exceeded and insufficient_quota, Gemini compat's array-wrapped
 * Google errors (with and without details), the statuses, and a key quoted by the server never kept.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rememberSecret } from '../../../src/config/known-secrets.js';
import { BillingFailure, ConnectionFailure, KeyFailure, ModelFailure, RateLimitFailure, RequestFailure, ServerFailure } from '../../../src/providers/failures.js';
import { classifyFailure, failureOfResponse, refusalOf } from '../../../src/providers/openai/classify-failure.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtureText = (name: string): string => readFileSync(path.join(here, '..', '..', 'fixtures', 'openai', name), 'utf8');
const geminiFixtureText = (name: string): string => readFileSync(path.join(here, '..', '..', 'fixtures', 'gemini', name), 'utf8');

const response = (status: number, text: string, headers: Record<string, string> = {}) => failureOfResponse({ status, headers: new Headers(headers), text });

describe('429s', () => {
  it('rate_limit_exceeded: tokens per minute, the stated limit, the wait from the message when no header says', () => {
    const f = response(429, fixtureText('429-rate-limit-exceeded-tokens.json'));
    expect(f).toBeInstanceOf(RateLimitFailure);
    expect((f as RateLimitFailure).details).toEqual({
      hits: [{ dimension: 'input-tokens', period: 'minute', limit: 30_000, id: 'rate_limit_exceeded' }],
      waitMs: 140,
      noQuota: false,
      scope: 'project',
    });
    expect(f.message).toMatch(/^HTTP 429 rate_limit_exceeded: Rate limit reached/);
  });

  it('rate_limit_exceeded with headers: retry-after-ms wins; the limit from x-ratelimit-limit-requests when the message has none', () => {
    const body = JSON.stringify({ error: { message: 'Too many requests, slow down.', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    const f = response(429, body, { 'retry-after-ms': '1250', 'retry-after': '2', 'x-ratelimit-limit-requests': '500', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '120ms' });
    expect((f as RateLimitFailure).details).toEqual({ hits: [{ dimension: 'requests', period: 'minute', limit: 500, id: 'rate_limit_exceeded' }], waitMs: 1250, noQuota: false, scope: 'project' });
  });

  it('insufficient_quota (fixture) and its newer codes are BillingFailure', () => {
    expect(response(429, fixtureText('429-insufficient-quota.json'))).toBeInstanceOf(BillingFailure);
    for (const code of ['credit_balance_exhausted', 'organization_spend_limit_exceeded', 'project_spend_limit_exceeded', 'organization_usage_limit_exceeded']) {
      const f = response(429, JSON.stringify({ error: { message: 'no', type: code, param: null, code } }));
      expect(f).toBeInstanceOf(BillingFailure);
      expect(f.code).toBe('API_BILLING_EXHAUSTED');
    }
  });

  it('Gemini compat, array-wrapped without details: a bare 429 (no hits, no wait)', () => {
    const f = response(429, fixtureText('429-compat-bare-array.json'));
    expect(f).toBeInstanceOf(RateLimitFailure);
    expect((f as RateLimitFailure).details).toEqual({ hits: [], waitMs: undefined, noQuota: false, scope: 'project' });
    expect(f.message).toBe('HTTP 429 RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).');
  });

  it('Gemini compat, array-wrapped with details: the quotaId, its quotaValue and the retryDelay inside', () => {
    const f = response(429, `[${geminiFixtureText('429-a-free-tpm-old-format.json')}]`);
    const d = (f as RateLimitFailure).details;
    expect(d.hits.map((h) => [h.dimension, h.period, h.id])).toEqual([['input-tokens', 'minute', 'GenerateContentInputTokensPerModelPerMinute-FreeTier']]);
    expect(d.hits[0]!.limit).toBeGreaterThan(0);
    expect(d.waitMs).toBeGreaterThan(0);
  });
});

describe('other statuses', () => {
  it('401 KeyFailure, the key the server echoes replaced by its alias', () => {
    const key = 'sk-proj-secret-abcdefghijklmnopqrstuvwxyz-0001';
    rememberSecret(key, 'key-1 …0001');
    const f = response(401, JSON.stringify({ error: { message: `Incorrect API key provided: ${key}.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
    expect(f).toBeInstanceOf(KeyFailure);
    expect(f.message).not.toContain(key);
    expect(JSON.stringify(f.raw)).not.toContain(key);
    expect(f.message).toContain('key-1 …0001');
  });

  it('404 ModelFailure, 400 RequestFailure (refusal: param and message), 5xx and HTML pages ServerFailure', () => {
    expect(response(404, JSON.stringify({ error: { message: 'The model `x` does not exist', type: 'invalid_request_error', param: null, code: 'model_not_found' } }))).toBeInstanceOf(ModelFailure);
    const bad = response(400, JSON.stringify({ error: { message: "'response_format' of type 'json_schema' is not supported", type: 'invalid_request_error', param: 'response_format', code: null } }));
    expect(bad).toBeInstanceOf(RequestFailure);
    expect(refusalOf(bad)).toEqual({ param: 'response_format', message: "'response_format' of type 'json_schema' is not supported" });
    const compat = response(400, fixtureText('400-compat-unknown-field-array.json'));
    expect(compat).toBeInstanceOf(RequestFailure);
    expect(refusalOf(compat).message).toContain('Unknown name "web_search_options"');
    expect(response(503, '<html><body>Service Unavailable</body></html>')).toBeInstanceOf(ServerFailure);
    expect(response(500, JSON.stringify({ error: { message: 'The server had an error', type: 'server_error', param: null, code: null } }))).toBeInstanceOf(ServerFailure);
  });

  it('no HTTP answer: ConnectionFailure from the transport\'s error inside the client\'s', () => {
    // openai-node's APIConnectionError carries the transport's TypeError('fetch failed'), whose cause is the socket error.
    const socket = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const f = classifyFailure(Object.assign(new Error('Connection error.'), { cause: new TypeError('fetch failed', { cause: socket }) }), undefined);
    expect(f).toBeInstanceOf(ConnectionFailure);
    expect(f.message).toContain('ECONNRESET');
  });
});
