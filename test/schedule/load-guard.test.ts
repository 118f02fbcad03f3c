import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOAD_CAP_MIN, LOAD_INTERVAL_MS, LoadGuard } from '../../src/schedule/load-guard.js';

describe('LoadGuard', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('caps requests in flight while the event loop stays saturated, and lifts the cap once it is not', () => {
    let busy = 1;
    const guard = new LoadGuard(() => busy);
    expect(guard.step(4_000, 5_000)).toBe(2_800);
    expect(guard.step(2_800, 5_000)).toBe(Math.floor(0.7 * 2_800));
    for (let i = 0; i < 30; i++) guard.step(guard.cap, 5_000);
    expect(guard.cap).toBe(LOAD_CAP_MIN);
    busy = 0.05;
    for (let i = 0; i < 300 && guard.cap !== Infinity; i++) guard.step(guard.cap, 5_000);
    expect(guard.cap).toBe(Infinity);
  });

  it('a burst of work within an idle second is no saturation (the readings are averaged over a second)', () => {
    const readings = [0.05, 0.05, 0.05, 1, 0.05, 0.05, 0.05, 1];
    const guard = new LoadGuard(() => readings.shift() ?? 0.05);
    for (let i = 0; i < 8; i++) expect(guard.step(2_000, 5_000)).toBe(Infinity);
  });

  it('a busy loop with few requests in flight changes nothing (the work is not ours to shed)', () => {
    const guard = new LoadGuard(() => 1);
    expect(guard.step(10, 5_000)).toBe(Infinity);
  });

  it('reads on its own timer while watching, whatever the dispatcher does, and stops', () => {
    vi.useFakeTimers();
    let reads = 0;
    const guard = new LoadGuard(() => {
      reads++;
      return 1;
    });
    guard.watch(() => 1_000, () => 5_000);
    vi.advanceTimersByTime(4 * LOAD_INTERVAL_MS);
    expect(reads).toBe(4);
    expect(guard.cap).toBeLessThan(1_000);
    guard.stop();
    vi.advanceTimersByTime(4 * LOAD_INTERVAL_MS);
    expect(reads).toBe(4);
  });
});
