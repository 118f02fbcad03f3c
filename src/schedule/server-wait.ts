/**
 * How long we honour a wait a server asks for (retry-after, retry-after-ms, x-ratelimit-reset-*, Gemini's RetryInfo
 * retryDelay, "Please try again in …"): at most {@link SERVER_WAIT_CAP_MS}, then one request probes again.
 *
 * Why five minutes: the limits these waits describe are per minute (Gemini's RPM/TPM, OpenAI's RPM/TPM; a window
 * refills within 60 s, docs/rate-limits.md, docs/providers.md), so a real wait is seconds to a minute. A longer one is
 * a longer-period limit or a broken server (a tester's proxy sent `retry-after: 99999999`, over three years). Daily
 * quotas do not depend on this: a 429 naming a per-day limit parks the project until the provider's day boundary
 * (./rate-limit-policy.ts). Probing every five minutes costs one request per project each time, 12 an hour; waiting
 * what such a server says would hang the run. Above this cap the project pauses for the cap and says so once.
 */

/** The longest server-asked wait we honour before probing again, ms (5 min). */
export const SERVER_WAIT_CAP_MS = 5 * 60_000;

/** A server's wait, ms, capped at {@link SERVER_WAIT_CAP_MS}; undefined stays undefined, NaN and negatives become 0. */
export function capServerWait(waitMs: number | undefined): number | undefined {
  if (waitMs === undefined) return undefined;
  if (Number.isNaN(waitMs) || waitMs < 0) return 0;
  return Math.min(waitMs, SERVER_WAIT_CAP_MS);
}

/** A wait as a person reads it: `27 h 46 min`, `3 min 20 s`, `12 s`, `3 years`. */
export function describeWait(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s >= 2 * 365 * 86_400) return `${Math.round(s / (365 * 86_400))} years`;
  if (s >= 2 * 86_400) return `${Math.round(s / 86_400)} days`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${s} s`;
}
