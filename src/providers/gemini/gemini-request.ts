/**
 * Maps the neutral {@link ModelRequest} to a generateContent call: contents (few-shot turns, then the prompt), system
 * instruction, enum or structured output, thinking from the model's profile, maxOutputTokens, service tier.
 *
 * Enum output: `responseMimeType: "text/x.enum"` with `responseSchema: {type: "STRING", enum: [...]}`; structured
 * output: `application/json` with `responseJsonSchema` (https://ai.google.dev/gemini-api/docs/structured-output; the
 * exact body the SDK sends: docs/providers.md "Gemini API", docs/reference/gemini-api-facts.md §4.2). Thinking tokens are spent from
 * maxOutputTokens (docs/reference/gemini-api-facts.md §4.6), so an enum answer's default cap is a label's room plus the budget.
 */
import { Type, type Content, type GenerateContentConfig, type ServiceTier, type ThinkingConfig as SdkThinkingConfig } from '@google/genai';
import type { ModelRequest } from '../contract.js';
import { modelProfile, type ThinkingConfig } from './model-profiles.js';

/** Room for an enum answer in maxOutputTokens, tokens: a label needs a few; the thinking budget is added on top. */
export const ENUM_MAX_OUTPUT_TOKENS = 512;

/** One generateContent call's parameters: fresh objects each call, so the caller may add its abort signal and transport. */
export interface GeminiCall {
  model: string;
  contents: string | Content[];
  config: GenerateContentConfig;
}

/**
 * The default maxOutputTokens of enum answers: the label's room plus the thinking budget, or no cap when thinking is
 * dynamic (-1) or set by level.
 */
export function enumMaxOutputTokens(thinking: ThinkingConfig | undefined): number | undefined {
  if (thinking === undefined) return ENUM_MAX_OUTPUT_TOKENS;
  if (!('thinkingBudget' in thinking) || thinking.thinkingBudget < 0) return undefined;
  return ENUM_MAX_OUTPUT_TOKENS + thinking.thinkingBudget;
}

/** The request's `contents`: the prompt alone, or the examples' turns followed by it. */
export function contentsOf(request: Pick<ModelRequest, 'prompt' | 'examples'>): string | Content[] {
  if (!request.examples || request.examples.length === 0) return request.prompt;
  return [
    ...request.examples.flatMap((e): Content[] => [
      { role: 'user', parts: [{ text: e.prompt }] },
      { role: 'model', parts: [{ text: e.answer }] },
    ]),
    { role: 'user', parts: [{ text: request.prompt }] },
  ];
}

/** The generateContent parameters of a neutral request. Pure. */
export function geminiCall(request: ModelRequest): GeminiCall {
  const profile = modelProfile(request.model);
  const config: GeminiCall['config'] = {};
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.system !== undefined) config.systemInstruction = request.system;
  const output = request.output;
  if (output.kind === 'labels') {
    config.responseMimeType = 'text/x.enum';
    config.responseSchema = { type: Type.STRING, enum: [...output.labels] };
  } else if (output.kind === 'json') {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = output.schema;
  }
  let thinking: ThinkingConfig | undefined = request.reasoning === 'least' ? profile.thinking : { thinkingBudget: request.reasoning.budgetTokens };
  const maxOutput = request.maxOutputTokens ?? (output.kind === 'labels' ? enumMaxOutputTokens(thinking) : undefined);
  if (request.moreRoom) {
    config.maxOutputTokens = Math.max(4 * (maxOutput ?? 2048), 2048);
    if (profile.canDisableThinking) thinking = { thinkingBudget: 0 };
    else if (profile.thinking !== undefined && 'thinkingBudget' in profile.thinking) thinking = { thinkingBudget: profile.minThinkingBudget };
  } else if (maxOutput !== undefined) {
    config.maxOutputTokens = maxOutput;
  }
  if (thinking) config.thinkingConfig = thinking as SdkThinkingConfig;
  if (request.serviceTier !== undefined) config.serviceTier = request.serviceTier as ServiceTier;
  return { model: request.model, contents: contentsOf(request), config };
}
