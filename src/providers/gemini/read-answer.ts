/**
 * Reads a generateContent response into the neutral {@link ModelAnswer}: the non-thought text parts of candidate 0
 * (what `response.text` returns, without the SDK's console warnings), the finish reason (neutral, and Gemini's own for
 * the journal), promptFeedback.blockReason, usageMetadata, modelVersion. Known keys are replaced by their aliases
 * (../../config/known-secrets.ts). Source: docs/providers.md "Gemini API" (gemini-api-facts.md §4.5) and the
 * recordings in test/fixtures/gemini/200-*.json.
 */
import type { GenerateContentResponse } from '@google/genai';
import { redactSecrets } from '../../config/known-secrets.js';
import type { ModelAnswer } from '../contract.js';
import { neutralFinish } from './finish-reason.js';

/** The neutral answer of a response. Never throws; missing parts are undefined or 0. */
export function readAnswer(response: GenerateContentResponse): ModelAnswer {
  const candidate = response.candidates?.[0];
  const parts = candidate?.content?.parts ?? [];
  let text: string | undefined;
  for (const p of parts) if (typeof p.text === 'string' && !p.thought) text = (text ?? '') + p.text;
  const usage = response.usageMetadata;
  const finishDetail = candidate?.finishReason ?? undefined;
  const answer: ModelAnswer = {
    text: text === undefined ? undefined : redactSecrets(text),
    finish: neutralFinish(finishDetail),
    finishDetail,
    blocked: response.promptFeedback?.blockReason ?? undefined,
    usage: {
      inputTokens: usage?.promptTokenCount ?? 0,
      outputTokens: usage?.candidatesTokenCount ?? 0,
      reasoningTokens: usage?.thoughtsTokenCount ?? 0,
    },
  };
  if (response.modelVersion) answer.served = { modelVersion: response.modelVersion };
  answer.raw = response;
  return answer;
}
