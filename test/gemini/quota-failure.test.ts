import { describe, expect, it } from 'vitest';
import { readRateLimitDetails, dimensionOfQuotaId, parseDurationMs } from '../../src/gemini/quota-failure.js';
import { parseRpcStatus } from '../../src/gemini/rpc-status.js';
import { classifyFailure, failureForStatus } from '../../src/gemini/classify-failure.js';
import {
  ConnectionFailure,
  KeyFailure,
  ModelFailure,
  RateLimitFailure,
  RequestFailure,
  ServerFailure,
} from '../../src/gemini/api-failures.js';
import { fixtureText } from '../support/fixtures.js';

function details(name: string) {
  const status = parseRpcStatus(fixtureText(name));
  if (!status) throw new Error(`${name} did not parse`);
  return readRateLimitDetails(status);
}

describe('quotaId → dimension (gemini-api-facts.md §1.4)', () => {
  it.each([
    ['GenerateRequestsPerMinutePerProjectPerModel-FreeTier', 'rpm'],
    ['GenerateRequestsPerMinutePerProjectPerModel', 'rpm'],
    ['GenerateRequestsPerDayPerProjectPerModel-FreeTier', 'rpd'],
    ['GenerateRequestsPerDayPerProjectPerModel', 'rpd'],
    ['GenerateContentInputTokensPerModelPerMinute-FreeTier', 'tpm'],
    ['GenerateContentPaidTierInputTokensPerModelPerMinute', 'tpm'],
    ['SomethingElse', 'unknown'],
  ])('%s is %s', (quotaId, dimension) => {
    expect(dimensionOfQuotaId(quotaId)).toBe(dimension);
  });
});

describe('reading real 429 bodies', () => {
  it('fixture A: free-tier TPM, old format → tpm 250000, retryDelay 26 s', () => {
    const d = details('429-a-free-tpm-old-format.json');
    expect(d.violations).toEqual([
      { quotaId: 'GenerateContentInputTokensPerModelPerMinute-FreeTier', dimension: 'tpm', quotaValue: 250000, model: 'gemini-2.5-flash' },
    ]);
    expect(d.retryDelayMs).toBe(26_000);
    expect(d.limitZero).toBe(false);
  });

  it('fixture B: a daily quota with a misleading 5 s retryDelay is still a daily quota', () => {
    const d = details('429-b-free-rpd-short-retry-delay.json');
    expect(d.violations.map((v) => v.dimension)).toEqual(['rpd']);
    expect(d.violations[0]?.quotaValue).toBe(25);
    expect(d.retryDelayMs).toBe(5_000);
  });

  it('fixture D: the message\'s fractional "Please retry in 40.025771073s" beats RetryInfo\'s 40s', () => {
    const d = details('429-d-paid-tpm-debuginfo.json');
    expect(d.violations[0]).toMatchObject({ dimension: 'tpm', quotaValue: 10000 });
    expect(d.retryDelayMs).toBeCloseTo(40_025.771073, 3);
  });

  it('fixture F: limit 0 — violations without quotaValue, three dimensions', () => {
    const d = details('429-f-limit-zero-new-format.json');
    expect(d.limitZero).toBe(true);
    expect(d.violations.map((v) => v.dimension).sort()).toEqual(['rpd', 'rpm', 'tpm']);
    expect(d.violations.every((v) => v.quotaValue === undefined)).toBe(true);
    expect(d.retryDelayMs).toBeCloseTo(11_161.852119, 3);
  });

  it('fixtures G and H: no QuotaFailure, no RetryInfo', () => {
    for (const name of ['429-g-help-only.json', '429-h-bare-capacity.json']) {
      const d = details(name);
      expect(d.violations).toEqual([]);
      expect(d.retryDelayMs).toBeUndefined();
      expect(d.limitZero).toBe(false);
    }
  });

  it('reads " @type" keys with a leading space (gemini-cli googleErrors.test.ts)', () => {
    const body = fixtureText('429-a-free-tpm-old-format.json').replaceAll('"@type"', '" @type"');
    const status = parseRpcStatus(body);
    expect(status?.details.map((d) => d.type)).toEqual(['QuotaFailure', 'Help', 'RetryInfo']);
    expect(readRateLimitDetails(status!).retryDelayMs).toBe(26_000);
  });

  it('reads an array-wrapped body and an SDK message that wraps the body again', () => {
    const body = fixtureText('429-a-free-tpm-old-format.json');
    expect(parseRpcStatus(`[${body}]`)?.code).toBe(429);
    const doubleWrapped = JSON.stringify({ error: { message: body, code: 429, status: 'Too Many Requests' } });
    const status = parseRpcStatus(doubleWrapped);
    expect(status?.status).toBe('RESOURCE_EXHAUSTED');
    expect(status?.details).toHaveLength(3);
  });

  it('parses protobuf durations and the ms form of the message', () => {
    expect(parseDurationMs('26s')).toBe(26_000);
    expect(parseDurationMs('0.5s')).toBe(500);
    expect(parseDurationMs('900.2ms')).toBeCloseTo(900.2);
    expect(parseDurationMs('soon')).toBeUndefined();
  });
});

describe('typed failures by status (never by message text)', () => {
  it.each([
    ['429-h-bare-capacity.json', 429, RateLimitFailure],
    ['503-overloaded.json', 503, ServerFailure],
    ['503-high-demand.json', 503, ServerFailure],
    ['500-internal.json', 500, ServerFailure],
    ['504-deadline-inferred.json', 504, ServerFailure],
    ['400-api-key-invalid.json', 400, KeyFailure],
    ['403-leaked-key.json', 403, KeyFailure],
    ['403-missing-key.json', 403, KeyFailure],
    ['404-model-not-found.json', 404, ModelFailure],
    ['400-context-too-long.json', 400, RequestFailure],
    ['400-thinking-budget-zero.json', 400, RequestFailure],
  ])('%s → %s', (name, status, type) => {
    const text = fixtureText(name);
    const failure = failureForStatus(status, parseRpcStatus(text), text);
    expect(failure).toBeInstanceOf(type);
    expect(failure.httpStatus).toBe(status);
    expect(failure.message).toMatch(new RegExp(`^HTTP ${status}`));
  });

  it('an HTML 502 from a proxy, as the SDK wraps it, is a ServerFailure with readable text', () => {
    const html = '<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>';
    const sdkError = Object.assign(new Error(JSON.stringify({ error: { message: html, code: 502, status: 'Bad Gateway' } })), { status: 502 });
    const failure = classifyFailure(sdkError);
    expect(failure).toBeInstanceOf(ServerFailure);
    expect(failure.message).not.toContain('<');
    expect(failure.message).toContain('Bad Gateway');
  });

  it('fetch failed without a status is a ConnectionFailure naming the cause', () => {
    const error = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    const failure = classifyFailure(error);
    expect(failure).toBeInstanceOf(ConnectionFailure);
    expect(failure.message).toContain('ECONNRESET');
  });
});
