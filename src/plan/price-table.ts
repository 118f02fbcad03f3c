/**
 * List prices of the Gemini API (Standard tier, paid, text), USD per 1,000,000 tokens, for `plan` and the cost shown
 * while a job runs. Thinking tokens are billed as output ("response pricing is the sum of output tokens and thinking
 * tokens", https://ai.google.dev/gemini-api/docs/thinking). Prices change: `--price-input` / `--price-output` override
 * them, and a model not listed has no cost shown.
 *
 * Source: https://ai.google.dev/gemini-api/docs/pricing, as transcribed on 2026-01-08 (deploybase.ai, "Pricing (March
 * 2026)") and in 2026 by nicolalazzari.ai ("Gemini API Pricing Explained"); the two agree on every 2.5 row below.
 * 2.0 rows: the same pricing page's 2.0 Flash / Flash-Lite entries as commonly transcribed.
 */
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

/** USD per 1,000,000 tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  longPrompt?: { above: number; input: number; output: number };
  /** Where the figures come from: the table, or the command line. */
  source: string;
}

/**
 * The price of a model: the table's, with either figure replaced by `--price-input` / `--price-output`.
 * @returns undefined when the model is not in the table and no override gives both figures.
 */
export function priceOf(model: string, override: { input?: number; output?: number } = {}): ModelPrice | undefined {
  const id = model.replace(/^models\//, '');
  const row = [...PRICE_TABLE.models].sort((a, b) => b.prefix.length - a.prefix.length).find((m) => id.startsWith(m.prefix));
  const input = override.input ?? row?.input;
  const output = override.output ?? row?.output;
  if (input === undefined || output === undefined) return undefined;
  const overridden = override.input !== undefined || override.output !== undefined;
  return {
    input,
    output,
    ...(row && 'longPrompt' in row && !overridden ? { longPrompt: row.longPrompt } : {}),
    source: overridden ? (row ? `--price-input/--price-output over ${PRICE_TABLE.source}, ${PRICE_TABLE.date}` : '--price-input/--price-output') : `${PRICE_TABLE.source}, ${PRICE_TABLE.date}`,
  };
}

/**
 * Cost of one request, USD.
 * @param inputTokens promptTokenCount; @param outputTokens candidatesTokenCount + thoughtsTokenCount.
 */
export function requestCost(price: ModelPrice, inputTokens: number, outputTokens: number): number {
  const long = price.longPrompt && inputTokens > price.longPrompt.above ? price.longPrompt : undefined;
  return (inputTokens * (long?.input ?? price.input) + outputTokens * (long?.output ?? price.output)) / 1_000_000;
}
