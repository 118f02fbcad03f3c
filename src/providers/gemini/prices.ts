/**
 * List prices of the Gemini API (Standard tier, paid, text), USD per 1,000,000 tokens, for `plan` and the cost shown
 * while a job runs; the Flex, Priority and Batch tiers are priced from them ({@link TIER_FACTORS}). Thinking tokens are billed as output ("response pricing is the sum of output tokens and thinking
 * tokens", https://ai.google.dev/gemini-api/docs/thinking). Prices change: `--price-input` / `--price-output` override
 * them, and a model not listed has no cost shown.
 *
 * Source: docs/providers.md "Prices" — https://ai.google.dev/gemini-api/docs/pricing, as transcribed on 2026-01-08
 * (deploybase.ai, "Pricing (March 2026)") and in 2026 by nicolalazzari.ai ("Gemini API Pricing Explained"); the two
 * agree on every 2.5 row below. 2.0 rows: the same pricing page's 2.0 Flash / Flash-Lite entries as commonly
 * transcribed.
 */
import type { ModelPrice, TierFactor } from '../contract.js';

export const PRICE_TABLE = {
  source: 'https://ai.google.dev/gemini-api/docs/pricing (Standard tier, paid, text)',
  date: '2026-03',
  /** Longest prefix wins: `gemini-2.5-flash-lite` before `gemini-2.5-flash`. */
  models: [
    { prefix: 'gemini-2.5-flash-lite', input: 0.1, output: 0.4 },
    { prefix: 'gemini-2.5-flash', input: 0.3, output: 2.5 },
    /** Prompts over 200,000 tokens cost $2.50 in / $15 out. */
    { prefix: 'gemini-2.5-pro', input: 1.25, output: 10, longPrompt: { above: 200_000, input: 2.5, output: 15 } },
    { prefix: 'gemini-2.0-flash-lite', input: 0.075, output: 0.3 },
    { prefix: 'gemini-2.0-flash', input: 0.1, output: 0.4 },
  ],
} as const;

/**
 * The other service tiers, priced from the standard figures (docs/service-tiers.md "Prices", from
 * https://ai.google.dev/gemini-api/docs/optimization's comparison of tiers): Flex and Batch cost 50 % of standard,
 * Priority 75–100 % more — counted at the top of that range, so that a cost or a --max-cost cap is never understated.
 */
export const TIER_FACTORS: NonNullable<ModelPrice['tiers']> = {
  flex: { factor: 0.5, source: 'Flex: 50 % of the standard price (https://ai.google.dev/gemini-api/docs/flex-inference)' },
  batch: { factor: 0.5, source: 'Batch API: 50 % of the standard price (https://ai.google.dev/gemini-api/docs/batch-api)' },
  priority: { factor: 2, low: 1.75, source: 'Priority: 75–100 % above the standard price (https://ai.google.dev/gemini-api/docs/optimization)' },
} satisfies Record<string, TierFactor>;

/** The table's price of a model id (`models/` prefix ignored), or undefined when it is not listed. */
export function geminiPrice(model: string): ModelPrice | undefined {
  const id = model.replace(/^models\//, '');
  const row = [...PRICE_TABLE.models].sort((a, b) => b.prefix.length - a.prefix.length).find((m) => id.startsWith(m.prefix));
  if (!row) return undefined;
  return {
    input: row.input,
    output: row.output,
    ...('longPrompt' in row ? { longPrompt: row.longPrompt } : {}),
    source: `${PRICE_TABLE.source}, ${PRICE_TABLE.date}`,
    tiers: TIER_FACTORS,
  };
}
