/**
 * What a planned job costs at each billing tier its price lists (standard; Flex, Batch and Priority where the provider
 * offers them: ModelPrice.tiers, docs/service-tiers.md), and how many of its rows fit under a budget (--max-cost).
 * Requests are costed one by one (a row, or a pack of rows with --rows-per-request) — each request's own input tokens decide a long-prompt price (2.5 Pro above 200k) — and a
 * budget is spent in input order, as classify sends them.
 */
import { priceAt, requestCost, type BillingTier, type ModelPrice } from './price.js';

/** The cost of a job at one tier, USD; Priority's published range gives `lowUsd` (the `factor` is its top). */
export interface TierCost {
  tier: BillingTier;
  usd: number;
  lowUsd?: number;
}

/** Rows that fit under a budget at one tier; Priority's range gives `lowRows` (at its low end: more rows). */
export interface TierRows {
  tier: BillingTier;
  rows: number;
  lowRows?: number;
}

/** The price of `tier` at each end of its published range: `[top]`, or `[top, low end]` for a range. */
function pricesOf(price: ModelPrice, tier: BillingTier): ModelPrice[] {
  const top = priceAt(price, tier);
  if (!top) return [];
  const range = tier === 'standard' ? undefined : price.tiers?.[tier];
  if (range?.low === undefined) return [top];
  const scale = range.low / range.factor;
  return [top, { ...top, input: top.input * scale, output: top.output * scale, ...(top.longPrompt ? { longPrompt: { ...top.longPrompt, input: top.longPrompt.input * scale, output: top.longPrompt.output * scale } } : {}) }];
}

/** The tiers `price` lists, in the order plan shows them: standard, flex, batch, priority. */
export function listedTiers(price: ModelPrice): BillingTier[] {
  return (['standard', 'flex', 'batch', 'priority'] as const).filter((t) => priceAt(price, t) !== undefined);
}

/**
 * The job's cost at every tier `price` lists, USD.
 * @param inputs each request's input tokens; @param outputPerRow each request's output and thinking tokens (one figure
 * for every request, or one per request).
 */
export function tierCosts(price: ModelPrice, inputs: ArrayLike<number>, outputPerRow: Outputs): TierCost[] {
  return listedTiers(price).map((tier) => {
    const [top, low] = pricesOf(price, tier);
    const usd = sum(top!, inputs, outputPerRow);
    return low ? { tier, usd, lowUsd: sum(low, inputs, outputPerRow) } : { tier, usd };
  });
}

/**
 * How many requests, from the first, fit under `budgetUsd` at every tier `price` lists (with one row a request: rows).
 */
export function rowsUnderBudget(price: ModelPrice, inputs: ArrayLike<number>, outputPerRow: Outputs, budgetUsd: number): TierRows[] {
  return listedTiers(price).map((tier) => {
    const [top, low] = pricesOf(price, tier);
    const rows = prefixUnder(top!, inputs, outputPerRow, budgetUsd);
    return low ? { tier, rows, lowRows: prefixUnder(low, inputs, outputPerRow, budgetUsd) } : { tier, rows };
  });
}

/** Output and thinking tokens of each request: one figure for all, or one per request. */
export type Outputs = number | ArrayLike<number>;

function outputAt(outputs: Outputs, i: number): number {
  return typeof outputs === 'number' ? outputs : (outputs[i] as number);
}

function sum(price: ModelPrice, inputs: ArrayLike<number>, outputPerRow: Outputs): number {
  let usd = 0;
  for (let i = 0; i < inputs.length; i++) usd += requestCost(price, inputs[i] as number, outputAt(outputPerRow, i));
  return usd;
}

function prefixUnder(price: ModelPrice, inputs: ArrayLike<number>, outputPerRow: Outputs, budgetUsd: number): number {
  let usd = 0;
  for (let i = 0; i < inputs.length; i++) {
    usd += requestCost(price, inputs[i] as number, outputAt(outputPerRow, i));
    if (usd > budgetUsd) return i;
  }
  return inputs.length;
}
