/**
 * Typed failures of one model request, the same for every provider, after openai-node's error hierarchy: callers
 * branch on the class (`instanceof RateLimitFailure`), never on message text. Each carries a stable `code`, the HTTP
 * status when one came, and the provider's parsed error kept aside (`raw`) — never a key: adapters redact known
 * secrets before they build a failure.
 *
 * | class                 | when                                                        | retried?                        |
 * |-----------------------|-------------------------------------------------------------|---------------------------------|
 * | RateLimitFailure      | HTTP 429 (Gemini RESOURCE_EXHAUSTED, OpenAI rate_limit_exceeded) | as its {@link RateLimitDetails} say (schedule/rate-limit-policy.ts) |
 * | BillingFailure        | the account cannot pay (OpenAI insufficient_quota and its family) | never: the run stops, rows pending (exit 3) |
 * | ServerFailure         | 500, 502, 503, 504, other 5xx, non-JSON proxy pages         | backoff with jitter             |
 * | ShedFailure           | 503 to a Flex-tier request: load shed, the tier's normal behaviour | backoff; never fails a row   |
 * | ConnectionFailure     | network error, reset, refused (no HTTP status); `local` when our own sockets ran out (EMFILE…) | backoff with jitter |
 * | TimeoutFailure        | no answer within --timeout; we aborted it                   | backoff with jitter             |
 * | KeyFailure            | the credential is refused (400 API_KEY_INVALID, 401, 403)   | on another key                  |
 * | ModelFailure          | 404 for the model                                           | never: the job stops            |
 * | RequestFailure        | any other 4xx (INVALID_ARGUMENT, context too long…)         | never                           |
 * | CancelledFailure      | our own cancellation (Ctrl-C)                               | the row stays pending           |
 */
import { redactSecrets } from '../config/known-secrets.js';

/**
 * A 429, neutral: what was hit and what to do about it. The adapter reads its provider's evidence (Gemini quotaIds,
 * quotaValue and retryDelay; OpenAI headers and codes; Vertex's bare "Resource exhausted") into these fields; the
 * scheduler reads only these, never a quotaId or a message.
 */
export interface RateLimitDetails {
  /** The limits the 429 names (a Gemini 429 may name several quotaIds); empty when it names none (a bare 429). */
  hits: RateLimitHit[];
  /** How long the server asks to wait, ms: retryDelay, retry-after-ms, retry-after, a reset header, the message text. */
  waitMs: number | undefined;
  /** The model has no quota here at all (`limit: 0`): retrying never helps. */
  noQuota: boolean;
  /**
   * `project`: the caller's own quota (per project or account). `shared-capacity`: capacity shared with other customers
   * is short (Vertex Dynamic Shared Quota, a gateway's bare 429): back off and adapt, never a daily stop, never a
   * lowered limit.
   */
  scope: 'project' | 'shared-capacity';
}

/** One limit a 429 names. */
export interface RateLimitHit {
  /** What is counted. */
  dimension: 'requests' | 'input-tokens' | 'unknown';
  /** `day`: park until the provider's day boundary; undefined when the evidence does not say. */
  period: 'minute' | 'day' | undefined;
  /** The server's own figure for the limit (quotaValue, x-ratelimit-limit-*), when given. */
  limit: number | undefined;
  /** The provider's name for it (a quotaId, an error code), for notices and reports. */
  id: string | undefined;
}

/** The stable `code` of each {@link ApiFailure} class, one per class; a code not listed here does not compile. */
export type ApiFailureCode =
  | 'API_RATE_LIMITED'
  | 'API_BILLING_EXHAUSTED'
  | 'API_SERVER_ERROR'
  | 'API_SHED'
  | 'API_CONNECTION_ERROR'
  | 'API_TIMEOUT'
  | 'API_KEY_REFUSED'
  | 'API_MODEL_NOT_FOUND'
  | 'API_BAD_REQUEST'
  | 'API_CANCELLED';

/** Base class of request failures. `httpStatus` is undefined when no HTTP answer came. */
export class ApiFailure extends Error {
  readonly code: ApiFailureCode;
  readonly httpStatus: number | undefined;
  /** The provider's parsed error body (Gemini google.rpc.Status, OpenAI `error`), secrets redacted; null when none. */
  readonly raw: unknown;
  /**
   * What two refusals of the same kind share whatever row they quote (status name, error reasons, the fields named):
   * compared by schedule/endpoint-health.ts, never shown. Empty when the provider says nothing more than the status.
   */
  readonly reason: string;

  constructor(code: ApiFailureCode, message: string, httpStatus: number | undefined, raw: unknown = null, reason = '', options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.httpStatus = httpStatus;
    this.raw = raw;
    this.reason = reason;
  }
}

/** HTTP 429. `details` says which limit, its value, and how long to wait. */
export class RateLimitFailure extends ApiFailure {
  readonly details: RateLimitDetails;
  constructor(message: string, details: RateLimitDetails, raw: unknown = null, reason = '') {
    super('API_RATE_LIMITED', message, 429, raw, reason);
    this.details = details;
  }
}

/**
 * The account cannot pay for more requests (OpenAI `insufficient_quota`, `credit_balance_exhausted`, spend limits):
 * nothing changes until billing does. The run stops, unfinished rows stay pending (exit 3).
 */
export class BillingFailure extends ApiFailure {
  constructor(message: string, httpStatus: number, raw: unknown = null, reason = '') {
    super('API_BILLING_EXHAUSTED', message, httpStatus, raw, reason);
  }
}

/** 5xx, or a body that is not the provider's (an HTML 502 from a proxy). Transient. */
export class ServerFailure extends ApiFailure {
  constructor(message: string, httpStatus: number, raw: unknown = null, reason = '') {
    super('API_SERVER_ERROR', message, httpStatus, raw, reason);
  }
}

/**
 * A Flex-tier request shed by the server (HTTP 503 UNAVAILABLE to `serviceTier: "flex"`): best-effort capacity was
 * short, which is the tier's normal behaviour (docs/service-tiers.md), not an outage. Retried with backoff without
 * counting against the row's attempts (schedule/failure-policy.ts); a run stops only when sheds go on without any
 * answer for a long time (schedule/endpoint-health.ts).
 */
export class ShedFailure extends ServerFailure {
  override readonly code = 'API_SHED';
}

/**
 * Socket error codes that mean our own machine ran out of something (file descriptors, local ports, buffers, memory),
 * not that the server or the network failed: the request never left. Source: errno(3), Linux and macOS.
 */
export const LOCAL_EXHAUSTION_CODES: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'EADDRNOTAVAIL', 'ENOBUFS', 'ENOMEM']);

/** No HTTP answer: connection refused or reset, socket closed, DNS. Transient. */
export class ConnectionFailure extends ApiFailure {
  /** True when our own process or machine ran out of sockets or memory ({@link LOCAL_EXHAUSTION_CODES}). */
  readonly local: boolean;
  constructor(message: string, options?: ErrorOptions & { local?: boolean }) {
    super('API_CONNECTION_ERROR', message, undefined, null, '', options);
    this.local = options?.local ?? false;
  }
}

/** We aborted the request after `timeoutMs` without an answer. Transient. */
export class TimeoutFailure extends ApiFailure {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super('API_TIMEOUT', `no answer within ${timeoutMs / 1000} s (--timeout)`, undefined);
    this.timeoutMs = timeoutMs;
  }
}

/** The credential is refused (400 API_KEY_INVALID, 401, 403 PERMISSION_DENIED). Other keys may still work. */
export class KeyFailure extends ApiFailure {
  constructor(message: string, httpStatus: number, raw: unknown = null, reason = '') {
    super('API_KEY_REFUSED', message, httpStatus, raw, reason);
  }
}

/** 404: the model does not exist or does not support this call. No row can succeed. */
export class ModelFailure extends ApiFailure {
  constructor(message: string, raw: unknown = null, reason = '') {
    super('API_MODEL_NOT_FOUND', message, 404, raw, reason);
  }
}

/** Any other 4xx: the request itself is wrong for this row (e.g. input over the context window). Not retried. */
export class RequestFailure extends ApiFailure {
  constructor(message: string, httpStatus: number, raw: unknown = null, reason = '') {
    super('API_BAD_REQUEST', message, httpStatus, raw, reason);
  }
}

/** Our own cancellation (Ctrl-C): the request was abandoned, not failed. */
export class CancelledFailure extends ApiFailure {
  constructor() {
    super('API_CANCELLED', 'cancelled', undefined);
  }
}

/** Why our own AbortController fired: a timeout, or a cancel. */
export type AbortReason = { kind: 'timeout'; timeoutMs: number } | { kind: 'cancel' };

/**
 * The failure of a request our own signal aborted, whatever error the abort caused in the client: the abort wins.
 * @returns undefined when we did not abort it.
 */
export function abortedFailure(abortReason: AbortReason | undefined): ApiFailure | undefined {
  if (abortReason?.kind === 'timeout') return new TimeoutFailure(abortReason.timeoutMs);
  if (abortReason?.kind === 'cancel') return new CancelledFailure();
  return undefined;
}

/** One line for the `error` column: `HTTP 503 UNAVAILABLE: The model is overloaded…`, HTML tags stripped, cut to 300 characters. */
export function describeHttpFailure(status: number, name: string | undefined, text: string): string {
  const clean = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return `HTTP ${status}${name ? ` ${name}` : ''}: ${clean.length > 300 ? `${clean.slice(0, 299)}…` : clean || 'no body'}`;
}

/**
 * A failure without an HTTP answer (fetch's `TypeError: fetch failed` with the socket error as `cause`): a
 * ConnectionFailure, `local` when our own machine ran out of sockets or memory. Known secrets are redacted from the text.
 */
export function connectionFailureOf(error: unknown): ConnectionFailure {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const code = cause?.code ?? (error as { code?: unknown } | undefined)?.code;
  const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new ConnectionFailure(`connection failed: ${redactSecrets(detail)}`, { cause: error, local: typeof code === 'string' && LOCAL_EXHAUSTION_CODES.has(code) });
}

/**
 * Runs one request under our own AbortController: aborted after `timeoutMs` (TimeoutFailure) or when `signal` aborts
 * (CancelledFailure); any other error goes through `classify`. Every adapter sends this way.
 * @param send gets the signal to give the client.
 * @param classify turns what the client threw into an ApiFailure.
 * @throws ApiFailure subclasses only.
 */
export async function sendWithDeadline<T>(
  signal: AbortSignal | undefined,
  timeoutMs: number,
  send: (signal: AbortSignal) => Promise<T>,
  classify: (error: unknown) => ApiFailure,
): Promise<T> {
  const controller = new AbortController();
  let abortReason: AbortReason | undefined;
  const timer = setTimeout(() => {
    abortReason = { kind: 'timeout', timeoutMs };
    controller.abort();
  }, timeoutMs);
  const onCancel = () => {
    abortReason ??= { kind: 'cancel' };
    controller.abort();
  };
  if (signal?.aborted) onCancel();
  signal?.addEventListener('abort', onCancel, { once: true });
  try {
    return await send(controller.signal);
  } catch (error) {
    if (error instanceof ApiFailure) throw error;
    throw abortedFailure(abortReason) ?? classify(error);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
  }
}
