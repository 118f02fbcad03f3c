import { describe, expect, it } from 'vitest';
import { readRateLimitDetails, meaningOfQuotaId, parseDurationMs } from '../../../src/providers/google-quota-failure.js';
import { parseRpcStatus } from '../../../src/providers/google-rpc-status.js';
import { classifyFailure, failureForStatus } from '../../../src/providers/gemini/classify-failure.js';
import {
  ConnectionFailure,
  KeyFailure,
  ModelFailure,
  RateLimitFailure,
  RequestFailure,
  ServerFailure,
} from '../../../src/providers/failures.js';
import { fixtureText } from '../../support/fixtures.js';

function details(name: string, sharedQuota = false) {
  const status = parseRpcStatus(fixtureText(name));
  if (!status) throw new Error(`${name} did not parse`);
  return readRateLimitDetails(status, sharedQuota);
}

describe('quotaId → neutral dimension and period (docs/reference/gemini-api-facts.md §1.4)', () => {
  it.each([
    ['GenerateRequestsPerMinutePerProjectPerModel-FreeTier', 'requests', 'minute'],
    ['GenerateRequestsPerMinutePerProjectPerModel', 'requests', 'minute'],
    ['GenerateRequestsPerDayPerProjectPerModel-FreeTier', 'requests', 'day'],
    ['GenerateRequestsPerDayPerProjectPerModel', 'requests', 'day'],
    ['GenerateContentInputTokensPerModelPerMinute-FreeTier', 'input-tokens', 'minute'],
    ['GenerateContentPaidTierInputTokensPerModelPerMinute', 'input-tokens', 'minute'],
    ['SomethingElse', 'unknown', undefined],
  ])('%s counts %s per %s', (quotaId, dimension, period) => {
    expect(meaningOfQuotaId(quotaId)).toEqual({ dimension, period });
  });
});

describe('reading real 429 bodies into neutral details', () => {
  it('fixture A: free-tier TPM, old format → input tokens per minute, limit 250000, wait 26 s', () => {
    const d = details('429-a-free-tpm-old-format.json');
    expect(d).toEqual({
      hits: [{ dimension: 'input-tokens', period: 'minute', limit: 250000, id: 'GenerateContentInputTokensPerModelPerMinute-FreeTier' }],
      waitMs: 26_000,
      noQuota: false,
      scope: 'project',
    });
  });

  it('fixture B: a daily quota with a misleading 5 s retryDelay is still a daily quota', () => {
    const d = details('429-b-free-rpd-short-retry-delay.json');
    expect(d.hits.map((h) => [h.dimension, h.period])).toEqual([['requests', 'day']]);
    expect(d.hits[0]?.limit).toBe(25);
    expect(d.waitMs).toBe(5_000);
  });

  it('fixture D: the message\'s fractional "Please retry in 40.025771073s" beats RetryInfo\'s 40s', () => {
    const d = details('429-d-paid-tpm-debuginfo.json');
    expect(d.hits[0]).toMatchObject({ dimension: 'input-tokens', period: 'minute', limit: 10000 });
    expect(d.waitMs).toBeCloseTo(40_025.771073, 3);
  });

  it('fixture F: limit 0 — violations without quotaValue, three dimensions', () => {
    const d = details('429-f-limit-zero-new-format.json');
    expect(d.noQuota).toBe(true);
    expect(d.hits.map((h) => `${h.dimension}/${h.period}`).sort()).toEqual(['input-tokens/minute', 'requests/day', 'requests/minute']);
    expect(d.hits.every((h) => h.limit === undefined)).toBe(true);
    expect(d.waitMs).toBeCloseTo(11_161.852119, 3);
  });

  it('fixtures G and H: no QuotaFailure, no RetryInfo — a bare 429 of the project on the Gemini API', () => {
    for (const name of ['429-g-help-only.json', '429-h-bare-capacity.json']) {
      expect(details(name)).toEqual({ hits: [], waitMs: undefined, noQuota: false, scope: 'project' });
    }
  });

  it('on Vertex AI (Dynamic Shared Quota) a 429 naming no quota is shared capacity, never a limit of the project', () => {
    for (const name of ['429-vertex-capacity-inferred.json', '429-h-bare-capacity.json']) {
      expect(details(name, true)).toEqual({ hits: [], waitMs: undefined, noQuota: false, scope: 'shared-capacity' });
    }
    // A Vertex 429 that does name a quota (older per-project quotas) is the project's.
    expect(details('429-a-free-tpm-old-format.json', true).scope).toBe('project');
    const failure = failureForStatus(429, null, 'Too Many Requests', true);
    expect(failure).toBeInstanceOf(RateLimitFailure);
    expect((failure as RateLimitFailure).details.scope).toBe('shared-capacity');
  });

  it('reads " @type" keys with a leading space (gemini-cli googleErrors.test.ts)', () => {
    const body = fixtureText('429-a-free-tpm-old-format.json').replaceAll('"@type"', '" @type"');
    const status = parseRpcStatus(body);
    expect(status?.details.map((d) => d.type)).toEqual(['QuotaFailure', 'Help', 'RetryInfo']);
    expect(readRateLimitDetails(status!).waitMs).toBe(26_000);
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
