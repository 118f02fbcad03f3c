/**
 * The limits a job starts from when no --rpm/--tpm/--rpd is given: the published figures of the tier `--tier` names,
 * else the model's default (its published Tier 1 figures, or a guess), and a sentence saying which and why. classify
 * starts its limiters there (job/build-pools.ts) and plan estimates with them (plan/estimate-job.ts): one decision.
 */
import type { ProviderCatalog } from '../providers/contract.js';
import { publishedLimits, tierIsBilled, tierName, type Tier, type TierLimits } from './published-limits.js';

export interface StartingLimits {
  limits: TierLimits;
  /** `the free tier's published limits for gemini-2.5-flash (…source…)`. */
  why: string;
  /** The tier was given (--tier): its daily limit is enforced too; without it a default RPD is only shown. */
  fromTier: boolean;
  /** --tier names a tier on which the model has no quota at all (requests would get 429 `limit: 0`). */
  tierHasNoQuota: boolean;
  /** Requests are billed (false on the free tier, docs/rate-limits.md "Tiers"); undefined without --tier. */
  billed: boolean | undefined;
}

/**
 * Where to start for `model` of `catalog`'s provider, on `tier` when given (a Gemini API usage tier: config refuses
 * --tier for other providers).
 */
export function startingLimitsFor(catalog: ProviderCatalog, model: string, tier: Tier | undefined): StartingLimits {
  const profile = catalog.model(model);
  const fallback = { limits: { ...profile.defaultLimits }, tierHasNoQuota: false };
  if (tier === undefined) return { ...fallback, why: `${profile.id}'s ${profile.defaultLimitsSource}`, fromTier: false, billed: undefined };
  const billed = tierIsBilled(tier);
  const published = publishedLimits(model, tier);
  switch (published.kind) {
    case 'published':
      return { limits: { ...published.limits }, why: `${tierName(tier)}'s published limits for ${profile.id} (${published.source})`, fromTier: true, tierHasNoQuota: false, billed };
    case 'unavailable':
      return {
        ...fallback,
        tierHasNoQuota: true,
        why: `${tierName(tier)} has no quota for ${profile.id} (${published.source}): its requests get 429 "limit: 0"`,
        fromTier: false,
        billed,
      };
    case 'unpublished':
      return { ...fallback, why: `no published ${tierName(tier)} limits for ${profile.id}; starting from its ${profile.defaultLimitsSource}`, fromTier: false, billed };
  }
}
