/**
 * Turns whatever `@google/genai` threw into one of the typed failures of ../failures.ts.
 *
 * What the SDK throws (@google/genai 2.32.0, docs/providers.md "Gemini API" — docs/reference/gemini-api-facts.md §5.2, VERIFIED-RUN):
 * - `ApiError {name: 'ApiError', status, message}` for HTTP 400–599; `message` is the JSON body, or for a non-JSON
 *   body `{"error":{"message":"<text>","code":N,"status":"<statusText>"}}`;
 * - `TypeError: fetch failed` (cause: ECONNRESET, ECONNREFUSED, UND_ERR_SOCKET…) when no HTTP answer came;
 * - `AbortError` when our abort signal fired (timeout or cancel: ../failures.ts `sendWithDeadline` decides those).
 *
 * Status sources: https://ai.google.dev/gemini-api/docs/troubleshooting ; fixtures in test/fixtures/gemini/.
 */
import { redactSecrets, redactSecretsDeep } from '../../config/known-secrets.js';
import {
  ApiFailure,
  connectionFailureOf,
  describeHttpFailure,
  KeyFailure,
  ModelFailure,
  RateLimitFailure,
  RequestFailure,
  ServerFailure,
  ShedFailure,
} from '../failures.js';
import { bareRateLimit, readRateLimitDetails } from '../google-quota-failure.js';
import { parseRpcStatus, type RpcStatus } from '../google-rpc-status.js';

/**
 * Classifies a thrown value. Every text the failure carries (message, parsed body) has the known keys replaced by
 * their aliases first (../../config/known-secrets.ts): a 403 quotes the key it refused, and failures end in the
 * journal, the output, notices and quota-usage.json.
 * @param sharedQuota true on Vertex AI: a 429 naming no quota is shared capacity running short.
 * @param flex true when the request asked for the Flex tier: a 503 is a shed (ShedFailure), the tier's normal behaviour.
 */
export function classifyFailure(error: unknown, sharedQuota = false, flex = false): ApiFailure {
  if (error instanceof ApiFailure) return error;
  const status = httpStatusOf(error);
  if (status === undefined) return connectionFailureOf(error);
  const text = redactSecrets(error instanceof Error ? error.message : String(error));
  return failureForStatus(status, parseRpcStatus(text), text, sharedQuota, flex);
}

/**
 * Maps an HTTP status and parsed body to a failure. The known keys are replaced by their aliases in `raw` and `rpc`
 * (see {@link classifyFailure}), before the message is cut to length.
 * @param rawIn the raw body or message, used when `rpc` is null.
 * @param flex the request asked for the Flex tier: a 503 is a ShedFailure (docs/service-tiers.md).
 */
export function failureForStatus(status: number, rpcIn: RpcStatus | null, rawIn: string, sharedQuota = false, flex = false): ApiFailure {
  const raw = redactSecrets(rawIn);
  const rpc = rpcIn === null ? null : redactSecretsDeep(rpcIn);
  const message = describeHttpFailure(status, rpc?.status || undefined, rpc?.message || raw);
  const reason = refusalOf(rpc);
  if (status === 429) return new RateLimitFailure(message, rpc ? readRateLimitDetails(rpc, sharedQuota) : bareRateLimit(sharedQuota), rpc, reason);
  if (status === 503 && flex) return new ShedFailure(message, status, rpc, reason);
  if (status >= 500) return new ServerFailure(message, status, rpc, reason);
  if (status === 401 || status === 403 || isKeyInvalid(rpc)) return new KeyFailure(message, status, rpc, reason);
  if (status === 404) return new ModelFailure(message, rpc, reason);
  if (status === 408) return new ServerFailure(message, status, rpc, reason);
  return new RequestFailure(message, status, rpc, reason);
}

function isKeyInvalid(rpc: RpcStatus | null): boolean {
  return rpc?.details.some((d) => d.type === 'ErrorInfo' && d.reason === 'API_KEY_INVALID') ?? false;
}

function httpStatusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null | undefined)?.status;
  return typeof status === 'number' && status >= 400 ? status : undefined;
}

/**
 * A refusal's identity: google.rpc status name, ErrorInfo reasons and the fields BadRequest names — what two refusals
 * of the same option share, whatever row they quote (schedule/endpoint-health.ts compares it with the HTTP status).
 */
export function refusalOf(rpc: RpcStatus | null): string {
  const parts: string[] = [rpc?.status ?? ''];
  for (const detail of rpc?.details ?? []) {
    if (detail.type === 'ErrorInfo' && typeof detail.reason === 'string') parts.push(`reason=${detail.reason}`);
    if (detail.type === 'BadRequest' && Array.isArray(detail.fieldViolations)) {
      for (const v of detail.fieldViolations) {
        const field = (v as { field?: unknown } | null)?.field;
        if (typeof field === 'string') parts.push(`field=${field}`);
      }
    }
  }
  return parts.join('|');
}
