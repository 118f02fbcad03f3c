/**
 * What the Dispatcher tests (test/schedule/*) share around a Dispatcher on fake timers: the clock they start at, a
 * provider calendar in UTC, a fake answer that comes after a delay, and driving the fake clock until the run ends.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import type { QuotaDay } from '../../src/providers/contract.js';
import type { DispatchEnd } from '../../src/schedule/dispatcher.js';

/** The fake clock's start: noon UTC on 2026-11-29 (ms). */
export const T0 = Date.parse('2026-11-29T12:00:00Z');

/** A provider calendar of its own: days in UTC. */
export const utcDay: QuotaDay = {
  zone: 'UTC',
  dayOf: (ms) => new Date(ms).toISOString().slice(0, 10),
  nextBoundary: (ms) => (Math.floor(ms / 86_400_000) + 1) * 86_400_000,
  clock: (ms) => new Date(ms).toISOString(),
};

/** Registers, in the enclosing describe, fake timers starting at `now` (ms) before each test and real ones after. */
export function useFakeClock(now: number = T0): void {
  beforeEach(() => {
    vi.useFakeTimers({ now });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

/**
 * A fake provider's answer `delayMs` after the call (on the fake clock): what `outcome` returns then, or what it throws
 * as the rejection.
 */
export function answerAfter<T>(delayMs: number, outcome: () => T): Promise<T> {
  return new Promise((resolve, reject) => {
    setTimeout(() => {
      try {
        resolve(outcome());
      } catch (error) {
        reject(error);
      }
    }, delayMs);
  });
}

/**
 * Advances the fake clock `stepMs` at a time (at most 10,000 steps) until `done` settles, and returns how the run ended.
 * Throws when the dispatcher has not ended by then.
 */
export async function settle(done: Promise<DispatchEnd>, stepMs: number): Promise<DispatchEnd> {
  let end: DispatchEnd | undefined;
  void done.then((e) => (end = e));
  for (let i = 0; i < 10_000 && end === undefined; i++) await vi.advanceTimersByTimeAsync(stepMs);
  if (!end) throw new Error('dispatcher did not end');
  return end;
}
