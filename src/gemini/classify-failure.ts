/**
 * Turns whatever `@google/genai` threw into one of the typed failures of ./api-failures.ts.
 *
 * What the SDK throws (@google/genai 2.32.0, ../shared/reference/gemini-api-facts.md §5.2, VERIFIED-RUN):
 * - `ApiError {name: 'ApiError', status, message}` for HTTP 400–599; `message` is the JSON body, or for a non-JSON
 *   body `{"error":{"message":"<text>","code":N,"status":"<statusText>"}}`;
 * - `TypeError: fetch failed` (cause: ECONNRESET, ECONNREFUSED, UND_ERR_SOCKET…) when no HTTP answer came;
 * - `AbortError` when our abort signal fired (timeout or cancel).
 */
import {
  ApiFailure,
  CancelledFailure,
  ConnectionFailure,
  KeyFailure,
  LOCAL_EXHAUSTION_CODES,
  ModelFailure,
  RateLimitFailure,
  RequestFailure,
  ServerFailure,
  TimeoutFailure,
} from './api-failures.js';
import { redactSecrets, redactSecretsDeep } from '../config/known-secrets.js';
import { readRateLimitDetails } from './quota-failure.js';
import { parseRpcStatus, type RpcStatus } from './rpc-status.js';

/** Why our own AbortController fired. */
export type AbortReason = { kind: 'timeout'; timeoutMs: number } | { kind: 'cancel' };

/**
 * Classifies a thrown value. Every text the failure carries (message, parsed body) has the known keys replaced by
 * their aliases first (../config/known-secrets.ts): a 403 quotes the key it refused, and failures end in the journal,
 * the output, notices and quota-usage.json.
 * @param error what the SDK call threw.
 * @param abortReason set when our signal fired: the abort wins over whatever error it caused.
 */
export function classifyFailure(error: unknown, abortReason?: AbortReason): ApiFailure {
  if (error instanceof ApiFailure) return error;
  if (abortReason?.kind === 'timeout') return new TimeoutFailure(abortReason.timeoutMs);
  if (abortReason?.kind === 'cancel') return new CancelledFailure();

  const status = httpStatusOf(error);
  if (status === undefined) {
    const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
    const code = cause?.code ?? (error as { code?: unknown } | undefined)?.code;
    const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
    return new ConnectionFailure(`connection failed: ${redactSecrets(detail)}`, { cause: error, local: typeof code === 'string' && LOCAL_EXHAUSTION_CODES.has(code) });
  }
  const text = redactSecrets(error instanceof Error ? error.message : String(error));
  return failureForStatus(status, parseRpcStatus(text), text);
}

/**
 * Maps an HTTP status and parsed body to a failure. Exported for clients that do their own fetch. The known keys are
 * replaced by their aliases in `raw` and `rpc` (see {@link classifyFailure}), before the message is cut to length.
 * @param raw the raw body or message, used when `rpc` is null.
 */
export function failureForStatus(status: number, rpcIn: RpcStatus | null, rawIn: string): ApiFailure {
  const raw = redactSecrets(rawIn);
  const rpc = rpcIn === null ? null : redactSecretsDeep(rpcIn);
  const message = describe(status, rpc, raw);
  if (status === 429) {
    return new RateLimitFailure(message, rpc, rpc ? readRateLimitDetails(rpc) : { violations: [], retryDelayMs: undefined, limitZero: false });
  }
  if (status >= 500) return new ServerFailure(message, status, rpc);
  if (status === 401 || status === 403 || isKeyInvalid(rpc)) return new KeyFailure(message, status, rpc);
  if (status === 404) return new ModelFailure(message, rpc);
  if (status === 408) return new ServerFailure(message, status, rpc);
  return new RequestFailure(message, status, rpc);
}

function isKeyInvalid(rpc: RpcStatus | null): boolean {
  return rpc?.details.some((d) => d.type === 'ErrorInfo' && d.reason === 'API_KEY_INVALID') ?? false;
}

function httpStatusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null | undefined)?.status;
  return typeof status === 'number' && status >= 400 ? status : undefined;
}

/** One line for the `error` column: `HTTP 503 UNAVAILABLE: The model is overloaded…`. */
function describe(status: number, rpc: RpcStatus | null, raw: string): string {
  const text = (rpc?.message || raw).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  const name = rpc?.status ? ` ${rpc.status}` : '';
  return `HTTP ${status}${name}: ${text.length > 300 ? `${text.slice(0, 299)}…` : text || 'no body'}`;
}
