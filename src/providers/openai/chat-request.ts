/**
 * Maps the neutral {@link ModelRequest} to chat/completions parameters (docs/reference/batch-openai-vertex-facts.md §b; the request
 * fields Gemini's compatibility endpoint lists, §b.1):
 * - messages: the system instruction as a `system` message, the examples as user/assistant turns, then the prompt;
 * - labels: `response_format: {type: "json_schema", json_schema: {name: "label", strict: true, schema: {type:
 *   "object", properties: {label: {type: "string", enum: [...]}}, required: ["label"], additionalProperties: false}}}`
 *   (strict mode wants an object root, every property required and additionalProperties false, §b.2) — the answer's
 *   `label` is read back by read-answer.ts; a JSON schema (--schema) goes as given, strict when it meets those rules;
 * - reasoning: `least` → `reasoning_effort: "none"`, a budget → none (0) / low (≤ 1,024) / medium (≤ 8,192) / high,
 *   the model deciding (-1) → not sent (the budgets of Gemini's mapping, §b.1);
 * - the output cap as `max_completion_tokens` (reasoning included, like Gemini's maxOutputTokens). OpenAI-style servers
 *   count it against TPM up front (§b.2), so a label's default cap is small: {@link LABEL_ROOM} plus the reasoning's.
 *
 * Servers differ in what they accept; {@link RequestShape} is how far this request steps down (param-ladder.ts moves it
 * when a server refuses a field): response_format json_schema → json_object (the wanted shape then said in the
 * system message, which json_object needs to mention "JSON" anyway) → none (said in the system message);
 * reasoning_effort none → minimal → low → not sent; max_completion_tokens → max_tokens → not sent.
 */
import type { JsonSchema, ModelRequest } from '../contract.js';

/** Output tokens a label answer needs without reasoning: `{"label":"…"}` is a dozen tokens for labels of a few words. */
export const LABEL_ROOM = 64;

/** The response_format a server is sent, from the richest down. */
export const FORMAT_STEPS = ['json_schema', 'json_object', 'none'] as const;
/** The reasoning_effort sent for `reasoning: 'least'`, from the least reasoning down to not sending it. */
export const LEAST_EFFORT_STEPS = ['none', 'minimal', 'low', 'omit'] as const;
/** The field the output cap is sent in. */
export const CAP_STEPS = ['max_completion_tokens', 'max_tokens', 'omit'] as const;

/** How a request is shaped for the server at hand (param-ladder.ts). */
export interface RequestShape {
  format: (typeof FORMAT_STEPS)[number];
  /** For `reasoning: 'least'`; a budget maps to its effort, or to nothing once `omit` is reached. */
  leastEffort: (typeof LEAST_EFFORT_STEPS)[number];
  cap: (typeof CAP_STEPS)[number];
}

/** The richest shape: what an OpenAI server takes. */
export const FULL_SHAPE: RequestShape = { format: 'json_schema', leastEffort: 'none', cap: 'max_completion_tokens' };

type Effort = 'none' | 'minimal' | 'low' | 'medium' | 'high';

/** Reasoning tokens each effort allows at most (Gemini's compatibility mapping, §b.1; minimal as low). */
const EFFORT_BUDGET: Readonly<Record<Effort, number>> = { none: 0, minimal: 1024, low: 1024, medium: 8192, high: 24576 };

/** The chat/completions body (the fields this tool sends). */
export interface ChatParams {
  model: string;
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  response_format?: { type: 'json_object' } | { type: 'json_schema'; json_schema: { name: string; schema: JsonSchema; strict?: boolean } };
  reasoning_effort?: Effort;
  max_completion_tokens?: number;
  max_tokens?: number;
  temperature?: number;
}

/** The JSON schema of a label answer: a root object with one required enum property (strict-mode ready). */
export function labelSchema(labels: readonly string[]): JsonSchema {
  return { type: 'object', properties: { label: { type: 'string', enum: [...labels] } }, required: ['label'], additionalProperties: false };
}

/** Whether `schema` meets strict mode's rules on every object: additionalProperties false and every property required. */
export function strictReady(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return true;
  if (Array.isArray(schema)) return schema.every(strictReady);
  const s = schema as Record<string, unknown>;
  if (s.type === 'object' || (typeof s.properties === 'object' && s.properties !== null)) {
    const props = Object.keys((s.properties as object | undefined) ?? {});
    const required = Array.isArray(s.required) ? s.required : [];
    if (s.additionalProperties !== false || props.some((p) => !required.includes(p))) return false;
  }
  return Object.values(s).every(strictReady);
}

function effortOf(request: ModelRequest, shape: RequestShape): Effort | undefined {
  if (request.moreRoom) return shape.leastEffort === 'omit' ? undefined : shape.leastEffort;
  if (request.reasoning === 'least') return shape.leastEffort === 'omit' ? undefined : shape.leastEffort;
  const budget = request.reasoning.budgetTokens;
  if (budget < 0 || shape.leastEffort === 'omit') return undefined;
  if (budget === 0) return shape.leastEffort;
  return budget <= 1024 ? 'low' : budget <= 8192 ? 'medium' : 'high';
}

/** What the system message says of the wanted answer when the server cannot be told by response_format. */
function shapeInstruction(request: ModelRequest, shape: RequestShape): string | undefined {
  const out = request.output;
  if (out.kind === 'text' || shape.format === 'json_schema') return undefined;
  if (out.kind === 'labels') {
    const list = out.labels.map((l) => JSON.stringify(l)).join(', ');
    return shape.format === 'json_object'
      ? `Answer with a JSON object {"label": L} where L is exactly one of: ${list}.`
      : `Answer with exactly one of these labels and nothing else: ${list}.`;
  }
  return `Answer with a JSON object that matches this JSON Schema: ${JSON.stringify(out.schema)}`;
}

/** The chat/completions parameters of `request` in `shape`. Pure. */
export function chatParams(request: ModelRequest, shape: RequestShape): ChatParams {
  const system = [request.system, shapeInstruction(request, shape)].filter((s): s is string => s !== undefined && s !== '').join('\n\n');
  const messages: ChatParams['messages'] = [];
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const e of request.examples ?? []) messages.push({ role: 'user', content: e.prompt }, { role: 'assistant', content: e.answer });
  messages.push({ role: 'user', content: request.prompt });
  const params: ChatParams = { model: request.model, messages };

  const out = request.output;
  if (out.kind !== 'text' && shape.format === 'json_object') params.response_format = { type: 'json_object' };
  if (out.kind !== 'text' && shape.format === 'json_schema') {
    params.response_format =
      out.kind === 'labels'
        ? { type: 'json_schema', json_schema: { name: 'label', schema: labelSchema(out.labels), strict: true } }
        : { type: 'json_schema', json_schema: { name: out.name, schema: out.schema, ...(strictReady(out.schema) ? { strict: true } : {}) } };
  }
  const effort = effortOf(request, shape);
  if (effort !== undefined) params.reasoning_effort = effort;
  if (request.temperature !== undefined) params.temperature = request.temperature;

  let cap = request.maxOutputTokens ?? (out.kind === 'labels' ? LABEL_ROOM + (effort === undefined ? 0 : EFFORT_BUDGET[effort]) : undefined);
  if (request.moreRoom) cap = Math.max(4 * (cap ?? 2048), 2048);
  if (cap !== undefined && shape.cap !== 'omit') params[shape.cap] = cap;
  return params;
}
