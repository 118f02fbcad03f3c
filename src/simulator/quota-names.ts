/**
 * quotaMetric and quotaId names per tier and dimension, as seen in real 429 bodies
 * (docs/reference/gemini-api-facts.md §1.4: Roo-Code#3883, voideditor/void#557, python-genai#2044, Aider-AI/aider#3694,
 * GoogleCloudPlatform/kubectl-ai#332, gemini-cli googleErrors.test.ts).
 * The TPD names were never seen in a real body; they are [INFERRED] by analogy.
 */
import type { Tier } from './types.js';

/** A quota dimension: requests/minute, input tokens/minute, requests/day, input tokens/day. */
export type QuotaDimension = 'rpm' | 'tpm' | 'rpd' | 'tpd';

/** Order of violations in a 429 (fixture 429-f: per day, per minute, input tokens). */
export const DIMENSION_ORDER: readonly QuotaDimension[] = ['rpd', 'rpm', 'tpm', 'tpd'];

const PREFIX = 'generativelanguage.googleapis.com/';

const NAMES: Record<Tier, Record<QuotaDimension, { quotaMetric: string; quotaId: string }>> = {
  free: {
    rpm: { quotaMetric: `${PREFIX}generate_content_free_tier_requests`, quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' },
    rpd: { quotaMetric: `${PREFIX}generate_content_free_tier_requests`, quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' },
    tpm: { quotaMetric: `${PREFIX}generate_content_free_tier_input_token_count`, quotaId: 'GenerateContentInputTokensPerModelPerMinute-FreeTier' },
    tpd: { quotaMetric: `${PREFIX}generate_content_free_tier_input_token_count`, quotaId: 'GenerateContentInputTokensPerModelPerDay-FreeTier' },
  },
  paid: {
    rpm: { quotaMetric: `${PREFIX}generate_requests_per_model`, quotaId: 'GenerateRequestsPerMinutePerProjectPerModel' },
    rpd: { quotaMetric: `${PREFIX}generate_requests_per_model_per_day`, quotaId: 'GenerateRequestsPerDayPerProjectPerModel' },
    tpm: { quotaMetric: `${PREFIX}generate_content_paid_tier_input_token_count`, quotaId: 'GenerateContentPaidTierInputTokensPerModelPerMinute' },
    tpd: { quotaMetric: `${PREFIX}generate_content_paid_tier_input_token_count`, quotaId: 'GenerateContentPaidTierInputTokensPerModelPerDay' },
  },
};

/** The quotaMetric and quotaId of `dimension` on `tier`. */
export function quotaNames(tier: Tier, dimension: QuotaDimension): { quotaMetric: string; quotaId: string } {
  return NAMES[tier][dimension];
}

/** True for the per-day dimensions (whose 429 only clears at Pacific midnight). */
export function isDaily(dimension: QuotaDimension): boolean {
  return dimension === 'rpd' || dimension === 'tpd';
}
