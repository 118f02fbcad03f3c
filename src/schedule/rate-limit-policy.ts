/**
 * What a 429 does to a project, by quotaId (../shared/reference/gemini-api-facts.md §0.5, §1.4, §2; peers.md §9.3):
 *
 * | the 429 says                                  | the project                              | the row                  |
 * |-----------------------------------------------|------------------------------------------|--------------------------|
 * | limit: 0 (no quotaValue, or "limit: 0")       | disabled for this run, said once         | to another project       |
 * | a …PerDay… quotaId (RPD, TPD)                 | parked until midnight Pacific            | to another project       |
 * | a …PerMinute… quotaId, quotaValue < our limit | limit lowered to quotaValue (said once); paused retryDelay + jitter | back through the gate |
 * | a …PerMinute… quotaId at our limit            | no more bursts, rate × 0.8; paused       | back through the gate    |
 * | no details (bare, Help only)                  | rate × 0.7; paused (retryDelay or backoff) | back through the gate  |
 *
 * Without details, "rate × 0.7" is 0.7 × the requests the server's window can have held when that is below our target
 * (ProjectLimiter.slowDown): the limit is unknown, and the server refused with that many.
 *
 * A daily 429 can carry a short, misleading retryDelay (fixture 429-b-free-rpd-short-retry-delay.json), so the quotaId
 * decides, never the delay alone. Rates lowered multiplicatively recover additively (a tenth of the lowered rate every
 * 30 s without a 429). A
 * limit that is only the model's default (no --rpm/--tpm given, no quotaValue seen) is probed upward (+25 % a minute)
 * while the window is nearly full and no 429 comes.
 */
import type { RateLimitDetails, QuotaViolation } from '../gemini/quota-failure.js';
import { equalJitterDelay, serverDelayWithJitter } from './backoff.js';
import { nextPacificMidnight } from './pacific-day.js';
import type { ProjectLimiter } from './project-limiter.js';

/** What happened to the project, and whether the row's attempt counts against --max-attempts. */
export interface RateLimitOutcome {
  hold: 'paused' | 'parked' | 'disabled';
  /** End of the pause or park, ms; undefined when disabled. */
  until: number | undefined;
  /** False when the project, not the row, is to blame (daily quota, limit 0): the row goes elsewhere for free. */
  countsAsAttempt: boolean;
}

/** A message to show the user once per `key`. */
export interface Notice {
  key: string;
  text: string;
}

const RECOVERY_INTERVAL_MS = 30_000;
const PROBE_FACTOR = 1.25;
const PROBE_INTERVAL_MS = 60_000;

/** Per-project memory of 429s; one instance per ProjectLimiter. */
export class RateLimitPolicy {
  readonly #limiter: ProjectLimiter;
  readonly #notify: (notice: Notice) => void;
  readonly #random: () => number;
  #consecutiveBare = 0;
  #last429 = -Infinity;
  #lastStep: number;
  /** When the limits or rate last changed because of a 429: answers to requests sent before it teach nothing new. */
  #lastAdaptation = -Infinity;

  readonly #onLearned: ((dimension: 'rpm' | 'tpm' | 'rpd', value: number) => void) | undefined;

  /**
   * @param onLearned receives each limit adopted from a quotaValue, to remember it for later runs.
   */
  constructor(
    limiter: ProjectLimiter,
    notify: (notice: Notice) => void,
    now: number,
    random: () => number = Math.random,
    onLearned?: (dimension: 'rpm' | 'tpm' | 'rpd', value: number) => void,
  ) {
    this.#limiter = limiter;
    this.#notify = notify;
    this.#random = random;
    this.#lastStep = now;
    this.#onLearned = onLearned;
  }

  /**
   * Applies a 429 to the project.
   * @param sentAt when the rejected request was sent, ms: a request sent before the last adaptation was already in
   *   flight when the rate changed, so its 429 pauses the project but lowers nothing again.
   */
  onRateLimited(details: RateLimitDetails, now: number, sentAt: number = now): RateLimitOutcome {
    const limiter = this.#limiter;
    const stale = sentAt < this.#lastAdaptation;
    const where = `project ${limiter.project}, ${limiter.model}`;
    this.#last429 = now;
    this.#lastStep = now;

    if (details.limitZero) {
      limiter.disable(`${limiter.model} has no quota on project ${limiter.project} (limit: 0)`);
      this.#notify({
        key: `limit0:${limiter.project}`,
        text: `${where}: the server says limit: 0 — this model has no quota on this project's tier (enable billing or use another model). Its keys take no more rows.`,
      });
      return { hold: 'disabled', until: undefined, countsAsAttempt: false };
    }

    const daily = details.violations.filter((v) => v.dimension === 'rpd' || v.dimension === 'tpd');
    if (daily.length > 0) {
      for (const v of daily) if (v.dimension === 'rpd' && v.quotaValue !== undefined) this.#learn('rpd', v);
      const until = nextPacificMidnight(now);
      limiter.park(until, `daily quota exhausted (${daily.map((v) => v.quotaId).join(', ')})`);
      this.#notify({
        key: `daily:${limiter.project}`,
        text: `${where}: daily quota exhausted (${daily.map((v) => `${v.quotaId}${v.quotaValue !== undefined ? ` = ${v.quotaValue}` : ''}`).join(', ')}); parked until midnight Pacific.`,
      });
      return { hold: 'parked', until, countsAsAttempt: false };
    }

    const perMinute = details.violations.filter((v) => v.dimension === 'rpm' || v.dimension === 'tpm');
    let explained = stale;
    if (!stale) for (const v of perMinute) explained = this.#learn(v.dimension as 'rpm' | 'tpm', v) || explained;
    if (explained && !stale) this.#lastAdaptation = now;

    let delay: number;
    if (perMinute.length > 0) {
      this.#consecutiveBare = 0;
      if (!explained) {
        limiter.useMinimalBurst();
        limiter.scaleRate(0.8);
        this.#lastAdaptation = now;
        this.#notify({
          key: `unexplained:${limiter.project}`,
          text: `${where}: 429 while under the limit (${perMinute.map((v) => v.quotaId).join(', ')}); another client may share this project's quota, or the server allows smaller bursts. Pacing without bursts at a lower rate.`,
        });
      }
      delay = details.retryDelayMs !== undefined ? serverDelayWithJitter(details.retryDelayMs, this.#random) : equalJitterDelay(1, this.#random);
    } else {
      this.#consecutiveBare++;
      if (!stale) {
        limiter.slowDown(0.7, now);
        this.#lastAdaptation = now;
      }
      this.#notify({
        key: `bare:${limiter.project}`,
        text: `${where}: 429 without quota details; slowing down (rate × 0.7, recovering gradually).`,
      });
      const backoff = equalJitterDelay(this.#consecutiveBare, this.#random);
      delay = Math.max(backoff, details.retryDelayMs !== undefined ? serverDelayWithJitter(details.retryDelayMs, this.#random) : 0);
    }
    const until = now + delay;
    limiter.pause(until, perMinute.length > 0 ? `per-minute quota (${perMinute.map((v) => v.quotaId).join(', ')})` : 'rate limited');
    return { hold: 'paused', until, countsAsAttempt: true };
  }

  /** Call after each answered request: recovers a lowered rate, probes default limits upward. */
  onAnswered(now: number): void {
    if (now - this.#lastStep < Math.min(RECOVERY_INTERVAL_MS, PROBE_INTERVAL_MS)) return;
    const limiter = this.#limiter;
    if (now - this.#last429 >= RECOVERY_INTERVAL_MS && limiter.rateScale < 1) {
      limiter.recoverRate();
      this.#lastStep = now;
      return;
    }
    if (now - this.#last429 >= PROBE_INTERVAL_MS && now - this.#lastStep >= PROBE_INTERVAL_MS) {
      const usage = limiter.usage(now);
      let probed = false;
      if (limiter.limits.rpm.source === 'default' && usage.requests >= 0.9 * limiter.rpmTarget) {
        limiter.limits.rpm.value = Math.ceil(limiter.limits.rpm.value * PROBE_FACTOR);
        probed = true;
      }
      if (limiter.limits.tpm.source === 'default' && usage.tokens >= 0.9 * limiter.tpmTarget) {
        limiter.limits.tpm.value = Math.ceil(limiter.limits.tpm.value * PROBE_FACTOR);
        probed = true;
      }
      if (probed) limiter.reconfigure();
      this.#lastStep = now;
    }
  }

  /**
   * Adopts a violation's quotaValue as the limit when it is lower than ours, or when ours was only a default.
   * @returns true when the 429 is explained by a limit above the real one.
   */
  #learn(dimension: 'rpm' | 'tpm' | 'rpd', v: QuotaViolation): boolean {
    const limit = this.#limiter.limits[dimension];
    const value = v.quotaValue;
    if (value === undefined || value <= 0) return false;
    if (limit === undefined) {
      this.#limiter.limits[dimension] = { value, source: 'learned' };
      this.#onLearned?.(dimension, value);
      return true;
    }
    if (value === limit.value && limit.source === 'learned') return false;
    if (value < limit.value || limit.source === 'default') {
      const before = limit.value;
      limit.value = value;
      limit.source = 'learned';
      this.#limiter.reconfigure();
      this.#onLearned?.(dimension, value);
      this.#notify({
        key: `learned:${this.#limiter.project}:${dimension}:${value}`,
        text: `project ${this.#limiter.project}, ${this.#limiter.model}: the server's ${dimension.toUpperCase()} limit is ${value} (quotaValue of ${v.quotaId}); was ${before}. Using ${value}.`,
      });
      return value < before || dimension === 'rpd';
    }
    return false;
  }
}
