/**
 * The price a job is costed at: the provider's list price of the model (ProviderCatalog.model(id).price), with either
 * figure replaced by `--price-input` / `--price-output`; and the cost of a request at that price.
 */
import type { ModelPrice } from '../providers/contract.js';

export type { ModelPrice };

/**
 * @param listed the provider's list price of the model, or undefined when it has none.
 * @returns undefined when neither the list nor the overrides give both figures.
 */
export function priceOf(listed: ModelPrice | undefined, override: { input?: number; output?: number } = {}): ModelPrice | undefined {
  const input = override.input ?? listed?.input;
  const output = override.output ?? listed?.output;
  if (input === undefined || output === undefined) return undefined;
  const overridden = override.input !== undefined || override.output !== undefined;
  if (!overridden && listed) return listed;
  return { input, output, source: listed ? `--price-input/--price-output over ${listed.source}` : '--price-input/--price-output' };
}

/**
 * Cost of one request (or a sum of them), USD.
 * @param inputTokens input tokens; @param outputTokens output tokens plus reasoning tokens (billed as output).
 */
export function requestCost(price: ModelPrice, inputTokens: number, outputTokens: number): number {
  const long = price.longPrompt && inputTokens > price.longPrompt.above ? price.longPrompt : undefined;
  return (inputTokens * (long?.input ?? price.input) + outputTokens * (long?.output ?? price.output)) / 1_000_000;
}
