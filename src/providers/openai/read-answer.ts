/**
 * Reads a chat.completion into the neutral {@link ModelAnswer}: the first choice's `message.content` (for labels, the
 * `label` of the JSON object chat-request.ts asked for), `finish_reason` through finish-reason.ts, usage in the
 * neutral convention — OpenAI's `completion_tokens` include the reasoning, so output = completion_tokens −
 * completion_tokens_details.reasoning_tokens (docs/reference/batch-openai-vertex-facts.md §b; the simulator's chat.completion,
 * src/simulator/openai-answer.ts) — and the x-ratelimit-* headers as limit hints. Known keys are replaced by their
 * aliases. Never throws; a missing part is undefined or 0 (some compatible servers omit `usage` or `message`).
 */
import { redactSecrets } from '../../config/known-secrets.js';
import type { ModelAnswer, WantedOutput } from '../contract.js';
import type { RequestShape } from './chat-request.js';
import { neutralFinish } from './finish-reason.js';
import { readLimitHints, type HeaderSource } from './rate-limit-hints.js';

/** The parts of a chat.completion read here (the `openai` client's ChatCompletion, loosely: servers vary). */
export interface ChatCompletionLike {
  model?: string;
  choices?: Array<{ message?: { content?: string | null; refusal?: string | null } | null; finish_reason?: string | null } | null>;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  } | null;
  service_tier?: string | null;
}

/**
 * The answer text to judge: for labels asked as a JSON object (json_schema or json_object), its `label` when it has a
 * string one; otherwise the content as it came.
 */
export function answerText(content: string | null | undefined, output: WantedOutput, shape: RequestShape): string | undefined {
  if (content === null || content === undefined) return undefined;
  if (output.kind !== 'labels' || shape.format === 'none') return content;
  try {
    const parsed: unknown = JSON.parse(content);
    const label = (parsed as { label?: unknown } | null)?.label;
    return typeof label === 'string' ? label : content;
  } catch {
    return content;
  }
}

/** The neutral answer of a completion and its response headers. */
export function readAnswer(completion: ChatCompletionLike, headers: HeaderSource, output: WantedOutput, shape: RequestShape): ModelAnswer {
  const choice = completion.choices?.[0] ?? undefined;
  const text = answerText(choice?.message?.content, output, shape);
  const finishDetail = choice?.finish_reason ?? undefined;
  const usage = completion.usage ?? undefined;
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens ?? 0;
  const answer: ModelAnswer = {
    text: text === undefined ? undefined : redactSecrets(text),
    finish: neutralFinish(finishDetail),
    finishDetail,
    blocked: undefined,
    usage: {
      inputTokens: usage?.prompt_tokens ?? 0,
      outputTokens: Math.max(0, (usage?.completion_tokens ?? 0) - reasoning),
      reasoningTokens: reasoning,
    },
    raw: completion,
  };
  const served: NonNullable<ModelAnswer['served']> = {};
  if (completion.model) served.modelVersion = completion.model;
  if (completion.service_tier) served.serviceTier = completion.service_tier;
  if (Object.keys(served).length > 0) answer.served = served;
  const limits = readLimitHints(headers);
  if (limits) answer.limits = limits;
  return answer;
}
