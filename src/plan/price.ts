/**
 * The price a job is costed at: the provider's list price of the model (ProviderCatalog.model(id).price), with either
 * figure replaced by `--price-input` / `--price-output`; the price of each billing tier (standard, flex, priority,
 * batch: the standard price times the provider's factor, ModelPrice.tiers); and the cost of a request at a price.
 */
import type { BillingTier, ModelAnswer, ModelPrice, ModelRequest } from '../providers/contract.js';

export type { BillingTier, ModelPrice };

/** Every billing tier, the default first. */
export const BILLING_TIERS: readonly BillingTier[] = ['standard', 'flex', 'priority', 'batch'];

/**
 * @param listed the provider's list price of the model, or undefined when it has none.
 * @returns undefined when neither the list nor the overrides give both figures. The overrides are standard-tier
 *   prices: the listed tiers' factors apply to them.
 */
export function priceOf(listed: ModelPrice | undefined, override: { input?: number; output?: number } = {}): ModelPrice | undefined {
  const input = override.input ?? listed?.input;
  const output = override.output ?? listed?.output;
  if (input === undefined || output === undefined) return undefined;
  const overridden = override.input !== undefined || override.output !== undefined;
  if (!overridden && listed) return listed;
  return {
    input,
    output,
    source: listed ? `--price-input/--price-output over ${listed.source}` : '--price-input/--price-output',
    ...(listed?.tiers ? { tiers: listed.tiers } : {}),
  };
}

/**
 * The price of `tier`: the standard figures times the tier's factor (the top of a published range); undefined when the
 * provider offers no such tier for the model.
 */
export function priceAt(price: ModelPrice, tier: BillingTier): ModelPrice | undefined {
  if (tier === 'standard') return price;
  const t = price.tiers?.[tier];
  if (!t) return undefined;
  const f = t.factor;
  return {
    input: price.input * f,
    output: price.output * f,
    ...(price.longPrompt ? { longPrompt: { above: price.longPrompt.above, input: price.longPrompt.input * f, output: price.longPrompt.output * f } } : {}),
    source: `${price.source}; ${t.source}`,
  };
}

/**
 * Cost of one request (or a sum of them), USD.
 * @param inputTokens input tokens; @param outputTokens output tokens plus reasoning tokens (billed as output).
 */
export function requestCost(price: ModelPrice, inputTokens: number, outputTokens: number): number {
  const long = price.longPrompt && inputTokens > price.longPrompt.above ? price.longPrompt : undefined;
  return (inputTokens * (long?.input ?? price.input) + outputTokens * (long?.output ?? price.output)) / 1_000_000;
}

/**
 * Cost of tokens billed at `tier`, USD. A tier the price does not list is costed at the standard price (a server
 * that names a tier we do not know).
 */
export function tierCost(price: ModelPrice, tier: BillingTier, inputTokens: number, outputTokens: number): number {
  return requestCost(priceAt(price, tier) ?? price, inputTokens, outputTokens);
}

/**
 * The tier a row's tokens are billed at when its answers were served at `a` and `b`: the dearer one (a row answered
 * once at priority and once downgraded to standard counts at priority), so that a cost is never understated.
 */
export function dearerTier(price: ModelPrice | undefined, a: BillingTier | undefined, b: BillingTier): BillingTier {
  if (a === undefined || a === b) return b;
  const factor = (t: BillingTier) => (t === 'standard' ? 1 : (price?.tiers?.[t]?.factor ?? 1));
  return factor(b) > factor(a) ? b : a;
}

/**
 * The billing tier a provider's served-tier value names (`x-gemini-service-tier: flex`, Vertex's trafficType mapped by
 * its adapter), or undefined for a value that is none of ours.
 */
export function billingTierOf(served: string | undefined): BillingTier | undefined {
  const v = served?.trim().toLowerCase();
  return (BILLING_TIERS as readonly string[]).includes(v ?? '') ? (v as BillingTier) : undefined;
}

/**
 * The billing tier an answer's tokens are counted at: the tier that served it (ModelAnswer.served.serviceTier: the
 * `x-gemini-service-tier` header, Vertex's trafficType), else the tier the request asked for, else standard
 * (docs/service-tiers.md "The tier that served an answer").
 */
export function billedTier(request: Pick<ModelRequest, 'serviceTier'>, answer: Pick<ModelAnswer, 'served'>): BillingTier {
  return billingTierOf(answer.served?.serviceTier) ?? request.serviceTier ?? 'standard';
}
