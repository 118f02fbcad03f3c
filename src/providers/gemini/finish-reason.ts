/**
 * Gemini's finishReason values mapped to the neutral {@link FinishReason}, in one place. Values: @google/genai 2.32
 * `FinishReason` enum (docs/providers.md "Gemini API"; docs/reference/gemini-api-facts.md §4.5).
 */
import type { FinishReason } from '../contract.js';

const NEUTRAL: Readonly<Record<string, FinishReason>> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  BLOCKLIST: 'content-filter',
  SPII: 'content-filter',
  IMAGE_SAFETY: 'content-filter',
  IMAGE_PROHIBITED_CONTENT: 'content-filter',
  LANGUAGE: 'content-filter',
  RECITATION: 'recitation',
};

/** `STOP` → `stop`, `MAX_TOKENS` → `length`, SAFETY and the other filters → `content-filter`…; anything else `other`. */
export function neutralFinish(finishReason: string | undefined): FinishReason | undefined {
  if (finishReason === undefined) return undefined;
  return NEUTRAL[finishReason] ?? 'other';
}
