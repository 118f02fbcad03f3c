/**
 * OpenAI's error bodies, `{"error":{"message","type","param","code"}}` (docs/reference/batch-openai-vertex-facts.md §b.2; fixtures
 * test/fixtures/openai/429-rate-limit-exceeded-tokens.json and 429-insufficient-quota.json). The rate-limit message
 * and the insufficient_quota body follow those fixtures; the other messages are OpenAI's public wording as commonly
 * reported, [INFERRED] (no recorded fixture): the missing and incorrect key 401s, model_not_found, the JSON parse 400,
 * context_length_exceeded, and the 5xx server_error bodies.
 */
import { goDuration } from './go-duration.js';
import type { BillingCode } from './types.js';

/** An OpenAI error body. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Builds an OpenAI error body. */
export function openaiError(message: string, type: string, param: string | null = null, code: string | null = null): OpenAIErrorBody {
  return { error: { message, type, param, code } };
}

/** The key as OpenAI echoes it in a 401: its first 3 and last 4 characters around stars (all stars when short). */
export function maskKey(key: string): string {
  if (key.length < 12) return '*'.repeat(key.length);
  return `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`;
}

/** 401 without an Authorization header. */
export function missingKey(): OpenAIErrorBody {
  return openaiError(
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with a blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
    'invalid_request_error',
  );
}

/** 401 for an unknown key; the key is echoed masked, as the real server does. */
export function invalidKey(key: string): OpenAIErrorBody {
  return openaiError(
    `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    'invalid_request_error',
    null,
    'invalid_api_key',
  );
}

/** 404 for an unknown model. */
export function modelNotFound(model: string): OpenAIErrorBody {
  return openaiError(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', null, 'model_not_found');
}

/** 400 for a body that is not JSON. */
export function invalidJson(): OpenAIErrorBody {
  return openaiError(
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
    'invalid_request_error',
  );
}

/** 400 when the prompt exceeds the context window. */
export function contextTooLong(limit: number, tokens: number): OpenAIErrorBody {
  return openaiError(
    `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    'invalid_request_error',
    'messages',
    'context_length_exceeded',
  );
}

/** 400 for `reasoning_effort: "none"` on a model that always reasons. */
export function effortNoneUnsupported(): OpenAIErrorBody {
  return openaiError(
    "Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'minimal', 'low', 'medium', and 'high'.",
    'invalid_request_error',
    'reasoning_effort',
    'unsupported_value',
  );
}

/** The 5xx (and capacity 429) bodies of a server in trouble. */
export function serverError(status: number): OpenAIErrorBody {
  if (status === 503) return openaiError('The server is overloaded or not ready yet.', 'server_error');
  if (status === 500) return openaiError('The server had an error while processing your request. Sorry about that!', 'server_error');
  if (status === 429) return openaiError('The engine is currently overloaded, please try again later.', 'server_error');
  if (status === 504) return openaiError('Request timed out.', 'server_error');
  return openaiError(`Simulated error ${status}.`, status >= 500 ? 'server_error' : 'invalid_request_error');
}

const INSUFFICIENT_QUOTA =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.';

/**
 * The billing 429: `insufficient_quota` verbatim (fixture 429-insufficient-quota.json); the newer codes with the same
 * shape and an [INFERRED] message naming the code.
 */
export function billingExhausted(code: BillingCode): OpenAIErrorBody {
  if (code === 'insufficient_quota') return openaiError(INSUFFICIENT_QUOTA, 'insufficient_quota', null, 'insufficient_quota');
  const what = code.replace(/_/g, ' ');
  return openaiError(`Your request was refused: ${what}. Add credits or raise the limit in the billing settings to continue.`, code, null, code);
}

/** Which limit a rate-limit 429 names: `requests per min (RPM)` etc., and its `type`. */
const DIMENSION_LABELS = {
  rpm: { label: 'requests per min (RPM)', type: 'requests' },
  tpm: { label: 'tokens per min (TPM)', type: 'tokens' },
  rpd: { label: 'requests per day (RPD)', type: 'requests' },
  tpd: { label: 'tokens per day (TPD)', type: 'tokens' },
} as const;

/** What a rate-limit 429 says. */
export interface RateLimitFacts {
  model: string;
  project: string;
  dimension: keyof typeof DIMENSION_LABELS;
  limit: number;
  used: number;
  requested: number;
  waitMs: number;
}

/**
 * The temporary 429 (fixture 429-rate-limit-exceeded-tokens.json): "Rate limit reached for M in organization P on
 * tokens per min (TPM): Limit L, Used U, Requested R. Please try again in 140ms." with `code: rate_limit_exceeded`.
 */
export function rateLimited(f: RateLimitFacts): OpenAIErrorBody {
  const d = DIMENSION_LABELS[f.dimension];
  return openaiError(
    `Rate limit reached for ${f.model} in organization ${f.project} on ${d.label}: Limit ${f.limit}, Used ${Math.round(f.used)}, Requested ${f.requested}. Please try again in ${goDuration(f.waitMs)}.`,
    d.type,
    null,
    'rate_limit_exceeded',
  );
}

/**
 * Bodies of the OpenAI dialect a script's `error` may name, with their HTTP status: verbatim copies of
 * test/fixtures/openai/ (the rate-limit one with the reference's `…` for the model).
 */
export const NAMED_OPENAI_BODIES: Record<string, { status: number; body: () => unknown }> = {
  'openai-429-rate-limit-exceeded': {
    status: 429,
    body: () =>
      openaiError(
        'Rate limit reached for … on tokens per min (TPM): Limit 30000, Used 29950, Requested 120. Please try again in 140ms.',
        'tokens',
        null,
        'rate_limit_exceeded',
      ),
  },
  'openai-429-insufficient-quota': { status: 429, body: () => billingExhausted('insufficient_quota') },
  'compat-429-bare-array': {
    status: 429,
    body: () => [{ error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } }],
  },
  'compat-400-unknown-field-array': {
    status: 400,
    body: () => {
      const message = 'Invalid JSON payload received. Unknown name "web_search_options": Cannot find field.';
      return [{ error: { code: 400, message, status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ description: message }] }] } }];
    },
  },
};
