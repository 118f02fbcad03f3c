/**
 * Reading an OpenAI-style server's limits and waits (src/providers/openai/rate-limit-hints.ts): Go durations (checked
 * against the simulator's formatter, written apart), the x-ratelimit-* headers of the reference fixture, and the order
 * of the wait's sources (retry-after-ms, retry-after, an exhausted dimension's reset, the message).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGoDuration, readLimitHints, retryWaitMs } from '../../../src/providers/openai/rate-limit-hints.js';
import { goDuration } from '../../../src/simulator/go-duration.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtureHeaders = new Headers(JSON.parse(readFileSync(path.join(here, '..', '..', 'fixtures', 'openai', 'rate-limit-headers.json'), 'utf8')));

describe('parseGoDuration', () => {
  it.each([
    ['140ms', 140],
    ['1s', 1000],
    ['1.5s', 1500],
    ['6m0s', 360_000],
    ['1h2m3.5s', 3_723_500],
    ['0s', 0],
    ['250us', 0.25],
    ['20', 20_000],
  ])('%s → %d ms', (text, ms) => expect(parseGoDuration(text)).toBeCloseTo(ms, 9));

  // A decimal reads back exactly, not as its binary product (1.001 × 1000 = 1000.9999999999999): found by the property
  // below, which the simulator's `1.001s` failed once in a full run.
  it.each([
    ['1.001s', 1001],
    ['17.087s', 17_087],
    ['1h0m0.001s', 3_600_001],
    ['2.3', 2300],
    ['1.5ms', 1.5],
  ])('%s is exactly %d ms', (text, ms) => expect(parseGoDuration(text)).toBe(ms));

  it.each(['', 'soon', '5 minutes', '1d', '-1s'])('%j is not a duration', (text) => expect(parseGoDuration(text)).toBeUndefined());

  it('reads back what the simulator writes, to the millisecond', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 30 * 3_600_000, noNaN: true }), (ms) => {
        expect(parseGoDuration(goDuration(ms))).toBe(ms <= 0 ? 0 : Math.max(1, Math.ceil(ms - 1e-9)));
      }),
    );
  });
});

describe('readLimitHints', () => {
  it('the reference headers: limits, remaining and resets of requests and tokens', () => {
    expect(readLimitHints(fixtureHeaders)).toEqual({
      requests: { limit: 60, remaining: 59, resetMs: 1000 },
      tokens: { limit: 150_000, remaining: 149_984, resetMs: 360_000 },
    });
  });

  it('no x-ratelimit-* headers: undefined; a limit of 0 or garbage is not a limit', () => {
    expect(readLimitHints(new Headers({ 'content-type': 'application/json' }))).toBeUndefined();
    expect(readLimitHints(new Headers({ 'x-ratelimit-limit-requests': '0', 'x-ratelimit-remaining-requests': 'many' }))).toBeUndefined();
  });
});

describe('retryWaitMs', () => {
  it('retry-after-ms first, then retry-after (seconds or a date), then an exhausted reset, then the message', () => {
    const message = 'Rate limit reached … Please try again in 140ms.';
    expect(retryWaitMs(new Headers({ 'retry-after-ms': '250.5', 'retry-after': '9' }), message)).toBe(250.5);
    expect(retryWaitMs(new Headers({ 'retry-after': '9' }), message)).toBe(9000);
    const now = Date.parse('2026-12-01T00:00:00Z');
    expect(retryWaitMs(new Headers({ 'retry-after': 'Tue, 01 Dec 2026 00:00:30 GMT' }), message, now)).toBe(30_000);
    const exhausted = new Headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '2s', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '6m0s' });
    expect(retryWaitMs(exhausted, message)).toBe(360_000);
    // A reset of a dimension with room left says nothing about this 429.
    expect(retryWaitMs(fixtureHeaders, message)).toBe(140);
    expect(retryWaitMs(new Headers(), 'Please try again in 6m0s.')).toBe(360_000);
    expect(retryWaitMs(new Headers(), 'Too many requests')).toBeUndefined();
  });
});
