/**
 * Turns a failed chat/completions call into one of the typed failures of ../failures.ts, from the raw response the
 * transport captured (openai-node drops bodies that are not `{error: …}`: Gemini's compatibility endpoint answers a
 * JSON array, which reaches the caller as "429 status code (no body)", docs/reference/batch-openai-vertex-facts.md last section) or,
 * without an HTTP answer, from the client's connection error.
 *
 * Bodies (docs/reference/batch-openai-vertex-facts.md §b; fixtures test/fixtures/openai/):
 * - OpenAI: `{"error": {message, type, param, code}}`. 429 `insufficient_quota` and its newer codes → BillingFailure;
 *   other 429s (`rate_limit_exceeded`, `slow_down`…) → RateLimitFailure: `type` tokens/requests is the dimension,
 *   "per min"/"per day" in the message the period, "Limit N" or x-ratelimit-limit-* the limit, the wait from
 *   retry-after-ms, retry-after, an exhausted dimension's reset header, or "Please try again in X" (rate-limit-hints.ts);
 * - Google (Gemini's compatibility endpoint, some gateways): google.rpc.Status, often wrapped in a one-element array:
 *   the Gemini adapter's reading of QuotaFailure/RetryInfo (../gemini/quota-failure.ts); a 429 naming nothing is a
 *   bare 429 (the scheduler slows down);
 * - anything else (an HTML page, plain text): by status alone.
 * Statuses: 401/403 KeyFailure, 404 ModelFailure, 408/409/5xx ServerFailure, other 4xx RequestFailure.
 */
import { redactSecrets, redactSecretsDeep } from '../../config/known-secrets.js';
import {
  ApiFailure,
  BillingFailure,
  connectionFailureOf,
  describeHttpFailure,
  KeyFailure,
  ModelFailure,
  RateLimitFailure,
  RequestFailure,
  ServerFailure,
  type RateLimitDetails,
  type RateLimitHit,
} from '../failures.js';
import { readRateLimitDetails } from '../google-quota-failure.js';
import { parseRpcStatus, type RpcStatus } from '../google-rpc-status.js';
import { readLimitHints, retryWaitMs, type HeaderSource } from './rate-limit-hints.js';

/** An HTTP error response as the transport captured it, before the client parsed it. */
export interface CapturedError {
  status: number;
  headers: HeaderSource;
  text: string;
}

/** OpenAI's error object. */
export interface OpenAiError {
  message: string;
  type: string | undefined;
  param: string | undefined;
  code: string | undefined;
}

/** `code`s (or `type`s) of a 429 that means the account cannot pay (docs/reference/batch-openai-vertex-facts.md §b.2). */
export const BILLING_CODES: ReadonlySet<string> = new Set([
  'insufficient_quota',
  'credit_balance_exhausted',
  'organization_spend_limit_exceeded',
  'project_spend_limit_exceeded',
  'organization_usage_limit_exceeded',
]);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The OpenAI error object of a body, or undefined when the body is not OpenAI's (a Google envelope is not). */
export function openAiErrorOf(body: unknown): OpenAiError | undefined {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return undefined;
  const e = error as Record<string, unknown>;
  if (typeof e.status === 'string' || typeof e.code === 'number') return undefined;
  return { message: str(e.message) ?? '', type: str(e.type), param: str(e.param), code: str(e.code) };
}

/** The rate limit an OpenAI 429 names. */
function openAiRateLimit(error: OpenAiError, headers: HeaderSource): RateLimitDetails {
  const tokens = error.type === 'tokens' || /\btokens? per\b|\(TPM\)|\(TPD\)/i.test(error.message);
  const requests = error.type === 'requests' || /\brequests? per\b|\(RPM\)|\(RPD\)/i.test(error.message);
  // OpenAI's rate limits are per minute unless the message says per day (its RPD/TPD); other codes say nothing.
  const daily = /per day|\(RPD\)|\(TPD\)/i.test(error.message);
  const period = daily ? 'day' : /per min|\(RPM\)|\(TPM\)/i.test(error.message) || error.code === 'rate_limit_exceeded' ? 'minute' : undefined;
  const stated = /\bLimit (\d+)/.exec(error.message);
  const hints = readLimitHints(headers);
  const dimension: RateLimitHit['dimension'] = tokens ? 'input-tokens' : requests ? 'requests' : 'unknown';
  const headerLimit = dimension === 'input-tokens' ? hints?.tokens?.limit : dimension === 'requests' ? hints?.requests?.limit : undefined;
  const limit = stated ? Number(stated[1]) : period === 'day' ? undefined : headerLimit;
  const hits: RateLimitHit[] = dimension === 'unknown' && !error.code ? [] : [{ dimension, period, limit: limit && limit > 0 ? limit : undefined, id: error.code ?? error.type }];
  return { hits, waitMs: retryWaitMs(headers, error.message), noQuota: limit === 0, scope: 'project' };
}

/** A Google envelope's 429, with the retry headers as a fallback for the wait. */
function googleRateLimit(rpc: RpcStatus, headers: HeaderSource): RateLimitDetails {
  const details = readRateLimitDetails(rpc, false);
  return details.waitMs === undefined ? { ...details, waitMs: retryWaitMs(headers, undefined) } : details;
}

/** What two refusals of one kind share (type, code, param; Google's status), for schedule/endpoint-health.ts. */
function reasonOf(openAi: OpenAiError | undefined, rpc: RpcStatus | null): string {
  if (openAi) return [openAi.type ?? '', openAi.code ? `code=${openAi.code}` : '', openAi.param ? `param=${openAi.param}` : ''].join('|');
  return rpc?.status ?? '';
}

/**
 * The failure of an HTTP error response. Known secrets are replaced by their aliases in the text and the parsed body
 * first: a 401 quotes (part of) the key it refused.
 */
export function failureOfResponse(captured: CapturedError): ApiFailure {
  const { status, headers } = captured;
  const text = redactSecrets(captured.text);
  const body = redactSecretsDeep(parseJson(text));
  const openAi = openAiErrorOf(body);
  const rpc = openAi ? null : parseRpcStatus(text);
  const raw = body ?? (text === '' ? null : text);
  const name = openAi ? (openAi.code ?? openAi.type) : rpc?.status || undefined;
  const message = describeHttpFailure(status, name, openAi?.message || rpc?.message || text);
  const reason = reasonOf(openAi, rpc);
  if (status === 429 || status === 402) {
    if (openAi && (BILLING_CODES.has(openAi.code ?? '') || BILLING_CODES.has(openAi.type ?? ''))) return new BillingFailure(message, status, raw, reason);
    if (status === 402) return new BillingFailure(message, status, raw, reason);
    const details = openAi ? openAiRateLimit(openAi, headers) : rpc ? googleRateLimit(rpc, headers) : { hits: [], waitMs: retryWaitMs(headers, undefined), noQuota: false, scope: 'project' as const };
    return new RateLimitFailure(message, details, raw, reason);
  }
  if (status >= 500 || status === 408 || status === 409) return new ServerFailure(message, status, raw, reason);
  if (status === 401 || status === 403) return new KeyFailure(message, status, raw, reason);
  if (status === 404) return new ModelFailure(message, raw, reason);
  return new RequestFailure(message, status, raw, reason);
}

/** What a 400 said, for param-ladder.ts: OpenAI's `param` and the message (Google's message inside an array too). */
export function refusalOf(failure: ApiFailure): { param: string | undefined; message: string } {
  const openAi = openAiErrorOf(failure.raw);
  if (openAi) return { param: openAi.param, message: openAi.message };
  const rpc = typeof failure.raw === 'object' && failure.raw !== null ? parseRpcStatus(JSON.stringify(failure.raw)) : null;
  return { param: undefined, message: rpc?.message ?? failure.message };
}

/**
 * The failure of whatever the client threw: the captured response when there was one, else a connection failure
 * (openai-node's APIConnectionError carries the transport's error as `cause`).
 */
export function classifyFailure(error: unknown, captured: CapturedError | undefined): ApiFailure {
  if (error instanceof ApiFailure) return error;
  if (captured) return failureOfResponse(captured);
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400) {
    const headers = (error as { headers?: HeaderSource }).headers ?? new Headers();
    const body = (error as { error?: unknown }).error;
    return failureOfResponse({ status, headers, text: body === undefined ? '' : JSON.stringify({ error: body }) });
  }
  return connectionFailureOf((error as { cause?: unknown } | null)?.cause ?? error);
}
