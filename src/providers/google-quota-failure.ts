/**
 * What a Gemini 429 RESOURCE_EXHAUSTED says about the quota that was hit, read into the neutral
 * {@link RateLimitDetails}: each QuotaFailure violation's quotaId becomes a dimension (requests or input tokens) and a
 * period (minute or day), its quotaValue the limit; RetryInfo.retryDelay or the message's "Please retry in N s" the
 * wait; violations without quotaValue, or bullets that all say `limit: 0`, mean the model has no quota here.
 * Sources: docs/providers.md "Gemini API" (docs/reference/gemini-api-facts.md §1.4 quotaId table, §2.2 message formats, §2.3 the
 * fixtures in test/fixtures/gemini/429-*.json).
 *
 * On Vertex AI (Dynamic Shared Quota, docs/providers.md "Vertex AI") a 429 without QuotaFailure details is shared
 * capacity running short, not a limit of the project: `scope: 'shared-capacity'`.
 *
 * Shared by two adapters (no SDK here): the Gemini adapter, and the OpenAI adapter for Gemini's compatibility endpoint,
 * whose errors are these same Google envelopes wrapped in a JSON array (docs/reference/gemini-api-facts.md §7).
 */
import type { RateLimitDetails, RateLimitHit } from './failures.js';
import type { RpcStatus } from './google-rpc-status.js';

/** The dimension and period a quotaId names. */
export interface QuotaIdMeaning {
  dimension: RateLimitHit['dimension'];
  period: RateLimitHit['period'];
}

/**
 * Maps a quotaId to what it counts and over which period, e.g. `GenerateContentInputTokensPerModelPerMinute-FreeTier`
 * → input tokens per minute, `GenerateRequestsPerDayPerProjectPerModel` → requests per day.
 */
export function meaningOfQuotaId(quotaId: string): QuotaIdMeaning {
  const period = /PerDay/i.test(quotaId) ? 'day' : /PerMinute/i.test(quotaId) ? 'minute' : undefined;
  if (period === undefined) return { dimension: 'unknown', period };
  return { dimension: /Token/i.test(quotaId) ? 'input-tokens' : 'requests', period };
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

/**
 * Reads the quota details of a 429 body. Never throws; missing parts are undefined or empty.
 * @param sharedQuota true on Vertex AI: a 429 naming no quota is shared capacity running short.
 */
export function readRateLimitDetails(status: RpcStatus, sharedQuota = false): RateLimitDetails {
  const hits: RateLimitHit[] = [];
  let waitMs: number | undefined;
  let withoutValue = 0;
  for (const detail of status.details) {
    if (detail.type === 'QuotaFailure' && Array.isArray(detail.violations)) {
      for (const raw of detail.violations as Array<Record<string, unknown>>) {
        const quotaId = typeof raw.quotaId === 'string' ? raw.quotaId : '';
        const value = raw.quotaValue === undefined ? undefined : Number(raw.quotaValue);
        const limit = value !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
        // proto3 omits a quotaValue of 0: a violation without one is a limit of 0.
        if (limit === undefined) withoutValue++;
        hits.push({ ...meaningOfQuotaId(quotaId), limit, id: quotaId || undefined });
      }
    } else if (detail.type === 'RetryInfo' && typeof detail.retryDelay === 'string') {
      waitMs = parseDurationMs(detail.retryDelay);
    }
  }
  const hinted = /Please retry in (\d+(?:\.\d+)?(?:ms|s))/.exec(status.message);
  // The message's fractional value is more precise than RetryInfo's whole seconds; take the larger.
  const messageDelay = hinted?.[1] ? parseDurationMs(hinted[1]) : undefined;
  if (messageDelay !== undefined) waitMs = Math.max(waitMs ?? 0, messageDelay);

  const bulletLimits = [...status.message.matchAll(/limit: (\d+)/g)].map((m) => Number(m[1]));
  const noQuota = (hits.length > 0 && withoutValue === hits.length) || (bulletLimits.length > 0 && bulletLimits.every((n) => n === 0));
  return { hits, waitMs, noQuota, scope: sharedQuota && hits.length === 0 ? 'shared-capacity' : 'project' };
}

/** The details of a 429 whose body is not Google's (no envelope at all). */
export function bareRateLimit(sharedQuota: boolean): RateLimitDetails {
  return { hits: [], waitMs: undefined, noQuota: false, scope: sharedQuota ? 'shared-capacity' : 'project' };
}
