/**
 * The Gemini Developer API dialect (`POST /v1beta/models/{model}:generateContent`, key in `x-goog-api-key`):
 * google.rpc.Status error bodies verbatim from test/fixtures/gemini/ (error-bodies.ts), the quota 429 in the scenario's
 * flavour (quota-error-body.ts), GenerateContentResponse answers (answer-builder.ts). docs/reference/gemini-api-facts.md §2–§4.
 */
import * as bodies from './error-bodies.js';
import type { AnswerMeta, Dialect, QuotaRejection, ReadResult, Reply, SimFailure } from './dialect.js';
import { quotaErrorBody } from './quota-error-body.js';
import { readCountTokensRequest, readRequest } from './request-view.js';

/** The Google body of a neutral failure; shared with the Vertex and Gemini-compat dialects. */
export function googleFailure(f: SimFailure): Reply {
  switch (f.kind) {
    case 'missing-key':
      return { status: 403, body: bodies.missingKey() };
    case 'invalid-key':
      return { status: 400, body: bodies.apiKeyInvalid() };
    case 'leaked-key':
      return { status: 403, body: bodies.leakedKey() };
    case 'model-not-found':
      return { status: 404, body: bodies.modelNotFound(f.model, f.apiVersion, f.endpoint) };
    case 'invalid-json':
      return { status: 400, body: bodies.invalidJson(f.detail) };
    case 'invalid-request':
      return { status: 400, body: bodies.rpcError(400, f.message) };
    case 'thinking-budget-zero':
      return { status: 400, body: bodies.thinkingBudgetZero() };
    case 'context-too-long':
      return { status: 400, body: bodies.contextTooLong(f.limit) };
    case 'fault':
      if (f.fault === '503') return { status: 503, body: f.highDemand ? bodies.highDemand() : bodies.overloaded() };
      if (f.fault === '500') return { status: 500, body: bodies.internalError() };
      if (f.fault === '504') return { status: 504, body: bodies.deadlineExceeded() };
      return { status: 429, body: bodies.bareCapacity() };
    case 'generic':
      return { status: f.status, body: bodies.genericError(f.status) };
  }
}

/** The quota 429 of the Developer API in the scenario's flavour, with `Retry-After` when the scenario asks for it. */
export function googleQuota(q: QuotaRejection): Reply {
  const { body, retrySeconds } = quotaErrorBody(q);
  const reply: Reply = { status: 429, body };
  if (q.retryAfterHeader) reply.headers = { 'Retry-After': String(Math.ceil(retrySeconds)) };
  return reply;
}

/** Reads a generateContent body, or a countTokens body (`{contents}` or `{generateContentRequest}`). */
export function readGoogleRequest(endpoint: string, body: unknown): ReadResult {
  const read = endpoint === 'countTokens' ? readCountTokensRequest(body) : readRequest(body);
  if (!read.ok) return { ok: false, failure: { kind: 'invalid-request', message: read.message } };
  return { ok: true, view: read.view, extraTokens: 0 };
}

/**
 * The answer's `x-gemini-service-tier` header: the tier that served a request that named one (a Priority request over
 * its limit says `standard`; docs/service-tiers.md "The tier that served an answer"). [INFERRED] whether the real API
 * sends it to requests that name no tier: the simulator does not.
 */
export function serviceTierHeader(meta: AnswerMeta): Record<string, string> | undefined {
  return meta.tierNamed ? { 'x-gemini-service-tier': meta.servedTier } : undefined;
}

/** The Developer API dialect. */
export const geminiDialect: Dialect = {
  name: 'gemini',
  read: readGoogleRequest,
  failure: googleFailure,
  quota: googleQuota,
  answer: (a) => a.body,
  answerHeaders: serviceTierHeader,
};
