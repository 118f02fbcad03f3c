/**
 * Reads a generateContent response into the neutral {@link ModelAnswer}: the non-thought text parts of candidate 0
 * (what `response.text` returns, without the SDK's console warnings), the finish reason (neutral, and Gemini's own for
 * the journal), promptFeedback.blockReason, usageMetadata, modelVersion, and the service tier that served it (the
 * `x-gemini-service-tier` header, else Vertex's usageMetadata.trafficType: docs/service-tiers.md). Known keys are
 * replaced by their aliases
 * (../../config/known-secrets.ts). Source: docs/providers.md "Gemini API" (docs/reference/gemini-api-facts.md §4.5) and the
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
  const served: NonNullable<ModelAnswer['served']> = {};
  if (response.modelVersion) served.modelVersion = response.modelVersion;
  const tier = servedTierOf(response);
  if (tier !== undefined) served.serviceTier = tier;
  if (Object.keys(served).length > 0) answer.served = served;
  answer.raw = response;
  return answer;
}

/** Vertex's usageMetadata.trafficType values that name a service tier (the SDK's `TrafficType` enum). */
const TRAFFIC_TIERS: Readonly<Record<string, string>> = { ON_DEMAND: 'standard', ON_DEMAND_FLEX: 'flex', ON_DEMAND_PRIORITY: 'priority' };

/**
 * The tier that served a response: the `x-gemini-service-tier` header (lower-case names in
 * `sdkHttpResponse.headers`, @google/genai 2.32 `HttpResponse`), else Vertex's `usageMetadata.trafficType` mapped to
 * `standard`/`flex`/`priority`; undefined when neither says (docs/service-tiers.md).
 */
export function servedTierOf(response: Pick<GenerateContentResponse, 'sdkHttpResponse' | 'usageMetadata'>): string | undefined {
  const header = response.sdkHttpResponse?.headers?.['x-gemini-service-tier'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim().toLowerCase();
  const traffic = response.usageMetadata?.trafficType;
  return traffic !== undefined ? TRAFFIC_TIERS[traffic] : undefined;
}
