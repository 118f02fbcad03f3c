/**
 * A built Gemini answer rewritten as a `chat.completion`, as Gemini's compatibility layer does
 * (docs/reference/batch-openai-vertex-facts.md §b.1): the non-thought text parts of the first candidate as `message.content` (null
 * when there is none), finishReason → `finish_reason` (STOP stop, MAX_TOKENS length, the safety family and a blocked
 * prompt content_filter, anything else stop), and usageMetadata → `usage` in OpenAI's convention: `completion_tokens`
 * includes the reasoning, `completion_tokens_details.reasoning_tokens` is thoughtsTokenCount.
 */
import type { BuiltAnswer } from './answer-builder.js';
import type { AnswerMeta } from './dialect.js';

type Obj = Record<string, unknown>;

const CONTENT_FILTER = new Set(['SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY', 'RECITATION']);
const OPENAI_VALUES = new Set(['stop', 'length', 'content_filter', 'tool_calls']);

/** OpenAI's finish_reason for a Gemini finishReason (an OpenAI value given by a script passes through). */
export function finishReasonOf(gemini: string | undefined): string {
  if (gemini === undefined || gemini === 'STOP') return 'stop';
  if (OPENAI_VALUES.has(gemini)) return gemini;
  if (gemini === 'MAX_TOKENS') return 'length';
  return CONTENT_FILTER.has(gemini) ? 'content_filter' : 'stop';
}

/** The chat.completion body of `a`. */
export function chatCompletion(a: BuiltAnswer, meta: AnswerMeta): Obj {
  const body = a.body as Obj;
  const candidate = ((body.candidates as Obj[] | undefined) ?? [])[0];
  const parts = ((candidate?.content as Obj | undefined)?.parts as Obj[] | undefined) ?? [];
  const texts = parts.filter((p) => p.thought !== true && typeof p.text === 'string').map((p) => p.text as string);
  const blocked = (body.promptFeedback as Obj | undefined)?.blockReason !== undefined;
  const usage = (body.usageMetadata as Obj | undefined) ?? {};
  const prompt = Number(usage.promptTokenCount ?? 0);
  const thoughts = Number(usage.thoughtsTokenCount ?? 0);
  const completion = Number(usage.candidatesTokenCount ?? 0) + thoughts;
  return {
    id: `chatcmpl-${meta.responseId}`,
    object: 'chat.completion',
    created: Math.floor(meta.now / 1000),
    model: meta.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: texts.length > 0 ? texts.join('') : null, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: blocked ? 'content_filter' : finishReasonOf(candidate?.finishReason as string | undefined),
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: thoughts, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    service_tier: 'default',
    system_fingerprint: null,
  };
}
