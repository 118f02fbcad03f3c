/**
 * A generateContent call as the REST body the Gemini API reads (`GenerateContentRequest` in REST field names): what a
 * Batch API input line holds under `request`. The Batch API rejects the SDK's flattened config (a top-level
 * `thinking_config`…): the request must nest `generationConfig` as the REST API does (docs/batch-runner.md "Input lines").
 *
 * The shape is the one @google/genai 2.32 sends for `models.generateContent` (its `generateContentParametersToMldev`):
 * `contents` as Content objects (a string becomes one user turn), `serviceTier` and `systemInstruction` (a user-role
 * Content) at the root, everything else under `generationConfig`. test/providers/gemini/rest-request.test.ts compares
 * this body with the SDK's own wire body for every kind of request the job builds.
 */
import type { Content } from '@google/genai';
import type { GeminiCall } from './gemini-request.js';

/** The config fields {@link geminiCall} sets that belong in `generationConfig`. */
const GENERATION_FIELDS = ['temperature', 'maxOutputTokens', 'responseMimeType', 'responseSchema', 'responseJsonSchema', 'thinkingConfig'] as const;
/** The config fields that go to the request's root. */
const ROOT_FIELDS = ['serviceTier', 'systemInstruction'] as const;

/** A REST `Content`: parts, then role (the SDK's key order). */
function restContent(content: Content): Record<string, unknown> {
  return { parts: (content.parts ?? []).map((p) => ({ ...p })), ...(content.role !== undefined ? { role: content.role } : {}) };
}

/**
 * The REST body of `call` (without the model, which a batch names once for every line).
 * @throws RangeError when the call's config holds a field this mapping does not know (a new field in gemini-request.ts
 *   must be mapped here, never silently dropped).
 */
export function restRequest(call: GeminiCall): Record<string, unknown> {
  const config = call.config as Record<string, unknown>;
  for (const field of Object.keys(config)) {
    if (config[field] === undefined || field === 'abortSignal' || field === 'httpOptions') continue;
    if (!(GENERATION_FIELDS as readonly string[]).includes(field) && !(ROOT_FIELDS as readonly string[]).includes(field)) {
      throw new RangeError(`restRequest: the generateContent config field ${field} has no REST mapping`);
    }
  }
  const contents = typeof call.contents === 'string' ? [{ parts: [{ text: call.contents }], role: 'user' }] : call.contents.map(restContent);
  const body: Record<string, unknown> = { contents };
  if (config.serviceTier !== undefined) body.serviceTier = config.serviceTier;
  if (typeof config.systemInstruction === 'string') body.systemInstruction = { parts: [{ text: config.systemInstruction }], role: 'user' };
  const generationConfig: Record<string, unknown> = {};
  for (const field of GENERATION_FIELDS) if (config[field] !== undefined) generationConfig[field] = config[field];
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}
