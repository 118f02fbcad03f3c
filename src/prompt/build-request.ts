/**
 * Builds the generateContent request of a row: the rendered prompt, the system instruction, enum or structured output,
 * and the model's thinking config.
 *
 * Enum output: `responseMimeType: "text/x.enum"` with `responseSchema: {type: "STRING", enum: [...]}`
 * (https://ai.google.dev/gemini-api/docs/structured-output; the exact body the SDK sends is in
 * ../shared/reference/gemini-api-facts.md §4.2).
 */
import { Type } from '@google/genai';
import type { GenerateRequest } from '../gemini/gemini-client.js';
import type { FewShotExample } from './examples.js';
import type { CompiledTemplate } from './template.js';
import { modelProfile } from './model-profile.js';

export interface RequestSettings {
  model: string;
  template: CompiledTemplate;
  /** System instruction text, if any. */
  system: string | undefined;
  /** Allowed labels (enum output), or undefined for free-form answers. */
  labels: readonly string[] | undefined;
  /** JSON schema of a structured answer (--schema), sent as responseJsonSchema. */
  schema: Record<string, unknown> | undefined;
  /** generationConfig.temperature. */
  temperature: number;
  /** generationConfig.maxOutputTokens (tokens), or undefined for the model's default. */
  maxOutputTokens: number | undefined;
  /** --thinking-budget: overrides the model's classification default (tokens; 0 = off, -1 = dynamic). */
  thinkingBudget: number | undefined;
  /** --examples: few-shot turns sent before every row. */
  examples?: readonly FewShotExample[];
}

/** How a retry differs from the first request of a row. */
export interface RequestVariant {
  /** After an answer with no text and finishReason MAX_TOKENS: 4× maxOutputTokens, thinking off where allowed. */
  moreOutput?: boolean;
}

/** Room for an enum answer in maxOutputTokens, tokens: a label needs a few; the thinking budget is added on top. */
export const ENUM_MAX_OUTPUT_TOKENS = 512;

/**
 * The default maxOutputTokens of enum answers: the label's room plus the thinking budget (thinking tokens are spent
 * from maxOutputTokens, ../shared/reference/gemini-api-facts.md §4.6), or no cap when thinking is dynamic (-1) or set
 * by level.
 */
export function enumMaxOutputTokens(thinking: { thinkingBudget?: number; thinkingLevel?: unknown } | undefined): number | undefined {
  if (thinking === undefined) return ENUM_MAX_OUTPUT_TOKENS;
  if (thinking.thinkingBudget === undefined || thinking.thinkingBudget < 0) return undefined;
  return ENUM_MAX_OUTPUT_TOKENS + thinking.thinkingBudget;
}

/** Returns a function building the request of one row from its cells. */
export function requestBuilder(settings: RequestSettings): (cells: readonly string[], variant?: RequestVariant) => GenerateRequest {
  const profile = modelProfile(settings.model);
  const baseConfig: GenerateRequest['config'] = { temperature: settings.temperature };
  if (settings.system !== undefined) baseConfig.systemInstruction = settings.system;
  if (settings.labels) {
    baseConfig.responseMimeType = 'text/x.enum';
    baseConfig.responseSchema = { type: Type.STRING, enum: [...settings.labels] };
  } else if (settings.schema) {
    baseConfig.responseMimeType = 'application/json';
    baseConfig.responseJsonSchema = settings.schema;
  }
  const thinking = settings.thinkingBudget !== undefined ? { thinkingBudget: settings.thinkingBudget } : profile.thinking;
  if (thinking) baseConfig.thinkingConfig = thinking;
  const maxOutput = settings.maxOutputTokens ?? (settings.labels ? enumMaxOutputTokens(thinking) : undefined);
  if (maxOutput !== undefined) baseConfig.maxOutputTokens = maxOutput;

  return (cells, variant) => {
    const config = { ...baseConfig };
    if (variant?.moreOutput) {
      config.maxOutputTokens = Math.max(4 * (maxOutput ?? 2048), 2048);
      if (profile.canDisableThinking) config.thinkingConfig = { thinkingBudget: 0 };
      else if ('thinkingBudget' in (profile.thinking ?? {})) config.thinkingConfig = { thinkingBudget: profile.minThinkingBudget };
    }
    const request: GenerateRequest = { model: settings.model, prompt: settings.template.render(cells), config };
    if (settings.examples && settings.examples.length > 0) request.examples = settings.examples;
    return request;
  };
}
