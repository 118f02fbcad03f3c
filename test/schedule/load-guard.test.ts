import { describe, expect, it } from 'vitest';
import { LOAD_CAP_MIN, LOAD_INTERVAL_MS, LoadGuard } from '../../src/schedule/load-guard.js';

describe('LoadGuard', () => {
  it('caps requests in flight while the event loop is saturated, and lifts the cap once it is not', () => {
    let busy = 1;
    const guard = new LoadGuard(() => busy);
    let t = 0;
    const step = (inFlight: number) => guard.update((t += LOAD_INTERVAL_MS), inFlight, 5_000);
    expect(step(4_000)).toBe(2_800);
    expect(step(2_800)).toBe(Math.floor(0.7 * 2_800));
    for (let i = 0; i < 30; i++) step(guard.cap === Infinity ? 4_000 : guard.cap);
    expect(guard.cap).toBe(LOAD_CAP_MIN);
    busy = 0.05;
    for (let i = 0; i < 200 && guard.cap !== Infinity; i++) step(guard.cap);
    expect(guard.cap).toBe(Infinity);
  });

  it('a busy loop with few requests in flight changes nothing (the work is not ours to shed)', () => {
    const guard = new LoadGuard(() => 1);
    expect(guard.update(1_000, 10, 5_000)).toBe(Infinity);
  });

  it('reads at most every interval', () => {
    let reads = 0;
    const guard = new LoadGuard(() => {
      reads++;
      return 1;
    });
    guard.update(0, 1_000, 5_000);
    guard.update(LOAD_INTERVAL_MS - 1, 1_000, 5_000);
    expect(reads).toBe(1);
  });
});
