import { describe, expect, it } from 'vitest';
import { readRateLimitDetails, type RateLimitDetails } from '../../src/gemini/quota-failure.js';
import { parseRpcStatus } from '../../src/gemini/rpc-status.js';
import { nextPacificMidnight } from '../../src/schedule/pacific-day.js';
import { ProjectLimiter } from '../../src/schedule/project-limiter.js';
import type { LimitSource } from '../../src/schedule/quota-limits.js';
import { RateLimitPolicy, type Notice } from '../../src/schedule/rate-limit-policy.js';
import { fixtureText } from '../support/fixtures.js';

const T0 = Date.parse('2026-11-29T12:00:00Z');
const fixed = () => 0.5;

function setup(rpm = 1_000, tpm = 1_000_000, source: LimitSource = 'given') {
  const limiter = new ProjectLimiter({
    project: 'p1',
    model: 'gemini-2.5-flash',
    limits: { rpm: { value: rpm, source }, tpm: { value: tpm, source }, rpd: undefined },
    now: T0,
  });
  const notices: Notice[] = [];
  const policy = new RateLimitPolicy(limiter, (n) => notices.push(n), T0, fixed);
  return { limiter, policy, notices };
}

function fixture(name: string): RateLimitDetails {
  return readRateLimitDetails(parseRpcStatus(fixtureText(name))!);
}

describe('RateLimitPolicy: each quotaId takes its path', () => {
  it('per-minute TPM with a quotaValue below ours: the limit drops to it, the project pauses retryDelay + jitter', () => {
    const { limiter, policy, notices } = setup(1_000, 1_000_000);
    const outcome = policy.onRateLimited(fixture('429-a-free-tpm-old-format.json'), T0);
    expect(limiter.limits.tpm).toEqual({ value: 250_000, source: 'learned' });
    expect(outcome).toMatchObject({ hold: 'paused', countsAsAttempt: true });
    expect(outcome.until).toBeGreaterThanOrEqual(T0 + 26_000);
    expect(outcome.until).toBeLessThanOrEqual(T0 + 26_000 + 2_600);
    expect(limiter.hold(T0 + 1_000)?.kind).toBe('paused');
    expect(limiter.hold(outcome.until!)).toBeUndefined();
    expect(notices.map((n) => n.text).join('\n')).toContain('250000');
  });

  it('a daily quota parks the project until midnight Pacific even though retryDelay says 5 s', () => {
    const { limiter, policy } = setup();
    const outcome = policy.onRateLimited(fixture('429-b-free-rpd-short-retry-delay.json'), T0);
    expect(outcome).toEqual({ hold: 'parked', until: nextPacificMidnight(T0), countsAsAttempt: false });
    expect(limiter.readyAt(1, T0 + 10_000)).toBe(Infinity);
    expect(limiter.limits.rpd).toEqual({ value: 25, source: 'learned' });
    expect(limiter.hold(nextPacificMidnight(T0))).toBeUndefined();
  });

  it('limit: 0 disables the project, said once', () => {
    const { limiter, policy, notices } = setup();
    const first = policy.onRateLimited(fixture('429-f-limit-zero-new-format.json'), T0);
    policy.onRateLimited(fixture('429-f-limit-zero-new-format.json'), T0 + 1);
    expect(first).toEqual({ hold: 'disabled', until: undefined, countsAsAttempt: false });
    expect(limiter.hold(T0 + 1e9)?.kind).toBe('disabled');
    expect(new Set(notices.map((n) => n.key)).size).toBe(1);
  });

  it('a 429 without details lowers the rate multiplicatively and it recovers additively', () => {
    const { limiter, policy } = setup(1_000);
    const before = limiter.rpmTarget;
    const outcome = policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0);
    expect(outcome.hold).toBe('paused');
    expect(outcome.until).toBeGreaterThan(T0);
    expect(limiter.rateScale).toBeCloseTo(0.7);
    expect(limiter.rpmTarget).toBeLessThan(before);
    let t = T0;
    for (let i = 0; i < 20 && limiter.rateScale < 1; i++) {
      t += 30_000;
      policy.onAnswered(t);
    }
    expect(limiter.rateScale).toBe(1);
    expect(limiter.rpmTarget).toBe(before);
  });

  it('without details, the rate drops below what was really sent, not below a limit never reached', () => {
    const { limiter, policy } = setup(1_000);
    let t = T0;
    for (let i = 0; i < 30; i++) {
      t += 2_000;
      limiter.settle(limiter.acquire(1, t), 1, t + 100);
    }
    policy.onRateLimited(fixture('429-h-bare-capacity.json'), t + 200, t);
    // 30 requests in the last minute → the target becomes 0.7 × 30 requests/min, not 0.7 × 990.
    expect(limiter.rpmTarget).toBeLessThanOrEqual(21);
    expect(limiter.rpmTarget).toBeGreaterThanOrEqual(15);
  });

  it('Help-only 429 is treated like a bare one', () => {
    const { limiter, policy } = setup();
    policy.onRateLimited(fixture('429-g-help-only.json'), T0);
    expect(limiter.rateScale).toBeCloseTo(0.7);
  });

  it('a per-minute 429 at our own limit means smaller bursts or a shared project: no bursts, rate × 0.8', () => {
    const { limiter, policy, notices } = setup(250_000, 250_000);
    limiter.limits.tpm.source = 'learned';
    // A young window: 20 requests in the first 2 s. The known limit, not this count, sets the new rate.
    for (let i = 0; i < 20; i++) limiter.settle(limiter.acquire(1, T0 + i * 100), 1, T0 + i * 100 + 50);
    const outcome = policy.onRateLimited(fixture('429-a-free-tpm-old-format.json'), T0 + 2_000);
    expect(outcome.hold).toBe('paused');
    expect(limiter.rateScale).toBeCloseTo(0.8);
    expect(notices.some((n) => n.key.startsWith('unexplained:'))).toBe(true);
  });

  it('429s of requests sent before the last adaptation pause but lower nothing again', () => {
    const { limiter, policy } = setup(1_000);
    policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0 + 100, T0);
    expect(limiter.rateScale).toBeCloseTo(0.7);
    const outcome = policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0 + 200, T0 + 50);
    expect(limiter.rateScale).toBeCloseTo(0.7);
    expect(outcome.hold).toBe('paused');
  });

  it('a default limit adopts the server\'s quotaValue, even a higher one', () => {
    const { limiter, policy } = setup(1_000, 100_000, 'default');
    policy.onRateLimited(fixture('429-a-free-tpm-old-format.json'), T0);
    expect(limiter.limits.tpm).toEqual({ value: 250_000, source: 'learned' });
  });

  it('a default limit is probed upward while the window is nearly full and no 429 comes', () => {
    const { limiter, policy } = setup(100, 1_000_000, 'default');
    let t = T0;
    for (let minute = 0; minute < 3; minute++) {
      for (let i = 0; i < 200; i++) {
        const at = limiter.readyAt(1, t);
        t = Math.max(t, at);
        limiter.settle(limiter.acquire(1, t), 1, t + 100);
        policy.onAnswered(t + 100);
      }
    }
    expect(limiter.limits.rpm.value).toBeGreaterThan(100);
    expect(limiter.limits.rpm.source).toBe('default');
  });
});
