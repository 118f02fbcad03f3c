/**
 * The quota ledger: one {@link QuotaBucket} per (quota project, model), holding RPM/TPM under the chosen
 * window policy and RPD/TPD per Pacific day. Quota is per project and model, not per key
 * (https://ai.google.dev/gemini-api/docs/rate-limits: "Rate limits are applied per project, not per API key").
 * Exceeding any one dimension rejects the request (same page), with one violation per exceeded dimension.
 */
import { createMinuteLimiter, type MinuteHeadroom, type MinuteLimiter } from './minute-limiters.js';
import { zonedQuotaDay } from '../providers/zoned-quota-day.js';

/** Gemini's daily quotas reset at midnight America/Los_Angeles (docs/providers.md "Gemini API"). */
const PACIFIC = zonedQuotaDay('America/Los_Angeles', 'PT');
const nextPacificMidnight = (ms: number): number => PACIFIC.nextBoundary(ms);
import type { QuotaDimension } from './quota-names.js';
import type { ModelLimits } from './types.js';

/** One exceeded dimension. `waitMs` is the time until it has room for the request (Infinity: never). */
export interface Violation {
  dimension: QuotaDimension;
  limit: number;
  waitMs: number;
}

/** The verdict on one request. `violations` is empty when admitted. */
export interface QuotaDecision {
  admitted: boolean;
  violations: Violation[];
}

/** Requests and input tokens of the current Pacific day; resets at 00:00 America/Los_Angeles. */
class DailyCounter {
  private resetAt = -Infinity;
  requests = 0;
  tokens = 0;

  /** Starts a new day when `now` has reached the next Pacific midnight. Returns that midnight. */
  roll(now: number): number {
    if (now >= this.resetAt) {
      this.requests = 0;
      this.tokens = 0;
      this.resetAt = nextPacificMidnight(now);
    }
    return this.resetAt;
  }
}

/** The limits and usage of one (project, model). Times are epoch ms of the simulator clock. */
export class QuotaBucket {
  private readonly minute: MinuteLimiter;
  private readonly day = new DailyCounter();

  constructor(readonly limits: ModelLimits) {
    this.minute = createMinuteLimiter(limits.window, limits.rpm, limits.tpm);
  }

  /** Which dimensions a request of `tokens` input tokens would exceed at `now`. No usage is recorded. */
  check(now: number, tokens: number): Violation[] {
    const { rpm, tpm, rpd, tpd } = this.limits;
    const violations: Violation[] = [];
    if (rpd !== undefined || tpd !== undefined) {
      const resetAt = this.day.roll(now);
      if (rpd !== undefined && this.day.requests + 1 > rpd) {
        violations.push({ dimension: 'rpd', limit: rpd, waitMs: rpd === 0 ? Infinity : resetAt - now });
      }
    }
    const waits = this.minute.waits(now, tokens);
    if (rpm !== undefined && waits.rpm > 0) violations.push({ dimension: 'rpm', limit: rpm, waitMs: waits.rpm });
    if (tpm !== undefined && waits.tpm > 0) violations.push({ dimension: 'tpm', limit: tpm, waitMs: waits.tpm });
    if (tpd !== undefined && this.day.tokens + tokens > tpd) {
      const never = tpd === 0 || tokens > tpd;
      violations.push({ dimension: 'tpd', limit: tpd, waitMs: never ? Infinity : this.day.roll(now) - now });
    }
    return violations;
  }

  /**
   * Admits the request if no dimension is exceeded, recording its usage; otherwise rejects it and, when
   * `countRejected`, still counts it against RPM/TPM (never against RPD/TPD).
   */
  tryAdmit(now: number, tokens: number, countRejected: boolean): QuotaDecision {
    const violations = this.check(now, tokens);
    if (violations.length === 0) {
      this.record(now, tokens);
      return { admitted: true, violations };
    }
    if (countRejected) this.minute.add(now, tokens);
    return { admitted: false, violations };
  }

  /** What is left of RPM (`requests`) and TPM (`tokens`) at `now`, for x-ratelimit-* headers. No usage is recorded. */
  headroom(now: number): MinuteHeadroom {
    return this.minute.headroom(now);
  }

  /** Counts a request rejected for another reason (a 400) against RPM/TPM; used when `countRejected`. */
  countRejected(now: number, tokens: number): void {
    this.minute.add(now, tokens);
  }

  /** Records an admitted request on every dimension. */
  private record(now: number, tokens: number): void {
    this.minute.add(now, tokens);
    if (this.limits.rpd !== undefined || this.limits.tpd !== undefined) {
      this.day.roll(now);
      this.day.requests++;
      this.day.tokens += tokens;
    }
  }
}

/** All buckets of a simulator, created on first use. */
export class QuotaLedger {
  private readonly buckets = new Map<string, QuotaBucket>();

  /** The bucket of (`project`, `model`), created with `limits` the first time. */
  bucket(project: string, model: string, limits: ModelLimits): QuotaBucket {
    const id = `${project}\u0000${model}`;
    let bucket = this.buckets.get(id);
    if (!bucket) {
      bucket = new QuotaBucket(limits);
      this.buckets.set(id, bucket);
    }
    return bucket;
  }
}
