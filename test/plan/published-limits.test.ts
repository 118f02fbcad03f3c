/** The published limits table and the start it gives (docs/rate-limits.md): lookups, tiers, and what classify enforces. */
import { describe, expect, it } from 'vitest';
import type { ClassifyConfig } from '../../src/config/classify-config.js';
import { startingLimits } from '../../src/job/build-pools.js';
import { publishedLimits, tierIsBilled } from '../../src/plan/published-limits.js';
import { startingLimitsFor } from '../../src/plan/starting-limits.js';
import { geminiCatalog, vertexCatalog } from '../../src/providers/gemini/catalog.js';
import { modelProfile } from '../../src/providers/gemini/model-profiles.js';

describe('publishedLimits', () => {
  it('finds the longest matching model prefix and the tier asked for', () => {
    expect(publishedLimits('gemini-2.5-flash', 'free')).toMatchObject({ kind: 'published', limits: { rpm: 10, tpm: 250_000, rpd: 250 } });
    expect(publishedLimits('models/gemini-2.5-flash-lite', 'free')).toMatchObject({ kind: 'published', limits: { rpm: 15, rpd: 1_000 } });
    expect(publishedLimits('gemini-2.5-flash-preview-09-2025', '2')).toMatchObject({ kind: 'published', limits: { rpm: 2_000, tpm: 3_000_000, rpd: 100_000 } });
    expect(publishedLimits('gemini-2.5-pro', '3')).toMatchObject({ kind: 'published', limits: { rpm: 2_000, rpd: undefined } });
  });

  it('tells a tier without quota from a figure nobody published', () => {
    expect(publishedLimits('gemini-3-pro-preview', 'free').kind).toBe('unavailable');
    expect(publishedLimits('gemini-3-pro-preview', '2').kind).toBe('unpublished');
    expect(publishedLimits('gemini-3.8-flash', '1').kind).toBe('unpublished');
  });

  it('the free tier is not billed; the paid tiers are', () => {
    expect(tierIsBilled('free')).toBe(false);
    expect(['1', '2', '3'].every((t) => tierIsBilled(t as '1'))).toBe(true);
  });
});

describe('the start of a job', () => {
  it("without --tier: the model's published Tier 1 figures, else a guess that says so", () => {
    expect(modelProfile('gemini-2.5-flash').defaultLimits).toEqual({ rpm: 1_000, tpm: 1_000_000, rpd: 10_000 });
    expect(modelProfile('gemini-3-pro-preview').defaultLimits).toEqual({ rpm: 50, tpm: 1_000_000, rpd: 1_000 });
    expect(startingLimitsFor(geminiCatalog, 'gemini-3.8-flash', undefined).why).toContain('Google published none');
    expect(modelProfile('gemini-2.5-flash').inputTokenLimit).toBe(1_048_576);
  });

  it('on Vertex AI (Dynamic Shared Quota) the start is a rate only: no daily limit, and it says so', () => {
    const vertex = startingLimitsFor(vertexCatalog, 'gemini-2.5-flash', undefined);
    expect(vertex.limits).toEqual({ rpm: 1_000, tpm: 1_000_000, rpd: undefined });
    expect(vertex.why).toContain('Dynamic Shared Quota');
  });

  it('--tier names the published figures, says when the tier has no quota, and whether it is billed', () => {
    const free = startingLimitsFor(geminiCatalog, 'gemini-2.5-flash', 'free');
    expect(free).toMatchObject({ limits: { rpm: 10, tpm: 250_000, rpd: 250 }, fromTier: true, billed: false, tierHasNoQuota: false });
    expect(free.why).toContain("the free tier's published limits for gemini-2.5-flash");
    expect(startingLimitsFor(geminiCatalog, 'gemini-3-pro-preview', 'free')).toMatchObject({ tierHasNoQuota: true, billed: false });
    expect(startingLimitsFor(geminiCatalog, 'gemini-2.5-flash', '2')).toMatchObject({ billed: true, limits: { rpm: 2_000 } });
  });

  it("classify enforces a tier's RPD only when --tier is given and the endpoint's limits are unknown", () => {
    const config = (extra: Partial<ClassifyConfig>) => ({ model: 'gemini-2.5-flash', rpm: undefined, tpm: undefined, rpd: undefined, tier: undefined, ...extra }) as ClassifyConfig;
    const withTier = startingLimits(config({ tier: 'free' }), undefined, startingLimitsFor(geminiCatalog, 'gemini-2.5-flash', 'free'));
    expect(withTier).toEqual({ rpm: { value: 10, source: 'default' }, tpm: { value: 250_000, source: 'default' }, rpd: { value: 250, source: 'default' } });
    expect(startingLimits(config({}), undefined, startingLimitsFor(geminiCatalog, 'gemini-2.5-flash', undefined)).rpd).toBeUndefined();
    expect(startingLimits(config({ tier: 'free' }), { rpm: 100_000, tpm: 100_000_000 }, startingLimitsFor(geminiCatalog, 'gemini-2.5-flash', 'free')).rpd).toBeUndefined();
    expect(startingLimits(config({ tier: 'free', rpd: 40 }), undefined, startingLimitsFor(geminiCatalog, 'gemini-2.5-flash', 'free')).rpd).toEqual({ value: 40, source: 'given' });
  });
});
