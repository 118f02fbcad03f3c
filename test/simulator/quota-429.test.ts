/**
 * The quota 429 over real HTTP, in each flavour, against the shapes of the reference fixtures
 * (test/fixtures/gemini/429-*.json; docs/reference/gemini-api-facts.md §2.3).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { detail, detailOrder, enumRequest, FakeClock, fixture, generate, scenario, shapeOf } from './helpers.js';

const START = Date.parse('2025-06-01T12:00:00Z');
let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Starts a simulator with 2 RPM on gemini-2.5-flash (and `extra` fields) and a fake clock. */
async function twoRpm(extra: Record<string, unknown> = {}, limits: Record<string, unknown> = { rpm: 2, tpm: 250_000, rpd: 250 }, tier = 'free') {
  const clock = new FakeClock(START);
  sim = await startSimulator(scenario({ projects: [{ id: 'p1', tier, keys: ['key-a', 'key-b'], limits: { 'gemini-2.5-flash': limits } }], ...extra }), { clock });
  return clock;
}

/** Sends two admitted requests 10 s apart, then a third 10 s later that exceeds 2 RPM (wait 40 s). */
async function exceedRpm(clock: FakeClock, key = 'key-a') {
  expect((await generate(sim!.url, enumRequest('one'), key)).status).toBe(200);
  clock.advance(10_000);
  expect((await generate(sim!.url, enumRequest('two'), key === 'key-a' ? 'key-b' : key)).status).toBe(200);
  clock.advance(10_000);
  return generate(sim!.url, enumRequest('three'), key);
}

describe('quota 429 flavours', () => {
  it('full-new: bullets, "Please retry in" with 9 decimals, Help → QuotaFailure → RetryInfo, floor seconds', async () => {
    const clock = await twoRpm({ quota429: 'full-new' });
    const r = await exceedRpm(clock);
    expect(r.status).toBe(429);
    expect(r.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(r.headers.get('retry-after')).toBeNull();
    expect(shapeOf(r.json)).toEqual(shapeOf(fixture('429-a-free-tpm-old-format')));
    expect(detailOrder(r.json)).toEqual(['Help', 'QuotaFailure', 'RetryInfo']);
    expect(r.json.error.message).toMatch(
      /^You exceeded your current quota, .* To monitor your current usage, head to: https:\/\/ai\.dev\/rate-limit\. \n\* Quota exceeded for metric: generativelanguage\.googleapis\.com\/generate_content_free_tier_requests, limit: 2, model: gemini-2\.5-flash\nPlease retry in 40\.\d{9}s\.$/,
    );
    const v = detail(r.json, 'QuotaFailure').violations;
    expect(v).toEqual([
      {
        quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
        quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
        quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' },
        quotaValue: '2',
      },
    ]);
    expect(detail(r.json, 'RetryInfo').retryDelay).toBe('40s');
  });

  it('full-old: the old message and QuotaFailure → Help → RetryInfo (fixture A)', async () => {
    const clock = await twoRpm({ quota429: 'full-old' });
    const r = await exceedRpm(clock);
    const a = fixture('429-a-free-tpm-old-format') as any;
    expect(shapeOf(r.json)).toEqual(shapeOf(a));
    expect(detailOrder(r.json)).toEqual(detailOrder(a));
    expect(r.json.error.message).toBe(a.error.message);
  });

  it('help-only and bare match fixtures G and H', async () => {
    let clock = await twoRpm({ quota429: 'help-only' });
    const g = await exceedRpm(clock);
    expect(g.json).toEqual(fixture('429-g-help-only'));
    await sim!.close();
    clock = await twoRpm({ quota429: 'bare' });
    const h = await exceedRpm(clock);
    expect(h.json).toEqual(fixture('429-h-bare-capacity'));
    // The ground truth still knows which quota was hit.
    expect(sim!.stats().rateLimited.byQuotaId).toEqual({ 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier': 1 });
  });

  it('daily-misleading: an RPD 429 with a retryDelay of a few seconds (fixture B)', async () => {
    const clock = await twoRpm({ quota429: 'daily-misleading' }, { rpm: 100, rpd: 1 });
    expect((await generate(sim!.url, enumRequest('one'))).status).toBe(200);
    clock.advance(1_000);
    const r = await generate(sim!.url, enumRequest('two'));
    const b = fixture('429-b-free-rpd-short-retry-delay') as any;
    expect(shapeOf(r.json)).toEqual(shapeOf(b));
    expect(detailOrder(r.json)).toEqual(detailOrder(b));
    expect(detail(r.json, 'QuotaFailure').violations[0].quotaId).toBe('GenerateRequestsPerDayPerProjectPerModel-FreeTier');
    const seconds = Number(/^(\d+)s$/.exec(detail(r.json, 'RetryInfo').retryDelay)![1]);
    expect(seconds).toBeGreaterThanOrEqual(5);
    expect(seconds).toBeLessThanOrEqual(25); // while midnight is hours away
  });

  it('vary-order: the same details in more than one order', async () => {
    const clock = await twoRpm({ quota429: 'vary-order' });
    await exceedRpm(clock);
    const orders = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const r = await generate(sim!.url, enumRequest(`again ${i}`));
      expect(r.status).toBe(429);
      expect(shapeOf(r.json)).toEqual(shapeOf(fixture('429-a-free-tpm-old-format')));
      orders.add(detailOrder(r.json).join(','));
    }
    expect(orders.size).toBeGreaterThan(1);
  });

  it('limit 0: every request gets the fixture-F shape, without quotaValue', async () => {
    await twoRpm({}, { limit: 0 });
    const r = await generate(sim!.url, enumRequest('anything'));
    const f = fixture('429-f-limit-zero-new-format') as any;
    expect(r.status).toBe(429);
    expect(shapeOf(r.json)).toEqual(shapeOf(f));
    expect(detailOrder(r.json)).toEqual(detailOrder(f));
    expect(detail(r.json, 'QuotaFailure').violations.map((v: any) => v.quotaId)).toEqual(
      detail(f, 'QuotaFailure').violations.map((v: any) => v.quotaId),
    );
    expect(r.json.error.message.split('\n').slice(1, 4)).toEqual(f.error.message.replaceAll('gemini-2.0-flash', 'gemini-2.5-flash').split('\n').slice(1, 4));
  });

  it('one violation per exceeded dimension, paid-tier names, and an optional Retry-After header', async () => {
    const clock = await twoRpm({ quota429: { flavour: 'full-new', retryAfterHeader: true } }, { rpm: 1, tpm: 30 }, 'paid');
    expect((await generate(sim!.url, enumRequest('short'))).status).toBe(200);
    clock.advance(5_000);
    const r = await generate(sim!.url, enumRequest('a longer prompt that needs more input tokens than the small TPM leaves'));
    expect(detail(r.json, 'QuotaFailure').violations.map((v: any) => [v.quotaId, v.quotaMetric])).toEqual([
      ['GenerateRequestsPerMinutePerProjectPerModel', 'generativelanguage.googleapis.com/generate_requests_per_model'],
      ['GenerateContentPaidTierInputTokensPerModelPerMinute', 'generativelanguage.googleapis.com/generate_content_paid_tier_input_token_count'],
    ]);
    expect(r.json.error.message.match(/^\* Quota exceeded/gm)).toHaveLength(2);
    expect(detail(r.json, 'RetryInfo').retryDelay).toBe('55s');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
    expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(56);
  });

  it('keys of one project share its quota: the second key is refused once the first used the minute', async () => {
    const clock = await twoRpm({}, { rpm: 1 });
    expect((await generate(sim!.url, enumRequest('one'), 'key-a')).status).toBe(200);
    clock.advance(1);
    expect((await generate(sim!.url, enumRequest('two'), 'key-b')).status).toBe(429);
    const stats = sim!.stats();
    expect(stats.keys['p1/key-2']).toMatchObject({ requests: 1, rateLimited: 1, project: 'p1' });
    expect(stats.projects.p1!.peak60s).toEqual({ admitted: { requests: 1, inputTokens: expect.any(Number) }, arrived: { requests: 2, inputTokens: expect.any(Number) } });
  });
});

describe('window policies over HTTP', () => {
  it('bucket: a burst smaller than the minute limit refuses the third immediate request for 1 s', async () => {
    const clock = new FakeClock(START);
    sim = await startSimulator(scenario({ projects: [{ id: 'p1', keys: ['key-a'], limits: { 'gemini-2.5-flash': { rpm: 60, window: { policy: 'bucket', burst: 2 } } } }] }), { clock });
    expect((await generate(sim.url, enumRequest('1'))).status).toBe(200);
    expect((await generate(sim.url, enumRequest('2'))).status).toBe(200);
    const r = await generate(sim.url, enumRequest('3'));
    expect(r.status).toBe(429);
    expect(detail(r.json, 'RetryInfo').retryDelay).toBe('1s');
    clock.advance(1_000);
    expect((await generate(sim.url, enumRequest('4'))).status).toBe(200);
  });

  it('fixed: the count starts over at the next clock minute', async () => {
    const clock = new FakeClock(Date.parse('2025-06-01T12:00:50Z'));
    sim = await startSimulator(scenario({ projects: [{ id: 'p1', keys: ['key-a'], limits: { 'gemini-2.5-flash': { rpm: 1, window: 'fixed' } } }] }), { clock });
    expect((await generate(sim.url, enumRequest('1'))).status).toBe(200);
    const r = await generate(sim.url, enumRequest('2'));
    expect(detail(r.json, 'RetryInfo').retryDelay).toBe('10s');
    clock.advance(10_000);
    expect((await generate(sim.url, enumRequest('3'))).status).toBe(200);
  });
});
