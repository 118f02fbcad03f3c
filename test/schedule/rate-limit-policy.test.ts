import { describe, expect, it } from 'vitest';
import { PACIFIC_DAY } from '../../src/providers/gemini/quota-day.js';
import type { RateLimitDetails } from '../../src/providers/failures.js';
import { readRateLimitDetails } from '../../src/providers/google-quota-failure.js';
import { parseRpcStatus } from '../../src/providers/google-rpc-status.js';
import { ProjectLimiter } from '../../src/schedule/project-limiter.js';
import type { LimitSource } from '../../src/schedule/quota-limits.js';
import { RateLimitPolicy, type Notice } from '../../src/schedule/rate-limit-policy.js';
import { fixtureText } from '../support/fixtures.js';

const T0 = Date.parse('2026-11-29T12:00:00Z');
const fixed = () => 0.5;

function setup(rpm = 1_000, tpm = 1_000_000, source: LimitSource = 'given') {
  const limiter = new ProjectLimiter({ quotaDay: PACIFIC_DAY,
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

describe('RateLimitPolicy: each Gemini quotaId (read by the adapter into neutral details) takes its path', () => {
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
    expect(outcome).toEqual({ hold: 'parked', until: PACIFIC_DAY.nextBoundary(T0), countsAsAttempt: false });
    expect(limiter.readyAt(1, T0 + 10_000)).toBe(Infinity);
    expect(limiter.limits.rpd).toEqual({ value: 25, source: 'learned' });
    expect(limiter.hold(PACIFIC_DAY.nextBoundary(T0))).toBeUndefined();
  });

  it('limit: 0 disables the project, said once', () => {
    const { limiter, policy, notices } = setup();
    const first = policy.onRateLimited(fixture('429-f-limit-zero-new-format.json'), T0);
    policy.onRateLimited(fixture('429-f-limit-zero-new-format.json'), T0 + 1);
    expect(first).toEqual({ hold: 'disabled', until: undefined, countsAsAttempt: false });
    expect(limiter.hold(T0 + 1e9)?.kind).toBe('disabled');
    expect(new Set(notices.map((n) => n.key)).size).toBe(1);
  });

  it('a 429 without details pauses briefly, lowers the rate moderately, and recovers multiplicatively within seconds', () => {
    const { limiter, policy } = setup(1_000);
    const before = limiter.rpmTarget;
    const outcome = policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0);
    expect(outcome.hold).toBe('paused');
    expect(outcome.until).toBeGreaterThanOrEqual(T0 + 500);
    expect(outcome.until).toBeLessThanOrEqual(T0 + 1_000);
    expect(limiter.rateScale).toBeCloseTo(0.85);
    expect(limiter.rpmTarget).toBeLessThan(before);
    let t = T0;
    while (limiter.rateScale < 1 && t < T0 + 60_000) {
      t += 1_000;
      policy.onAnswered(t, t - 500);
    }
    expect(limiter.rateScale).toBe(1);
    expect(limiter.rpmTarget).toBe(before);
    expect(t - T0).toBeLessThanOrEqual(5_000);
  });

  it('without details, the rate drops relative to what was really sent over a meaningful interval, not below a limit never reached', () => {
    const { limiter, policy } = setup(1_000);
    let t = T0;
    for (let i = 0; i < 30; i++) {
      t += 2_000;
      limiter.settle(limiter.acquire(1, t), 1, t + 100);
    }
    policy.onRateLimited(fixture('429-h-bare-capacity.json'), t + 200, t);
    // 30 requests over the last minute → the target becomes 0.85 × 30 requests/min, not 0.85 × 990.
    expect(limiter.rpmTarget).toBeLessThanOrEqual(26);
    expect(limiter.rpmTarget).toBeGreaterThanOrEqual(23);
  });

  it('without details early in a job (a young window of a few requests), the rate drops relative to the target, not to the few requests seen', () => {
    const { limiter, policy } = setup(1_000);
    for (let i = 0; i < 16; i++) limiter.settle(limiter.acquire(1, T0 + i * 60), 1, T0 + i * 60 + 30);
    policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0 + 1_000, T0 + 900);
    expect(limiter.rateScale).toBeCloseTo(0.85);
  });

  it('429s without details that follow each other pause longer each time; an answer after them resets the pause', () => {
    const { policy } = setup(1_000);
    const first = policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0, T0);
    const second = policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0 + 2_000, T0 + 1_900);
    const third = policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0 + 5_000, T0 + 4_900);
    expect(second.until! - (T0 + 2_000)).toBeGreaterThan(first.until! - T0);
    expect(third.until! - (T0 + 5_000)).toBeGreaterThan(second.until! - (T0 + 2_000));
    policy.onAnswered(T0 + 9_000, T0 + 8_000);
    const fourth = policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0 + 10_000, T0 + 9_900);
    expect(fourth.until! - (T0 + 10_000)).toBeLessThanOrEqual(1_000);
  });

  it('Help-only 429 is treated like a bare one', () => {
    const { limiter, policy } = setup();
    policy.onRateLimited(fixture('429-g-help-only.json'), T0);
    expect(limiter.rateScale).toBeCloseTo(0.85);
  });

  it('a per-minute 429 at our own limit means smaller bursts or a shared project: no bursts, rate × 0.8', () => {
    const { limiter, policy, notices } = setup(250_000, 250_000);
    limiter.adoptLimit('tpm', 250_000, 'learned');
    // A young window: 20 requests in the first 2 s. The known limit, not this count, sets the new rate.
    for (let i = 0; i < 20; i++) limiter.settle(limiter.acquire(1, T0 + i * 100), 1, T0 + i * 100 + 50);
    const outcome = policy.onRateLimited(fixture('429-a-free-tpm-old-format.json'), T0 + 2_000);
    expect(outcome.hold).toBe('paused');
    expect(limiter.rateScale).toBeCloseTo(0.8);
    expect(notices.some((n) => n.key.startsWith('unexplained:'))).toBe(true);
  });

  it('after a 429 at our own known limit the rate recovers slowly (a tenth every 30 s), so such 429s stay rare', () => {
    const { limiter, policy } = setup(250_000, 250_000);
    limiter.adoptLimit('tpm', 250_000, 'learned');
    policy.onRateLimited(fixture('429-a-free-tpm-old-format.json'), T0);
    expect(limiter.rateScale).toBeCloseTo(0.8);
    for (let t = T0 + 1_000; t < T0 + 29_000; t += 1_000) policy.onAnswered(t, t - 100);
    expect(limiter.rateScale).toBeCloseTo(0.8);
    policy.onAnswered(T0 + 30_000, T0 + 29_900);
    expect(limiter.rateScale).toBeCloseTo(0.88);
    // A later 429 without details does not turn the cautious recovery into a fast one.
    policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0 + 31_000, T0 + 30_900);
    for (let t = T0 + 32_000; t < T0 + 60_000; t += 1_000) policy.onAnswered(t, t - 100);
    expect(limiter.rateScale).toBeLessThan(0.8);
  });

  it('429s of requests sent before the last adaptation pause but lower nothing again', () => {
    const { limiter, policy } = setup(1_000);
    policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0 + 100, T0);
    expect(limiter.rateScale).toBeCloseTo(0.85);
    const outcome = policy.onRateLimited(fixture('429-h-bare-capacity.json'), T0 + 200, T0 + 50);
    expect(limiter.rateScale).toBeCloseTo(0.85);
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

describe('RateLimitPolicy reads neutral details only', () => {
  const hit = (over: Partial<RateLimitDetails['hits'][number]> = {}): RateLimitDetails['hits'][number] => ({ dimension: 'requests', period: 'minute', limit: undefined, id: undefined, ...over });

  it('shared capacity (Vertex DSQ) is never a daily stop, never "no quota", never a lowered limit, never a pause: it slows', () => {
    const { limiter, policy, notices } = setup(1_000, 1_000_000);
    const shared: RateLimitDetails = { hits: [hit({ period: 'day', limit: 10 }), hit({ limit: 5 })], waitMs: undefined, noQuota: true, scope: 'shared-capacity' };
    const outcome = policy.onRateLimited(shared, T0, T0);
    expect(outcome).toEqual({ hold: 'slowed', until: undefined, waitMs: undefined, countsAsAttempt: true });
    expect(limiter.hold(T0)).toBeUndefined();
    expect(limiter.limits.rpm).toEqual({ value: 1_000, source: 'given' });
    expect(limiter.limits.rpd).toBeUndefined();
    expect(limiter.rateScale).toBeCloseTo(0.85);
    expect(notices.map((n) => n.key)).toEqual(['shared:p1']);
    // 429s of requests already in flight when the rate dropped lower nothing again.
    policy.onRateLimited(shared, T0 + 10, T0 - 100);
    expect(limiter.rateScale).toBeCloseTo(0.85);
    // And it recovers within seconds while answers come.
    for (let t = T0 + 1_000; t <= T0 + 10_000; t += 1_000) policy.onAnswered(t, t - 100);
    expect(limiter.rateScale).toBe(1);
  });

  it('a per-minute hit with the server\'s figure (an x-ratelimit-limit-requests, say) lowers the limit to it and waits as asked', () => {
    const { limiter, policy } = setup(1_000);
    const outcome = policy.onRateLimited({ hits: [hit({ limit: 60, id: 'rate_limit_exceeded' })], waitMs: 1_500, noQuota: false, scope: 'project' }, T0);
    expect(limiter.limits.rpm).toEqual({ value: 60, source: 'learned' });
    expect(outcome.until).toBeGreaterThanOrEqual(T0 + 1_500);
  });

  it('a per-day hit parks the project until the provider\'s day boundary, whatever the wait says', () => {
    const { limiter, policy } = setup();
    const outcome = policy.onRateLimited({ hits: [hit({ dimension: 'input-tokens', period: 'day' })], waitMs: 2_000, noQuota: false, scope: 'project' }, T0);
    expect(outcome).toEqual({ hold: 'parked', until: PACIFIC_DAY.nextBoundary(T0), countsAsAttempt: false });
    expect(limiter.hold(T0 + 3_000)?.kind).toBe('parked');
  });
});

describe('RateLimitPolicy.onLimitHints: the x-ratelimit-limit-* headers of answers (OpenAI-style servers)', () => {
  it('a default limit gives way to the server\'s figure, higher or lower, said once; a figure above a given limit is ignored', () => {
    const { limiter, policy, notices } = setup(60, 250_000, 'default');
    policy.onLimitHints({ requests: { limit: 5_000, remaining: 4_999, resetMs: 12 }, tokens: { limit: 2_000_000 } }, T0);
    expect(limiter.limits.rpm).toEqual({ value: 5_000, source: 'learned' });
    expect(limiter.limits.tpm).toEqual({ value: 2_000_000, source: 'learned' });
    for (let i = 1; i < 5; i++) policy.onLimitHints({ requests: { limit: 5_000 }, tokens: { limit: 2_000_000 } }, T0 + i);
    expect(notices.filter((n) => n.key.startsWith('learned:'))).toHaveLength(2);
    expect(notices[0]!.text).toContain("the server's figure for x-ratelimit-limit-requests");

    const given = setup(100, 1_000_000, 'given');
    given.policy.onLimitHints({ requests: { limit: 5_000 } }, T0);
    expect(given.limiter.limits.rpm).toEqual({ value: 100, source: 'given' });
    given.policy.onLimitHints({ requests: { limit: 40 } }, T0);
    expect(given.limiter.limits.rpm).toEqual({ value: 40, source: 'learned' });
  });
});
