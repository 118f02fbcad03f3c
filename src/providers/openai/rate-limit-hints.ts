/**
 * What an OpenAI-style server says about its limits and how long to wait (docs/reference/batch-openai-vertex-facts.md §b.2; fixtures
 * test/fixtures/openai/rate-limit-headers.json and 429-rate-limit-exceeded-tokens.json):
 * - `x-ratelimit-limit-requests/-tokens`, `x-ratelimit-remaining-…`, `x-ratelimit-reset-…` on every response, the
 *   resets as Go durations (`12ms`, `1s`, `6m0s`, `1h2m3.5s`);
 * - on a 429: `retry-after-ms` (ms, a float), `retry-after` (seconds, or an HTTP date), and "Please try again in
 *   140ms" / "1.5s" / "6m0s" in the message when the headers are stripped.
 */
import type { LimitHint, LimitHints } from '../contract.js';

const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, μs: 0.001, ns: 0.000_001 };
const GO_DURATION = /^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|μs|ns))+$/;

/**
 * Parses a Go duration (`6m0s`, `140ms`, `1.5s`, `1h2m3.5s`, `0s`) into ms; a bare number is taken as seconds. The
 * result is rounded to the nanosecond, Go's unit, so that a decimal written exactly reads back exactly (`1.001s` is
 * 1001 ms, not the 1000.9999999999999 of 1.001 × 1000).
 * @returns undefined when the text is not a duration.
 */
export function parseGoDuration(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(t)) return toNanosecond(Number(t) * 1000);
  if (!GO_DURATION.test(t)) return undefined;
  let ms = 0;
  for (const [, n, unit] of t.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|μs|ns)/g)) ms += Number(n) * UNIT_MS[unit!]!;
  return toNanosecond(ms);
}

/** `ms` rounded to a whole nanosecond (exact below 2^53 ns, about 104 days). */
function toNanosecond(ms: number): number {
  return Math.round(ms * 1e6) / 1e6;
}

/** A minimal view of response headers (fetch's Headers has it). */
export interface HeaderSource {
  get(name: string): string | null;
}

function numberHeader(headers: HeaderSource, name: string): number | undefined {
  const v = headers.get(name);
  if (v === null || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function hint(headers: HeaderSource, kind: 'requests' | 'tokens'): LimitHint | undefined {
  const h: LimitHint = {};
  const limit = numberHeader(headers, `x-ratelimit-limit-${kind}`);
  const remaining = numberHeader(headers, `x-ratelimit-remaining-${kind}`);
  const reset = headers.get(`x-ratelimit-reset-${kind}`);
  const resetMs = reset === null ? undefined : parseGoDuration(reset);
  if (limit !== undefined && limit > 0) h.limit = limit;
  if (remaining !== undefined) h.remaining = remaining;
  if (resetMs !== undefined) h.resetMs = resetMs;
  return Object.keys(h).length > 0 ? h : undefined;
}

/** The x-ratelimit-* headers as {@link LimitHints}; undefined when the server sent none. */
export function readLimitHints(headers: HeaderSource): LimitHints | undefined {
  const requests = hint(headers, 'requests');
  const tokens = hint(headers, 'tokens');
  if (!requests && !tokens) return undefined;
  return { ...(requests ? { requests } : {}), ...(tokens ? { tokens } : {}) };
}

/**
 * How long a 429 asks to wait, ms, from the first source that says (the order of docs/reference/batch-openai-vertex-facts.md §b.3):
 * `retry-after-ms`, `retry-after` (seconds or an HTTP date, against `now`), the reset header of an exhausted dimension
 * (remaining 0; the longer when both are), then "try again in X" in the message.
 * @returns undefined when nothing says.
 */
export function retryWaitMs(headers: HeaderSource, message: string | undefined, now = Date.now()): number | undefined {
  const ms = numberHeader(headers, 'retry-after-ms');
  if (ms !== undefined) return ms;
  const after = headers.get('retry-after');
  if (after !== null && after.trim() !== '') {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const hints = readLimitHints(headers);
  let reset: number | undefined;
  for (const h of [hints?.requests, hints?.tokens]) {
    if (h?.remaining === 0 && h.resetMs !== undefined) reset = Math.max(reset ?? 0, h.resetMs);
  }
  if (reset !== undefined) return reset;
  const said = message ? /try again in ((?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|μs|ns))+)/i.exec(message) : null;
  return said ? parseGoDuration(said[1]!) : undefined;
}
