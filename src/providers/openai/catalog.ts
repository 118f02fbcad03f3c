/**
 * What the OpenAI adapter knows without connecting. An OpenAI-compatible server may be OpenAI, Gemini's compatibility
 * endpoint, a gateway or a local vLLM/Ollama (docs/reference/batch-openai-vertex-facts.md §b.3), so little is known of a model id:
 * - limits: a modest start ({@link OPENAI_START_LIMITS}) that the server's x-ratelimit-limit-* headers replace on the
 *   first answer (servers without them: raised while no 429 comes, slowed by each one);
 * - reasoning: `reasoning_effort: "none"` is tried and stepped up where refused (param-ladder.ts), so the least
 *   reasoning is assumed to be none;
 * - the context window: Gemini's 1,048,576 tokens for `gemini-*` ids, else 128,000 (OpenAI's GPT-4o class), only the
 *   default of --max-input-tokens: a longer prompt is the server's 400 for that row; the output limit: 65,535 for
 *   `gemini-*` ids (2.5 and later), else 16,384 (GPT-4o's; docs/rows-per-request.md), only how many rows a pack may hold;
 * - prices: none (give --price-input / --price-output);
 * - daily quotas: days in UTC (OpenAI publishes no zone; Gemini's compatibility endpoint resets at Pacific midnight —
 *   a per-day 429 there is rare and names no quotaId, so the difference only moves a daily stop's end).
 */
import type { ModelInfo, ProviderCatalog, StartLimits } from '../contract.js';
import { UTC_DAY } from '../zoned-quota-day.js';

/** Limits to start from on an unknown server: requests/min and tokens/min (prompt + max_tokens, as OpenAI counts). */
export const OPENAI_START_LIMITS: StartLimits = { rpm: 60, tpm: 250_000, rpd: undefined };

function modelInfo(id: string): ModelInfo {
  return {
    id,
    inputTokenLimit: /^gemini-/i.test(id) ? 1_048_576 : 128_000,
    outputTokenLimit: /^gemini-/i.test(id) ? 65_535 : 16_384,
    canTurnOffReasoning: true,
    minReasoningBudget: 0,
    leastReasoningTokens: 0,
    defaultLimits: { ...OPENAI_START_LIMITS },
    defaultLimitsSource: "starting rate, a guess: the server's x-ratelimit-limit-* headers replace it on the first answer",
    price: undefined,
  };
}

/** What is known of models behind an OpenAI-compatible endpoint. */
export const openAiCatalog: ProviderCatalog = {
  name: 'openai',
  quotaDay: UTC_DAY,
  usageTiers: false,
  countsTokens: false,
  serviceTiers: false,
  reasoningOff: 'reasoning_effort "none", or a model without reasoning',
  model: modelInfo,
};
