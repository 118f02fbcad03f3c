/**
 * What gemini-batch knows about a Gemini model id: how to turn its thinking down for classification, the per-project
 * limits to start from when the user gives none, its input limit and its price.
 *
 * Thinking (docs/providers.md "Gemini API"; https://ai.google.dev/gemini-api/docs/thinking, docs/reference/gemini-api-facts.md §4.4):
 * 2.5 Flash and Flash-Lite accept `thinkingBudget: 0`; 2.5 Pro cannot disable thinking (budget 0 → HTTP 400,
 * fixture 400-thinking-budget-zero.json) and accepts 128–32768; Gemini 3 models use `thinkingLevel`, and Gemini 3 Pro
 * cannot disable it.
 *
 * Default limits: the published Tier 1 figures of docs/rate-limits.md (plan/published-limits.ts) where Google published
 * them; for other models a guess from the nearest published family. They are only a start: a 429's quotaValue replaces
 * them, and without one the limiter probes upward (schedule/).
 *
 * Input limit: 1,048,576 tokens per request for every current Gemini model (docs/rate-limits.md "Input limits", fixture
 * 400-context-too-long.json). Output limit: 65,535 tokens for 2.5 and later models, 8,192 for 2.0 and unknown ones
 * (docs/rows-per-request.md "Output limits").
 */
import { publishedLimits } from '../../plan/published-limits.js';
import type { ModelInfo, StartLimits } from '../contract.js';
import { batchQueueOf } from './batch-limits.js';
import { geminiPrice } from './prices.js';

/**
 * A thinking config as generationConfig.thinkingConfig takes it (levels as the SDK's `ThinkingLevel` values; written
 * as strings so that this module loads no SDK code).
 */
export type ThinkingConfig = { thinkingBudget: number } | { thinkingLevel: 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH' };

export interface ModelProfile {
  /** The id as given (`gemini-2.5-flash`, `models/gemini-2.5-pro`…), without the `models/` prefix. */
  id: string;
  /** The thinking config that makes classification cheapest, or undefined for models that do not think. */
  thinking: ThinkingConfig | undefined;
  /** Whether thinking can be switched off entirely (budget 0). */
  canDisableThinking: boolean;
  /** Smallest thinkingBudget the model accepts when it cannot disable thinking. */
  minThinkingBudget: number;
  /** Starting per-project limits: requests/min, input tokens/min, requests/day (undefined = no daily limit known). */
  defaultLimits: StartLimits;
  /** Where `defaultLimits` come from: the published Tier 1 table, or a guess for a model Google published none for. */
  defaultLimitsSource: string;
  /** The most input tokens one request may hold (promptTokenCount), the default of --max-input-tokens. */
  inputTokenLimit: number;
  /** The most output tokens one answer may hold, thinking included (docs/rows-per-request.md "Output limits"). */
  outputTokenLimit: number;
}

/** docs/rate-limits.md "Input limits": every current Gemini model. */
export const GEMINI_INPUT_TOKEN_LIMIT = 1_048_576;

/**
 * docs/rows-per-request.md "Output limits": 65,535 for Gemini 2.5 and 3 models (the Vertex AI model pages' "65,535
 * (default)"; the Gemini API's pages say 65,536), 8,192 for 2.0 models, and for ids not known here.
 */
export function geminiOutputTokenLimit(model: string): number {
  return /^gemini-(2\.5|3)/.test(model.replace(/^models\//, '')) || /^gemini-(flash|flash-lite|pro)-latest$/.test(model) ? 65_535 : 8_192;
}

const profiles = new Map<string, ModelProfile>();

/**
 * Looks a model id up by family; unknown ids get conservative defaults and no thinking config. Remembered per id: every
 * request asks (./gemini-request.ts). Treat the result as read-only.
 */
export function modelProfile(model: string): ModelProfile {
  let profile = profiles.get(model);
  if (profile === undefined) {
    profile = lookUp(model);
    profiles.set(model, profile);
  }
  return profile;
}

function lookUp(model: string): ModelProfile {
  const profile = familyProfile(model);
  const tier1 = publishedLimits(profile.id, '1');
  return tier1.kind === 'published'
    ? { ...profile, defaultLimits: { ...tier1.limits }, defaultLimitsSource: `published Tier 1 limits (${tier1.source})`, inputTokenLimit: GEMINI_INPUT_TOKEN_LIMIT, outputTokenLimit: geminiOutputTokenLimit(profile.id) }
    : { ...profile, defaultLimitsSource: 'guessed limits: Google published none for this model (docs/rate-limits.md)', inputTokenLimit: GEMINI_INPUT_TOKEN_LIMIT, outputTokenLimit: geminiOutputTokenLimit(profile.id) };
}

/** The neutral {@link ModelInfo} of a Gemini model id. */
export function geminiModelInfo(model: string): ModelInfo {
  const p = modelProfile(model);
  return {
    id: p.id,
    inputTokenLimit: p.inputTokenLimit,
    outputTokenLimit: p.outputTokenLimit,
    canTurnOffReasoning: p.canDisableThinking,
    minReasoningBudget: p.minThinkingBudget,
    leastReasoningTokens: p.thinking === undefined ? 0 : 'thinkingBudget' in p.thinking ? p.thinking.thinkingBudget : undefined,
    defaultLimits: { ...p.defaultLimits },
    defaultLimitsSource: p.defaultLimitsSource,
    price: geminiPrice(p.id),
    ...optionalQueue(p.id),
  };
}

function optionalQueue(id: string): Pick<ModelInfo, 'batchQueue'> {
  const queue = batchQueueOf(id);
  return queue ? { batchQueue: queue } : {};
}

function familyProfile(model: string): Omit<ModelProfile, 'defaultLimitsSource' | 'inputTokenLimit' | 'outputTokenLimit'> {
  const id = model.replace(/^models\//, '');
  const base = { id, minThinkingBudget: 0 };
  if (/^gemini-2\.5-flash-lite/.test(id)) {
    return { ...base, thinking: { thinkingBudget: 0 }, canDisableThinking: true, defaultLimits: { rpm: 4000, tpm: 4_000_000, rpd: undefined } };
  }
  if (/^gemini-2\.5-flash/.test(id)) {
    return { ...base, thinking: { thinkingBudget: 0 }, canDisableThinking: true, defaultLimits: { rpm: 1000, tpm: 1_000_000, rpd: 10_000 } };
  }
  if (/^gemini-2\.5-pro/.test(id)) {
    return { ...base, thinking: { thinkingBudget: 128 }, canDisableThinking: false, minThinkingBudget: 128, defaultLimits: { rpm: 150, tpm: 2_000_000, rpd: 10_000 } };
  }
  if (/^gemini-3(\.\d+)?-pro/.test(id)) {
    return { ...base, thinking: { thinkingLevel: 'LOW' }, canDisableThinking: false, defaultLimits: { rpm: 150, tpm: 2_000_000, rpd: 10_000 } };
  }
  if (/^gemini-3(\.\d+)?-flash/.test(id)) {
    return { ...base, thinking: { thinkingLevel: 'MINIMAL' }, canDisableThinking: false, defaultLimits: { rpm: 1000, tpm: 1_000_000, rpd: 10_000 } };
  }
  if (/^gemini-2\.0-flash/.test(id)) {
    return { ...base, thinking: undefined, canDisableThinking: true, defaultLimits: { rpm: 2000, tpm: 4_000_000, rpd: undefined } };
  }
  return { ...base, thinking: undefined, canDisableThinking: true, defaultLimits: { rpm: 60, tpm: 250_000, rpd: undefined } };
}
