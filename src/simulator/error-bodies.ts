/**
 * Non-quota error bodies, as google.rpc.Status JSON `{"error":{code,message,status,details?}}`.
 * Wording is verbatim from the fixtures in test/fixtures/gemini/ (sources in its README and
 * docs/reference/gemini-api-facts.md §3); only the model name and the token limit are filled in.
 */
import { NAMED_OPENAI_BODIES } from './openai-bodies.js';

/** A google.rpc.Status error body. */
export interface RpcErrorBody {
  error: { code: number; message: string; status: string; details?: unknown[] };
}

/** Canonical google.rpc.Code names by HTTP status (https://ai.google.dev/gemini-api/docs/troubleshooting). */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Builds `{"error":{code,message,status[,details]}}`; `status` defaults to the canonical name of `code`. */
export function rpcError(code: number, message: string, status?: string, details?: unknown[]): RpcErrorBody {
  const error: RpcErrorBody['error'] = { code, message, status: status ?? STATUS_NAMES[code] ?? 'UNKNOWN' };
  if (details) error.details = details;
  return { error };
}

const INVALID_KEY = 'API key not valid. Please pass a valid API key.';

/** 400 API_KEY_INVALID (fixture 400-api-key-invalid.json; continuedev/continue#9330). */
export function apiKeyInvalid(): RpcErrorBody {
  return rpcError(400, INVALID_KEY, 'INVALID_ARGUMENT', [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'API_KEY_INVALID',
      domain: 'googleapis.com',
      metadata: { service: 'generativelanguage.googleapis.com' },
    },
    { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: INVALID_KEY },
  ]);
}

/** 403 for a request without any key (fixture 403-missing-key.json; PublicAffairs/openai-gemini#92). */
export function missingKey(): RpcErrorBody {
  return rpcError(
    403,
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  );
}

/** 403 for a key reported as leaked (fixture 403-leaked-key.json; continuedev/continue#11541). */
export function leakedKey(): RpcErrorBody {
  return rpcError(403, 'Your API key was reported as leaked. Please use another API key.');
}

/** 404 for an unknown model (fixture 404-model-not-found.json; continuedev/continue#9939). */
export function modelNotFound(model: string, apiVersion: string, method = 'generateContent'): RpcErrorBody {
  return rpcError(
    404,
    `models/${model} is not found for API version ${apiVersion}, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
  );
}

/** 400 when promptTokenCount exceeds the context window (fixture 400-context-too-long.json; gemini-cli#15184). */
export function contextTooLong(limit: number): RpcErrorBody {
  return rpcError(400, `The input token count exceeds the maximum number of tokens allowed ${limit}.`);
}

/** 400 for thinkingBudget 0 on a model that always thinks (fixture 400-thinking-budget-zero.json). */
export function thinkingBudgetZero(): RpcErrorBody {
  return rpcError(400, 'Budget 0 is invalid. This model only works in thinking mode.');
}

/** 400 for a body that is not JSON (wording of the real API's proto JSON parser). */
export function invalidJson(detail: string): RpcErrorBody {
  return rpcError(400, `Invalid JSON payload received. ${detail}`);
}

/** 400 for a request without contents. */
export function contentsMissing(): RpcErrorBody {
  return rpcError(400, '* GenerateContentRequest.contents: contents is not specified\n');
}

/** 404 for a path the simulator does not serve. */
export function notFoundPath(path: string): RpcErrorBody {
  return rpcError(404, `Method not found: ${path}`);
}

/** 503 "overloaded" (fixture 503-overloaded.json; gemini-cli#5191). */
export function overloaded(): RpcErrorBody {
  return rpcError(503, 'The model is overloaded. Please try again later.');
}

/** 503 "high demand", the 2026 wording (fixture 503-high-demand.json; continuedev/continue#10903). */
export function highDemand(): RpcErrorBody {
  return rpcError(
    503,
    'This model is currently experiencing high demand. Spikes in demand are usually temporary. Please try again later.',
  );
}

/** 500 INTERNAL (fixture 500-internal.json; PublicAffairs/openai-gemini#15). */
export function internalError(): RpcErrorBody {
  return rpcError(
    500,
    'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  );
}

/** 504 DEADLINE_EXCEEDED; the body is [INFERRED] (fixture 504-deadline-inferred.json). */
export function deadlineExceeded(): RpcErrorBody {
  return rpcError(504, 'Deadline expired before operation could complete.');
}

/** 429 capacity without details (fixture 429-h-bare-capacity.json; gemini-cli#2020). */
export function bareCapacity(): RpcErrorBody {
  return rpcError(429, 'Resource has been exhausted (e.g. check quota).');
}

/** The HTML page a Google front end serves for a 502 (Content-Type text/html), not JSON. */
export const HTML_502 =
  '<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <meta name=viewport content="initial-scale=1, minimum-scale=1, width=device-width">\n' +
  '  <title>Error 502 (Server Error)!!1</title>\n  <a href=//www.google.com/><span id=logo aria-label=Google></span></a>\n' +
  '  <p><b>502.</b> <ins>That’s an error.</ins>\n  <p>The server encountered a temporary error and could not complete your request.<p>Please try again in 30 seconds.  <ins>That’s all we know.</ins>\n';

/**
 * Bodies a script's `error` response may name with `fixture` (the fixture file names without `.json`).
 * `html-502` is served as text/html.
 */
export const NAMED_ERROR_BODIES: Record<string, () => RpcErrorBody> = {
  '400-api-key-invalid': apiKeyInvalid,
  '400-context-too-long': () => contextTooLong(1_048_576),
  '400-thinking-budget-zero': thinkingBudgetZero,
  '403-leaked-key': leakedKey,
  '403-missing-key': missingKey,
  '404-model-not-found': () => modelNotFound('gemini-pro', 'v1beta'),
  '429-h-bare-capacity': bareCapacity,
  '429-g-help-only': () =>
    rpcError(
      429,
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/rate-limit. ',
      'RESOURCE_EXHAUSTED',
      [
        {
          '@type': 'type.googleapis.com/google.rpc.Help',
          links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
        },
      ],
    ),
  '429-vertex-capacity-inferred': () =>
    rpcError(
      429,
      'Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.',
    ),
  '500-internal': internalError,
  '503-overloaded': overloaded,
  '503-high-demand': highDemand,
  '504-deadline-inferred': deadlineExceeded,
};

/**
 * The status and body of a fixture a script's `error` names: a Gemini one above, or an OpenAI-dialect one
 * (openai-bodies.ts NAMED_OPENAI_BODIES); undefined for an unknown name.
 */
export function namedFixture(name: string): { status: number; body: unknown } | undefined {
  const google = NAMED_ERROR_BODIES[name];
  if (google) {
    const body = google();
    return { status: body.error.code, body };
  }
  const other = NAMED_OPENAI_BODIES[name];
  return other ? { status: other.status, body: other.body() } : undefined;
}

/** The generic body for an HTTP status a script asks for without a fixture or body. */
export function genericError(status: number): RpcErrorBody {
  return rpcError(status, `Simulated error ${status}.`);
}
