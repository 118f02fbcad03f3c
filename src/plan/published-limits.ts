/**
 * Google's published per-model rate limits by usage tier (RPM, input TPM, RPD per quota project), for `--tier` and for
 * the default start (Tier 1). Figures, sources and dates: docs/rate-limits.md. They are only a start: a 429's
 * quotaValue replaces them (schedule/rate-limit-policy.ts), and Google itself no longer prints them.
 */

/** `--tier`: the usage tier of the quota project. */
export type Tier = 'free' | '1' | '2' | '3';
/** Every value --tier takes, in order. */
export const TIERS: readonly Tier[] = ['free', '1', '2', '3'];

/** Per-project limits: requests/min, input tokens/min, requests/day (undefined: no daily limit). */
export interface TierLimits {
  rpm: number;
  tpm: number;
  rpd: number | undefined;
}

/** The table: `null` is "not available on this tier" (429 `limit: 0`); a missing tier is "not published". */
interface PublishedRow {
  /** Longest prefix wins: `gemini-2.5-flash-lite` before `gemini-2.5-flash`. */
  prefix: string;
  tiers: Partial<Record<Tier, TierLimits | null>>;
  /** Where the row comes from. */
  source: string;
}

const NOV_2025 = 'docs/rate-limits.md: ai.google.dev/gemini-api/docs/rate-limits, Nov 2025 copy';
const MID_2025 = 'docs/rate-limits.md: the mid-2025 table as mirrored by third parties';

/** docs/rate-limits.md "Per-model limits". */
export const PUBLISHED_LIMITS: readonly PublishedRow[] = [
  {
    prefix: 'gemini-2.5-pro',
    source: NOV_2025,
    tiers: {
      free: { rpm: 2, tpm: 125_000, rpd: 50 },
      '1': { rpm: 150, tpm: 2_000_000, rpd: 10_000 },
      '2': { rpm: 1_000, tpm: 5_000_000, rpd: 50_000 },
      '3': { rpm: 2_000, tpm: 8_000_000, rpd: undefined },
    },
  },
  {
    prefix: 'gemini-2.5-flash-lite',
    source: NOV_2025,
    tiers: {
      free: { rpm: 15, tpm: 250_000, rpd: 1_000 },
      '1': { rpm: 4_000, tpm: 4_000_000, rpd: undefined },
      '2': { rpm: 10_000, tpm: 10_000_000, rpd: undefined },
      '3': { rpm: 30_000, tpm: 30_000_000, rpd: undefined },
    },
  },
  {
    prefix: 'gemini-2.5-flash',
    source: NOV_2025,
    tiers: {
      free: { rpm: 10, tpm: 250_000, rpd: 250 },
      '1': { rpm: 1_000, tpm: 1_000_000, rpd: 10_000 },
      '2': { rpm: 2_000, tpm: 3_000_000, rpd: 100_000 },
      '3': { rpm: 10_000, tpm: 8_000_000, rpd: undefined },
    },
  },
  {
    prefix: 'gemini-3-pro-preview',
    source: NOV_2025,
    tiers: { free: null, '1': { rpm: 50, tpm: 1_000_000, rpd: 1_000 } },
  },
  {
    prefix: 'gemini-2.0-flash',
    source: MID_2025,
    tiers: { free: { rpm: 15, tpm: 1_000_000, rpd: 200 }, '1': { rpm: 2_000, tpm: 4_000_000, rpd: undefined } },
  },
];

/** What the table says of a model on a tier. */
export type PublishedLimits =
  | { kind: 'published'; limits: TierLimits; source: string }
  | { kind: 'unavailable'; source: string }
  | { kind: 'unpublished' };

/**
 * The published limits of `model` on `tier`.
 * @returns `unavailable` when the tier has no quota for the model (requests would get 429 `limit: 0`); `unpublished`
 *   when the table has no figure (unknown model, or a tier the source does not list).
 */
export function publishedLimits(model: string, tier: Tier): PublishedLimits {
  const id = model.replace(/^models\//, '');
  const row = [...PUBLISHED_LIMITS].sort((a, b) => b.prefix.length - a.prefix.length).find((r) => id.startsWith(r.prefix));
  const entry = row?.tiers[tier];
  if (!row || entry === undefined) return { kind: 'unpublished' };
  if (entry === null) return { kind: 'unavailable', source: row.source };
  return { kind: 'published', limits: entry, source: row.source };
}

/** `the free tier`, `Tier 1`. */
export function tierName(tier: Tier): string {
  return tier === 'free' ? 'the free tier' : `Tier ${tier}`;
}

/**
 * Whether requests on `tier` are billed: the free tier has no billing account to charge (docs/rate-limits.md "Tiers");
 * Tiers 1–3 are billed at list price.
 */
export function tierIsBilled(tier: Tier): boolean {
  return tier !== 'free';
}
