import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUT_MS, FLEX_TIMEOUT_BOUNDS, MAX_TIMEOUT_MS, RequestTimeout } from '../../src/schedule/request-timeout.js';

describe('RequestTimeout', () => {
  it('--timeout fixes it whatever the answers', () => {
    const t = new RequestTimeout(5_000);
    t.answered(100_000);
    t.timedOut(5_000);
    expect(t.ms).toBe(5_000);
  });

  it('by default: 60 s, then three times the longest recent answer, at most 10 minutes', () => {
    const t = new RequestTimeout(undefined);
    expect(t.ms).toBe(DEFAULT_TIMEOUT_MS);
    t.answered(5_000);
    expect(t.ms).toBe(DEFAULT_TIMEOUT_MS);
    t.answered(45_000);
    expect(t.ms).toBe(135_000);
    t.answered(400_000);
    expect(t.ms).toBe(MAX_TIMEOUT_MS);
  });

  it('doubles after a timeout, so that answers slower than every one seen so far still come', () => {
    const t = new RequestTimeout(undefined);
    t.timedOut(t.ms);
    expect(t.ms).toBe(120_000);
    t.timedOut(t.ms);
    expect(t.ms).toBe(240_000);
  });

  it('Flex requests wait at least 10 minutes, three times the longest answer above that, at most 30 minutes', () => {
    const t = new RequestTimeout(undefined, FLEX_TIMEOUT_BOUNDS);
    expect(t.ms).toBe(600_000);
    t.answered(5_000);
    expect(t.ms).toBe(600_000);
    t.answered(300_000);
    expect(t.ms).toBe(900_000);
    t.timedOut(t.ms);
    expect(t.ms).toBe(FLEX_TIMEOUT_BOUNDS.capMs);
    expect(FLEX_TIMEOUT_BOUNDS.capMs).toBeGreaterThan(MAX_TIMEOUT_MS);
  });
});
