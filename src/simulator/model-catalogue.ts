/**
 * The models the simulator knows without being told, and how a model's thinking behaviour is guessed from
 * its id. Thinking defaults per https://ai.google.dev/gemini-api/docs/thinking (docs/reference/gemini-api-facts.md §4.4):
 * 2.5 Pro always thinks (budget 0 is a 400), 2.5 Flash thinks unless budget 0, 2.5 Flash-Lite does not think
 * by default, Gemini 3 Pro cannot disable thinking. Context window 1,048,576 tokens
 * (fixture 400-context-too-long.json). Thought-token ranges follow the cookbook's batch example
 * (829 and 1180 thinking tokens for one-line prompts, §4.4).
 */
import type { ModelSpec, ThinkingMode } from './types.js';

/** Default context window, tokens. */
export const DEFAULT_CONTEXT_WINDOW = 1_048_576;

/** Guesses the thinking mode of a model id. */
export function thinkingModeFor(model: string): ThinkingMode {
  if (/flash-lite|gemini-2\.0|gemini-1\.|gemma/.test(model)) return 'off';
  if (/gemini-2\.5-pro|gemini-3(\.\d+)?-pro/.test(model)) return 'always';
  if (/gemini-2\.5-flash|gemini-3/.test(model)) return 'dynamic';
  return 'off';
}

/** The spec of `model` with every default filled in; `overrides` come from the scenario's `models`. */
export function modelSpec(model: string, overrides: Partial<ModelSpec> = {}): ModelSpec {
  const thinking = overrides.thinking ?? thinkingModeFor(model);
  const pro = thinking === 'always';
  return {
    contextWindow: overrides.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    thinking,
    thoughtTokens: overrides.thoughtTokens ?? (pro ? { min: 300, max: 1500 } : { min: 200, max: 1200 }),
    modelVersion: overrides.modelVersion ?? model,
    quotaModel: overrides.quotaModel ?? model,
  };
}

/** Model ids known to every scenario. */
export const BUILT_IN_MODELS: readonly string[] = [
  'gemini-2.5-pro',
  'gemini-2.5-flash',
  'gemini-2.5-flash-lite',
  'gemini-2.5-flash-preview-09-2025',
  'gemini-2.5-flash-lite-preview-09-2025',
  'gemini-2.0-flash',
  'gemini-2.0-flash-001',
  'gemini-2.0-flash-lite',
  'gemini-2.0-flash-lite-001',
  'gemini-flash-latest',
  'gemini-flash-lite-latest',
  'gemini-3-pro-preview',
  'gemini-3-flash-preview',
  'gemini-3.1-pro-preview',
];

/** The built-in catalogue: every {@link BUILT_IN_MODELS} id with default specs. */
export function builtInCatalogue(): Record<string, ModelSpec> {
  const out: Record<string, ModelSpec> = {};
  for (const m of BUILT_IN_MODELS) out[m] = modelSpec(m);
  return out;
}
