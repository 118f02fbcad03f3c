/**
 * Per-minute limiters for RPM and TPM (input tokens) under the three window policies of
 * {@link WindowPolicy}. Google does not document which one the real API uses (docs/reference/gemini-api-facts.md §1.3),
 * so scenarios choose. Every operation is O(1) amortized (O(log n) for a rejected TPM check).
 */
import { RingLog } from './ring-log.js';
import type { WindowPolicy } from './types.js';

/** Length of the per-minute window, ms. */
export const MINUTE_MS = 60_000;

/** Time to wait before a request fits, per dimension, ms: 0 = fits now, Infinity = never fits. */
export interface MinuteWaits {
  rpm: number;
  tpm: number;
}

/**
 * What is left of one per-minute dimension at `now`: `remaining` requests or tokens (may be fractional in a bucket),
 * and `resetMs`, the time until the dimension is back at its full limit ("the time until the rate limit resets to its
 * initial state", OpenAI's x-ratelimit-reset-* headers, docs/reference/batch-openai-vertex-facts.md §b.2), 0 when nothing is used.
 */
export interface DimensionHeadroom {
  remaining: number;
  resetMs: number;
}

/** Headroom of the limited dimensions; an unlimited one is absent. */
export interface MinuteHeadroom {
  requests?: DimensionHeadroom;
  tokens?: DimensionHeadroom;
}

/** A per-minute limiter: `waits` and `headroom` have no side effects; `add` counts a request. */
export interface MinuteLimiter {
  waits(now: number, tokens: number): MinuteWaits;
  add(now: number, tokens: number): void;
  headroom(now: number): MinuteHeadroom;
}

function headroomOf(limit: number | undefined, used: number, resetMs: number): DimensionHeadroom | undefined {
  if (limit === undefined) return undefined;
  return { remaining: Math.max(0, limit - used), resetMs: used > 0 ? resetMs : 0 };
}

function both(requests: DimensionHeadroom | undefined, tokens: DimensionHeadroom | undefined): MinuteHeadroom {
  const h: MinuteHeadroom = {};
  if (requests) h.requests = requests;
  if (tokens) h.tokens = tokens;
  return h;
}

/** Builds the limiter of `policy` for the given limits (undefined = that dimension unlimited). */
export function createMinuteLimiter(policy: WindowPolicy, rpm: number | undefined, tpm: number | undefined): MinuteLimiter {
  switch (policy.kind) {
    case 'rolling':
      return new RollingLimiter(rpm, tpm);
    case 'fixed':
      return new FixedMinuteLimiter(rpm, tpm);
    case 'bucket':
      return new TokenBucketLimiter(rpm, tpm, policy.burst, policy.tokenBurst);
  }
}

/** At most `rpm` requests and `tpm` tokens in any window (t - 60 s, t]. */
export class RollingLimiter implements MinuteLimiter {
  private readonly log = new RingLog();

  constructor(
    private readonly rpm: number | undefined,
    private readonly tpm: number | undefined,
  ) {}

  waits(now: number, tokens: number): MinuteWaits {
    this.log.dropThrough(now - MINUTE_MS);
    return { rpm: this.requestWait(now), tpm: this.tokenWait(now, tokens) };
  }

  add(now: number, tokens: number): void {
    this.log.push(now, tokens);
  }

  /** Back at the full limit when the newest request leaves the window. */
  headroom(now: number): MinuteHeadroom {
    this.log.dropThrough(now - MINUTE_MS);
    const reset = this.log.count > 0 ? this.log.timeAt(this.log.count - 1) + MINUTE_MS - now : 0;
    return both(headroomOf(this.rpm, this.log.count, reset), headroomOf(this.tpm, this.log.sum, reset));
  }

  private requestWait(now: number): number {
    if (this.rpm === undefined) return 0;
    if (this.rpm === 0) return Infinity;
    const excess = this.log.count + 1 - this.rpm;
    if (excess <= 0) return 0;
    return this.log.timeAt(excess - 1) + MINUTE_MS - now;
  }

  private tokenWait(now: number, tokens: number): number {
    if (this.tpm === undefined) return 0;
    if (this.tpm === 0 || tokens > this.tpm) return Infinity;
    const need = this.log.sum + tokens - this.tpm;
    if (need <= 0) return 0;
    const i = this.log.indexFreeing(need);
    return i < 0 ? Infinity : this.log.timeAt(i) + MINUTE_MS - now;
  }
}

/** At most the limit per clock minute [k*60 s, (k+1)*60 s) of epoch time. */
export class FixedMinuteLimiter implements MinuteLimiter {
  private minute = -Infinity;
  private requests = 0;
  private tokens = 0;

  constructor(
    private readonly rpm: number | undefined,
    private readonly tpm: number | undefined,
  ) {}

  waits(now: number, tokens: number): MinuteWaits {
    this.roll(now);
    const untilNext = (this.minute + 1) * MINUTE_MS - now;
    let rpm = 0;
    if (this.rpm !== undefined) {
      if (this.rpm === 0) rpm = Infinity;
      else if (this.requests + 1 > this.rpm) rpm = untilNext;
    }
    let tpm = 0;
    if (this.tpm !== undefined) {
      if (this.tpm === 0 || tokens > this.tpm) tpm = Infinity;
      else if (this.tokens + tokens > this.tpm) tpm = untilNext;
    }
    return { rpm, tpm };
  }

  add(now: number, tokens: number): void {
    this.roll(now);
    this.requests++;
    this.tokens += tokens;
  }

  /** Back at the full limit at the next clock minute. */
  headroom(now: number): MinuteHeadroom {
    this.roll(now);
    const reset = (this.minute + 1) * MINUTE_MS - now;
    return both(headroomOf(this.rpm, this.requests, reset), headroomOf(this.tpm, this.tokens, reset));
  }

  private roll(now: number): void {
    const minute = Math.floor(now / MINUTE_MS);
    if (minute > this.minute) {
      this.minute = minute;
      this.requests = 0;
      this.tokens = 0;
    }
  }
}

/** Floating-point slack when comparing bucket levels. */
const EPS = 1e-9;

/**
 * Token buckets: `burst` requests refilled at rpm/60 000 per ms, `tokenBurst` input tokens refilled at
 * tpm/60 000 per ms. Both start full. A request larger than `tokenBurst` never fits.
 */
export class TokenBucketLimiter implements MinuteLimiter {
  private last = -Infinity;
  private level: number;
  private tokenLevel: number;
  private readonly rate: number;
  private readonly tokenRate: number;

  constructor(
    private readonly rpm: number | undefined,
    private readonly tpm: number | undefined,
    private readonly burst: number,
    private readonly tokenBurst: number,
  ) {
    this.level = burst;
    this.tokenLevel = tokenBurst;
    this.rate = (rpm ?? 0) / MINUTE_MS;
    this.tokenRate = (tpm ?? 0) / MINUTE_MS;
  }

  waits(now: number, tokens: number): MinuteWaits {
    this.refill(now);
    let rpm = 0;
    if (this.rpm !== undefined) {
      if (this.rpm === 0 || this.burst < 1) rpm = Infinity;
      else if (this.level < 1 - EPS) rpm = (1 - this.level) / this.rate;
    }
    let tpm = 0;
    if (this.tpm !== undefined) {
      if (this.tpm === 0 || tokens > this.tokenBurst) tpm = Infinity;
      else if (this.tokenLevel < tokens - EPS) tpm = (tokens - this.tokenLevel) / this.tokenRate;
    }
    return { rpm, tpm };
  }

  add(now: number, tokens: number): void {
    this.refill(now);
    if (this.rpm !== undefined) this.level -= 1;
    if (this.tpm !== undefined) this.tokenLevel -= tokens;
  }

  /** What the buckets hold now; back at the full limit when they are refilled to `burst` / `tokenBurst`. */
  headroom(now: number): MinuteHeadroom {
    this.refill(now);
    const requests = this.rpm === undefined ? undefined : { remaining: Math.max(0, this.level), resetMs: this.rate > 0 ? Math.max(0, this.burst - this.level) / this.rate : 0 };
    const tokens = this.tpm === undefined ? undefined : { remaining: Math.max(0, this.tokenLevel), resetMs: this.tokenRate > 0 ? Math.max(0, this.tokenBurst - this.tokenLevel) / this.tokenRate : 0 };
    return both(requests, tokens);
  }

  private refill(now: number): void {
    if (now <= this.last) return;
    if (this.last !== -Infinity) {
      const elapsed = now - this.last;
      this.level = Math.min(this.burst, this.level + elapsed * this.rate);
      this.tokenLevel = Math.min(this.tokenBurst, this.tokenLevel + elapsed * this.tokenRate);
    }
    this.last = now;
  }
}
