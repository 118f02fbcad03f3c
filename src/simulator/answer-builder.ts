/**
 * Successful (HTTP 200) generateContent bodies in the real shape (docs/reference/gemini-api-facts.md §4.5, fixture
 * 200-enum-answer-system-instruction.json): candidates[{content{parts[{text}],role:"model"},finishReason,index}],
 * usageMetadata{promptTokenCount, candidatesTokenCount (omitted when 0), totalTokenCount, promptTokensDetails,
 * thoughtsTokenCount (when thinking)}, modelVersion, responseId. Also the variants: thoughts reaching
 * maxOutputTokens (§4.6, fixture 200-thinking-max-tokens-no-text.json), a blocked prompt
 * (promptFeedback.blockReason, no candidates) and a finishReason other than STOP, with or without content.
 */
import { mix32 } from './random.js';
import { packedAnswerText, packItems, type PackFault } from './pack-answer.js';
import type { RequestView } from './request-view.js';
import { enumMember, schemaValue } from './schema-value.js';
import { countTokens, truncateToTokens } from './tokenizer.js';
import type { ModelSpec, ScriptResponse } from './types.js';

/** Everything an answer depends on. `hash` is a hash of the user text: same prompt, same answer. */
export interface AnswerContext {
  spec: ModelSpec;
  view: RequestView;
  promptTokenCount: number;
  hash: number;
  responseId: string;
}

/** A built answer and what it cost. `label` is the answer text, if any. */
export interface BuiltAnswer {
  body: Record<string, unknown>;
  outputTokens: number;
  thoughtsTokens: number;
  label?: string;
  /** `ok`, `max-tokens` (cut or no text), `blocked` (prompt blocked), `finish` (another finishReason). */
  outcome: 'ok' | 'max-tokens' | 'blocked' | 'finish';
}

/**
 * The scripted responses that produce a 200 body; a `pack` fault also carries its rule's `match` (the marker of the
 * items it changes).
 */
export type AnswerOverride =
  | Extract<ScriptResponse, { kind: 'enum' | 'text' | 'json' | 'blocked' | 'finish' | 'max-tokens' }>
  | { kind: 'pack'; fault: PackFault; marker: string };

const LEVEL_SCALE: Record<string, number> = { MINIMAL: 0.05, LOW: 0.5, MEDIUM: 1, HIGH: 1.5 };

/**
 * Thought tokens the model spends: 0 when it does not think (thinking `off` without a positive budget, or
 * thinkingBudget 0); otherwise a hash of the prompt in the model's range, scaled by thinkingLevel and capped
 * at a positive thinkingBudget.
 */
export function thoughtsFor(spec: ModelSpec, view: RequestView, hash: number): number {
  const budget = view.thinkingBudget;
  const thinks = budget === 0 ? false : spec.thinking !== 'off' || (budget !== undefined && budget > 0);
  if (!thinks) return 0;
  const { min, max } = spec.thoughtTokens;
  let n = min + (mix32(hash, 0x7407) % (max - min + 1));
  n *= LEVEL_SCALE[view.thinkingLevel ?? 'MEDIUM'] ?? 1;
  if (budget !== undefined && budget > 0) n = Math.min(n, budget);
  return Math.max(1, Math.round(n));
}

/**
 * The answer text of an ordinary request: an enum member, a JSON value for the schema, one item per row of a packed
 * request (./pack-answer.ts), or a sentence. `fault` changes the items of a packed request.
 */
export function normalAnswerText(view: RequestView, hash: number, fault?: { fault: PackFault; marker: string }): string {
  const items = packItems(view);
  if (items) return packedAnswerText(view, items, fault);
  const schema = view.schema ?? view.jsonSchema;
  const mime = view.mimeType?.toLowerCase();
  if (mime === 'text/x.enum') {
    const member = enumMember(schema, hash);
    if (member !== undefined) return member;
  }
  if (mime === 'application/json') {
    return JSON.stringify(schema !== undefined ? schemaValue(schema, hash) : { answer: freeText(view, hash) });
  }
  return freeText(view, hash);
}

function freeText(view: RequestView, hash: number): string {
  const words = view.userText.split(/\s+/).filter(Boolean);
  return `Simulated answer ${(hash % 0x10000).toString(16).padStart(4, '0')}: the prompt has ${words.length} words.`;
}

function usage(prompt: number, candidates: number, thoughts: number): Record<string, unknown> {
  const u: Record<string, unknown> = { promptTokenCount: prompt };
  if (candidates > 0) u.candidatesTokenCount = candidates;
  u.totalTokenCount = prompt + candidates + thoughts;
  u.promptTokensDetails = [{ modality: 'TEXT', tokenCount: prompt }];
  if (thoughts > 0) u.thoughtsTokenCount = thoughts;
  return u;
}

function envelope(ctx: AnswerContext, candidate: Record<string, unknown>, candidates: number, thoughts: number) {
  return {
    candidates: [candidate],
    usageMetadata: usage(ctx.promptTokenCount, candidates, thoughts),
    modelVersion: ctx.spec.modelVersion,
    responseId: ctx.responseId,
  };
}

function textParts(ctx: AnswerContext, text: string, thoughts: number): unknown[] {
  const parts: unknown[] = [];
  if (ctx.view.includeThoughts && thoughts > 0) parts.push({ text: '**Considering the request**\n\nSimulated thought summary.', thought: true });
  parts.push({ text });
  return parts;
}

/** The §4.6 shape: content with only a role, finishReason MAX_TOKENS, thoughtsTokenCount, no candidatesTokenCount. */
function noTextMaxTokens(ctx: AnswerContext, thoughts: number): BuiltAnswer {
  const body = envelope(ctx, { content: { role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 }, 0, thoughts);
  return { body, outputTokens: 0, thoughtsTokens: thoughts, outcome: 'max-tokens' };
}

/** Builds the 200 body for a request, or for a scripted 200 response when `override` is given. */
export function buildAnswer(ctx: AnswerContext, override?: AnswerOverride): BuiltAnswer {
  let thoughts = thoughtsFor(ctx.spec, ctx.view, ctx.hash);
  const max = ctx.view.maxOutputTokens !== undefined && ctx.view.maxOutputTokens > 0 ? ctx.view.maxOutputTokens : undefined;

  if (override?.kind === 'blocked') {
    const body = {
      promptFeedback: { blockReason: override.blockReason },
      usageMetadata: usage(ctx.promptTokenCount, 0, 0),
      modelVersion: ctx.spec.modelVersion,
      responseId: ctx.responseId,
    };
    return { body, outputTokens: 0, thoughtsTokens: 0, outcome: 'blocked' };
  }
  if (override?.kind === 'max-tokens') {
    const n = override.thoughtsTokenCount ?? (max !== undefined ? Math.max(1, max - 1) : Math.max(thoughts, 1));
    return noTextMaxTokens(ctx, n);
  }
  if (override?.kind === 'finish') {
    const candidate: Record<string, unknown> = {};
    let out = 0;
    if (override.text !== undefined) {
      candidate.content = { parts: textParts(ctx, override.text, thoughts), role: 'model' };
      out = countTokens(override.text);
    }
    candidate.finishReason = override.finishReason;
    candidate.index = 0;
    if (override.finishReason === 'SAFETY') {
      candidate.safetyRatings = [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }];
    }
    const answer: BuiltAnswer = { body: envelope(ctx, candidate, out, thoughts), outputTokens: out, thoughtsTokens: thoughts, outcome: 'finish' };
    if (override.text !== undefined) answer.label = override.text;
    return answer;
  }
  if (override?.kind === 'text' || override?.kind === 'json') {
    const text = override.kind === 'text' ? override.text : typeof override.value === 'string' ? override.value : JSON.stringify(override.value);
    const finishReason = override.kind === 'text' ? (override.finishReason ?? 'STOP') : 'STOP';
    const out = countTokens(text);
    const candidate = { content: { parts: textParts(ctx, text, thoughts), role: 'model' }, finishReason, index: 0 };
    return { body: envelope(ctx, candidate, out, thoughts), outputTokens: out, thoughtsTokens: thoughts, label: text, outcome: 'ok' };
  }

  // An ordinary answer (also the scripted `enum`, and `pack`: the ordinary answer of a request that is not packed).
  let text = normalAnswerText(ctx.view, ctx.hash, override?.kind === 'pack' ? override : undefined);
  let out = countTokens(text);
  let finishReason = 'STOP';
  if (max !== undefined) {
    if (thoughts >= max) {
      thoughts = Math.max(0, max - 1);
      return noTextMaxTokens(ctx, thoughts);
    }
    if (thoughts + out > max) {
      text = truncateToTokens(text, max - thoughts);
      out = countTokens(text);
      finishReason = 'MAX_TOKENS';
    }
  }
  const candidate = { content: { parts: textParts(ctx, text, thoughts), role: 'model' }, finishReason, index: 0 };
  return {
    body: envelope(ctx, candidate, out, thoughts),
    outputTokens: out,
    thoughtsTokens: thoughts,
    label: text,
    outcome: finishReason === 'STOP' ? 'ok' : 'max-tokens',
  };
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A 23-character responseId like the real ones ("hi77aOvyCJ-jvr0P8syDgQw"), unique per request sequence number. */
export function responseIdFor(seed: number, seq: number): string {
  let id = '';
  for (let i = 0; i < 23; i++) id += ID_ALPHABET[mix32(seed, seq, i) & 63];
  return id;
}
