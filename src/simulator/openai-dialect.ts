/**
 * The OpenAI dialect, `POST /v1/chat/completions` and `POST /v1beta/openai/chat/completions` with
 * `Authorization: Bearer KEY`, in two styles (docs/reference/batch-openai-vertex-facts.md §b; docs/reference/gemini-api-facts.md §7):
 * - `openai`: OpenAI's error bodies (openai-bodies.ts); a quota 429 is `code: rate_limit_exceeded` with the wait in its
 *   message ("Please try again in 140ms"), `retry-after` (s) and `retry-after-ms`; every response of a limited model
 *   carries `x-ratelimit-limit/remaining/reset-requests/-tokens` (reset as Go durations); billing 429s
 *   (`insufficient_quota` and its newer codes); max_tokens counts against TPM.
 * - `gemini-compat`: Gemini's compatibility endpoint: every error is the Developer API's google.rpc.Status wrapped in a
 *   one-element JSON array (fixtures test/fixtures/openai/429-compat-bare-array.json, 400-compat-unknown-field-array.json),
 *   the quota 429 in the scenario's flavour (`bare`: no details), no retry or rate-limit headers; TPM counts input only.
 * Answers are chat.completion bodies in both (openai-answer.ts).
 */
import type { Dialect, QuotaRejection, Reply, SimFailure } from './dialect.js';
import { googleFailure, googleQuota } from './gemini-dialect.js';
import { goDuration } from './go-duration.js';
import type { MinuteHeadroom } from './minute-limiters.js';
import { chatCompletion } from './openai-answer.js';
import * as openai from './openai-bodies.js';
import { readChatRequest } from './openai-request.js';
import { isDaily } from './quota-names.js';
import type { OpenAIOptions, OpenAIStyle } from './types.js';

function openaiFailure(f: SimFailure): Reply {
  switch (f.kind) {
    case 'missing-key':
      return { status: 401, body: openai.missingKey() };
    case 'invalid-key':
      return { status: 401, body: openai.invalidKey(f.key) };
    case 'leaked-key':
      return { status: 401, body: openai.openaiError('This API key has been disabled because it was reported as leaked. Create a new key to continue.', 'invalid_request_error', null, 'invalid_api_key') };
    case 'model-not-found':
      return { status: 404, body: openai.modelNotFound(f.model) };
    case 'invalid-json':
      return { status: 400, body: openai.invalidJson() };
    case 'invalid-request':
      return { status: 400, body: openai.openaiError(f.message, 'invalid_request_error', f.param ?? null, f.code ?? null) };
    case 'thinking-budget-zero':
      return { status: 400, body: openai.effortNoneUnsupported() };
    case 'context-too-long':
      return { status: 400, body: openai.contextTooLong(f.limit, f.tokens) };
    case 'fault': {
      const status = f.fault === '429-bare' ? 429 : Number(f.fault);
      return { status, body: openai.serverError(status) };
    }
    case 'generic':
      return { status: f.status, body: openai.serverError(f.status) };
  }
}

/** The x-ratelimit-* headers of the limited per-minute dimensions (remaining rounded down, reset as a Go duration). */
export function rateLimitHeaders(headroom: MinuteHeadroom, limits: { rpm?: number; tpm?: number }): Record<string, string> {
  const h: Record<string, string> = {};
  if (limits.rpm !== undefined && headroom.requests) {
    h['x-ratelimit-limit-requests'] = String(limits.rpm);
    h['x-ratelimit-remaining-requests'] = String(Math.floor(headroom.requests.remaining));
    h['x-ratelimit-reset-requests'] = goDuration(headroom.requests.resetMs);
  }
  if (limits.tpm !== undefined && headroom.tokens) {
    h['x-ratelimit-limit-tokens'] = String(limits.tpm);
    h['x-ratelimit-remaining-tokens'] = String(Math.floor(headroom.tokens.remaining));
    h['x-ratelimit-reset-tokens'] = goDuration(headroom.tokens.resetMs);
  }
  return h;
}

/**
 * OpenAI's quota 429: names the violation that clears last (the one the wait is for), with the usage of its window;
 * the wait is the time until every violated dimension has room, rounded up to the ms (a never-clearing one: a random
 * 5–59 s, as quota-error-body.ts).
 */
function openaiQuota(q: QuotaRejection, retryAfter: boolean): Reply {
  let waitMs = 0;
  for (const v of q.violations) waitMs = Math.max(waitMs, Number.isFinite(v.waitMs) ? v.waitMs : q.random.int(5_000, 59_999));
  waitMs = Math.ceil(waitMs);
  const binding = q.violations.reduce((a, b) => (b.waitMs > a.waitMs ? b : a));
  const perMinute = binding.dimension === 'rpm' ? q.headroom.requests : binding.dimension === 'tpm' ? q.headroom.tokens : undefined;
  const used = isDaily(binding.dimension) || !perMinute ? binding.limit : binding.limit - perMinute.remaining;
  const tokens = binding.dimension === 'tpm' || binding.dimension === 'tpd';
  const body = openai.rateLimited({
    model: q.model,
    project: q.project,
    dimension: binding.dimension,
    limit: binding.limit,
    used,
    requested: tokens ? q.requestedTokens : 1,
    waitMs,
  });
  const reply: Reply = { status: 429, body };
  if (retryAfter) reply.headers = { 'retry-after': String(Math.ceil(waitMs / 1000)), 'retry-after-ms': String(waitMs) };
  return reply;
}

/** Wraps a Google error reply's body in a one-element array, as the compatibility endpoint sends it. */
function arrayWrapped(reply: Reply): Reply {
  return { status: reply.status, body: [reply.body] };
}

/** The chat/completions dialect in `style`, with the scenario's `openai` options. */
export function openaiDialect(style: OpenAIStyle, o: OpenAIOptions): Dialect {
  const readOptions = { style, formats: o.responseFormats, countMaxTokens: o.countMaxTokens ?? style === 'openai' };
  const common = {
    read: (_endpoint: string, body: unknown) => readChatRequest(body, readOptions),
    answer: chatCompletion,
  };
  if (style === 'gemini-compat') {
    return {
      ...common,
      name: 'gemini-compat',
      failure: (f) => arrayWrapped(googleFailure(f)),
      quota: (q) => arrayWrapped(googleQuota({ ...q, retryAfterHeader: false })),
    };
  }
  const dialect: Dialect = {
    ...common,
    name: 'openai',
    failure: openaiFailure,
    quota: (q) => openaiQuota(q, o.retryAfterHeaders),
    billing: (code) => ({ status: 429, body: openai.billingExhausted(code) }),
  };
  if (o.rateLimitHeaders) dialect.limitHeaders = rateLimitHeaders;
  return dialect;
}
