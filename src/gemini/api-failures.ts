/**
 * Typed failures of one generateContent request, after openai-node's error hierarchy: callers branch on the class
 * (`instanceof RateLimitFailure`), never on message text. Each carries a stable `code`.
 *
 * | class                 | when                                                        | retried?                        |
 * |-----------------------|-------------------------------------------------------------|---------------------------------|
 * | RateLimitFailure      | HTTP 429 RESOURCE_EXHAUSTED                                 | by quotaId (see schedule/)      |
 * | ServerFailure         | 500, 502, 503, 504, other 5xx, non-JSON proxy pages         | backoff with jitter             |
 * | ConnectionFailure     | network error, reset, refused (no HTTP status); `local` when our own sockets ran out (EMFILE…) | backoff with jitter |
 * | TimeoutFailure        | no answer within --timeout; we aborted it                   | backoff with jitter             |
 * | KeyFailure            | 400 API_KEY_INVALID, 401, 403: the key is refused           | on another key                  |
 * | ModelFailure          | 404 NOT_FOUND for the model                                 | never: the job stops            |
 * | RequestFailure        | any other 4xx (INVALID_ARGUMENT, context too long…)         | never                           |
 * Status sources: https://ai.google.dev/gemini-api/docs/troubleshooting ; fixtures in test/fixtures/gemini/.
 */
import type { RateLimitDetails } from './quota-failure.js';
import type { RpcStatus } from './rpc-status.js';

/** Base class of request failures. `httpStatus` is undefined when no HTTP answer came. */
export class ApiFailure extends Error {
  readonly code: string;
  readonly httpStatus: number | undefined;
  /** The parsed error body, when there was one. */
  readonly rpc: RpcStatus | null;

  constructor(code: string, message: string, httpStatus: number | undefined, rpc: RpcStatus | null, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.httpStatus = httpStatus;
    this.rpc = rpc;
  }
}

/** HTTP 429. `details` says which quota (quotaId), its limit (quotaValue) and the retryDelay. */
export class RateLimitFailure extends ApiFailure {
  readonly details: RateLimitDetails;
  constructor(message: string, rpc: RpcStatus | null, details: RateLimitDetails) {
    super('API_RATE_LIMITED', message, 429, rpc);
    this.details = details;
  }
}

/** 5xx, or a body that is not Google's (an HTML 502 from a proxy). Transient. */
export class ServerFailure extends ApiFailure {
  constructor(message: string, httpStatus: number, rpc: RpcStatus | null) {
    super('API_SERVER_ERROR', message, httpStatus, rpc);
  }
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
    super('API_CONNECTION_ERROR', message, undefined, null, options);
    this.local = options?.local ?? false;
  }
}

/** We aborted the request after `timeoutMs` without an answer. Transient. */
export class TimeoutFailure extends ApiFailure {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super('API_TIMEOUT', `no answer within ${timeoutMs / 1000} s (--timeout)`, undefined, null);
    this.timeoutMs = timeoutMs;
  }
}

/** The key is refused (400 API_KEY_INVALID, 401, 403 PERMISSION_DENIED). Other keys may still work. */
export class KeyFailure extends ApiFailure {
  constructor(message: string, httpStatus: number, rpc: RpcStatus | null) {
    super('API_KEY_REFUSED', message, httpStatus, rpc);
  }
}

/** 404: the model does not exist or does not support generateContent. No row can succeed. */
export class ModelFailure extends ApiFailure {
  constructor(message: string, rpc: RpcStatus | null) {
    super('API_MODEL_NOT_FOUND', message, 404, rpc);
  }
}

/** Any other 4xx: the request itself is wrong for this row (e.g. input over the context window). Not retried. */
export class RequestFailure extends ApiFailure {
  constructor(message: string, httpStatus: number, rpc: RpcStatus | null) {
    super('API_BAD_REQUEST', message, httpStatus, rpc);
  }
}

/** Our own cancellation (Ctrl-C): the request was abandoned, not failed. */
export class CancelledFailure extends ApiFailure {
  constructor() {
    super('API_CANCELLED', 'cancelled', undefined, null);
  }
}
