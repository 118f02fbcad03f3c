/**
 * OpenAI's `finish_reason` values mapped to the neutral {@link FinishReason}, in one place: `stop` → stop, `length` →
 * length (the output limit, reasoning included), `content_filter` → content-filter (Gemini's compatibility endpoint also
 * answers its safety stops so, docs/reference/batch-openai-vertex-facts.md §b.1); `tool_calls`, `function_call` and anything else →
 * other. Values: the `openai` client's ChatCompletion.Choice type (6.49).
 */
import type { FinishReason } from '../contract.js';

const NEUTRAL: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content-filter',
};

/** The neutral finish reason of a `finish_reason`; undefined when the server gave none. */
export function neutralFinish(finishReason: string | null | undefined): FinishReason | undefined {
  if (finishReason === undefined || finishReason === null) return undefined;
  return NEUTRAL[finishReason] ?? 'other';
}
