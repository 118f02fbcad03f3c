/**
 * What a 429 RESOURCE_EXHAUSTED says about the quota that was hit: which dimensions (quotaId), their limits
 * (quotaValue), and how long to wait (RetryInfo.retryDelay or the message's "Please retry in N s").
 * Sources: ../shared/reference/gemini-api-facts.md §1.4 (quotaId table), §2.2 (message formats), §2.3 (fixtures
 * test/fixtures/gemini/429-*.json).
 */
import type { RpcStatus } from './rpc-status.js';

/** The dimension a quotaId names. */
export type QuotaDimension = 'rpm' | 'tpm' | 'rpd' | 'tpd' | 'unknown';

/** One `QuotaFailure.violations[]` entry. */
export interface QuotaViolation {
  /** e.g. `GenerateRequestsPerMinutePerProjectPerModel-FreeTier`. */
  quotaId: string;
  dimension: QuotaDimension;
  /** The limit that was hit; absent in the body when it is 0 (proto3 omits defaults). */
  quotaValue: number | undefined;
  /** `quotaDimensions.model`, when given. */
  model: string | undefined;
}

/** Everything a 429 tells. */
export interface RateLimitDetails {
  violations: QuotaViolation[];
  /** Wait asked for by the server, ms: RetryInfo.retryDelay, else the message's "Please retry in". */
  retryDelayMs: number | undefined;
  /**
   * The model has no quota at all on this project ("limit: 0"): violations without quotaValue, or bullets that all say
   * `limit: 0` (fixture 429-f-limit-zero-new-format.json). Retrying never helps.
   */
  limitZero: boolean;
}

/**
 * Maps a quotaId to its dimension, e.g. `GenerateContentInputTokensPerModelPerMinute-FreeTier` → `tpm`,
 * `GenerateRequestsPerDayPerProjectPerModel` → `rpd`.
 */
export function dimensionOfQuotaId(quotaId: string): QuotaDimension {
  const tokens = /Token/i.test(quotaId);
  if (/PerDay/i.test(quotaId)) return tokens ? 'tpd' : 'rpd';
  if (/PerMinute/i.test(quotaId)) return tokens ? 'tpm' : 'rpm';
  return 'unknown';
}

/**
 * Parses a protobuf Duration in JSON form (`"26s"`, `"40.025771073s"`) or a message's `"900.2ms"` into ms.
 * @returns undefined when the text is not a duration.
 */
export function parseDurationMs(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$/.exec(text);
  if (!match) return undefined;
  const value = Number(match[1]);
  return match[2] === 'ms' ? value : value * 1000;
}

/** Reads the quota details of a 429 body. Never throws; missing parts are undefined or empty. */
export function readRateLimitDetails(status: RpcStatus): RateLimitDetails {
  const violations: QuotaViolation[] = [];
  let retryDelayMs: number | undefined;
  for (const detail of status.details) {
    if (detail.type === 'QuotaFailure' && Array.isArray(detail.violations)) {
      for (const raw of detail.violations as Array<Record<string, unknown>>) {
        const quotaId = typeof raw.quotaId === 'string' ? raw.quotaId : '';
        const dims = raw.quotaDimensions as Record<string, unknown> | undefined;
        const value = raw.quotaValue === undefined ? undefined : Number(raw.quotaValue);
        violations.push({
          quotaId,
          dimension: dimensionOfQuotaId(quotaId),
          quotaValue: value !== undefined && Number.isFinite(value) ? value : undefined,
          model: typeof dims?.model === 'string' ? dims.model : undefined,
        });
      }
    } else if (detail.type === 'RetryInfo' && typeof detail.retryDelay === 'string') {
      retryDelayMs = parseDurationMs(detail.retryDelay);
    }
  }
  const hinted = /Please retry in (\d+(?:\.\d+)?(?:ms|s))/.exec(status.message);
  // The message's fractional value is more precise than RetryInfo's whole seconds; take the larger.
  const messageDelay = hinted?.[1] ? parseDurationMs(hinted[1]) : undefined;
  if (messageDelay !== undefined) retryDelayMs = Math.max(retryDelayMs ?? 0, messageDelay);

  const bulletLimits = [...status.message.matchAll(/limit: (\d+)/g)].map((m) => Number(m[1]));
  const limitZero =
    (violations.length > 0 && violations.every((v) => v.quotaValue === undefined || v.quotaValue === 0)) ||
    (bulletLimits.length > 0 && bulletLimits.every((n) => n === 0));
  return { violations, retryDelayMs, limitZero };
}
