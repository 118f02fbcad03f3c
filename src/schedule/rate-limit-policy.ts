/**
 * What a 429 does to a project. It reads only the neutral {@link RateLimitDetails} (../providers/failures.ts) that the
 * adapter made of the provider's evidence — for Gemini its quotaIds (docs/providers.md; docs/reference/gemini-api-facts.md §0.5, §1.4,
 * §2):
 *
 * | the 429 says                                  | the project                              | the row                  |
 * |-----------------------------------------------|------------------------------------------|--------------------------|
 * | no quota here (`limit: 0`)                    | disabled for this run, said once         | to another project       |
 * | a per-day limit (RPD, TPD)                    | parked until the provider's day boundary (Gemini: midnight Pacific) | to another project |
 * | a per-minute limit below ours                 | limit lowered to the server's figure (said once); paused for its wait + jitter | back through the gate |
 * | a per-minute limit at ours                    | no more bursts, rate × 0.8; paused       | back through the gate    |
 * | no limit named (bare, Help only)              | rate × 0.85 of what was achieved; brief pause | back through the gate |
 * | shared capacity busy (Vertex DSQ), whatever else it says | as a bare 429: never parked, disabled or given a lower limit | back through the gate |
 *
 * A 429 without details is weak evidence: Vertex's shared quota and gateways send them when capacity is short, not only
 * at a limit, and one comes now and then at any rate. So the project pauses briefly (0.5–1 s with equal jitter, doubling
 * for 429s that follow each other, or the server's retryDelay when it gave one), the rate drops moderately (× 0.85) —
 * relative to the rate actually achieved over the last minute when that is well below the target (at least
 * MEANINGFUL_INTERVAL_MS of ./project-limiter.ts of sending: a young window holds too few requests to say anything), else relative to
 * the target, so that earlier pauses do not compound — and recovers multiplicatively (× 1.2 every 3 s without a 429),
 * back to the full rate within seconds. A per-minute 429 at our own known limit is strong evidence (a
 * smaller burst, or another client in the project): no bursts, rate × 0.8, recovering additively (a tenth of the
 * lowered rate every 30 s).
 *
 * A server's wait above five minutes (SERVER_WAIT_CAP_MS, ./server-wait.ts: a `retry-after` of years from a broken
 * proxy) pauses the project for five minutes, said once; then a request probes again.
 *
 * A daily 429 can carry a short, misleading retryDelay (fixture 429-b-free-rpd-short-retry-delay.json), so the period
 * decides, never the delay alone. A limit that is only the model's default (no --rpm/--tpm given, no quotaValue seen)
 * is probed upward (+25 % a minute) while the window is nearly full and no 429 comes.
 */
import type { LimitHints } from '../providers/contract.js';
import type { RateLimitDetails, RateLimitHit } from '../providers/failures.js';
import { equalJitterDelay, serverDelayWithJitter } from './backoff.js';
import type { ProjectLimiter } from './project-limiter.js';
import { capServerWait, describeWait, SERVER_WAIT_CAP_MS } from './server-wait.js';

/** What happened to the project, and whether the row's attempt counts against --max-attempts. */
export interface RateLimitOutcome {
  /**
   * `slowed`: shared capacity is short (Vertex DSQ): the project keeps sending at a lower rate, and only the row waits
   * (./failure-policy.ts: truncated exponential backoff of at least 1 s, or the server's wait).
   */
  hold: 'paused' | 'parked' | 'disabled' | 'slowed';
  /** End of the pause or park, ms; undefined when disabled or slowed. */
  until: number | undefined;
  /** For `slowed`: the wait the server asked for, ms, when it said. */
  waitMs?: number | undefined;
  /** False when the project, not the row, is to blame (daily quota, limit 0): the row goes elsewhere for free. */
  countsAsAttempt: boolean;
}

/** A message to show the user once per `key`. */
export interface Notice {
  key: string;
  text: string;
}

/** After a 429 at a known limit: additive recovery, a tenth of the lowered scale every 30 s. */
const SLOW_RECOVERY_INTERVAL_MS = 30_000;
/** After a 429 without details: × {@link FAST_RECOVERY_FACTOR} every 3 s without a 429. */
const FAST_RECOVERY_INTERVAL_MS = 3_000;
const FAST_RECOVERY_FACTOR = 1.2;
/** A 429 without details sets the rate to this fraction of the rate achieved. */
export const BARE_DECREASE = 0.85;
/** Below this share of the target, the rate achieved (not the target) is what a 429 without details lowers. */
const UNDERUSED = 0.8;
/** A per-minute 429 at our own known limit multiplies the rate by this. */
export const AT_LIMIT_DECREASE = 0.8;
/** The first pause after a 429 without details and without retryDelay, ms (equal jitter: half to all of it). */
const BARE_PAUSE_MS = 1_000;
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
  /** How a lowered rate recovers: set by the 429 that lowered it. */
  #recovery: 'fast' | 'slow' = 'fast';
  /** The additive step of a slow recovery: a tenth of the scale the last decrease set. */
  #slowStep = 0.1;
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
  onRateLimited(asked: RateLimitDetails, now: number, sentAt: number = now): RateLimitOutcome {
    const limiter = this.#limiter;
    const stale = sentAt < this.#lastAdaptation;
    const where = `project ${limiter.project}, ${limiter.model}`;
    const details = this.#capWait(asked, where);
    this.#last429 = now;
    this.#lastStep = now;
    // Shared capacity (Vertex Dynamic Shared Quota, a gateway): whatever the 429 says, no limit of the project was hit.
    const own = details.scope === 'project';
    if (!own) return this.#sharedCapacity(details, now, stale, where);

    if (own && details.noQuota) {
      limiter.disable(`${limiter.model} has no quota on project ${limiter.project} (limit: 0)`);
      this.#notify({
        key: `limit0:${limiter.project}`,
        text: `${where}: the server says limit: 0 — this model has no quota on this project's tier (enable billing or use another model). Its keys take no more rows.`,
      });
      return { hold: 'disabled', until: undefined, countsAsAttempt: false };
    }

    const daily = own ? details.hits.filter((h) => h.period === 'day') : [];
    if (daily.length > 0) {
      for (const h of daily) if (h.dimension === 'requests' && h.limit !== undefined) this.#learn('rpd', h);
      const until = limiter.nextDayBoundary(now);
      limiter.park(until, `daily quota exhausted (${daily.map(nameOf).join(', ')})`);
      this.#notify({
        key: `daily:${limiter.project}`,
        text: `${where}: daily quota exhausted (${daily.map((h) => `${nameOf(h)}${h.limit !== undefined ? ` = ${h.limit}` : ''}`).join(', ')}); parked until the daily quota resets (${limiter.quotaDay.clock(until)}).`,
      });
      return { hold: 'parked', until, countsAsAttempt: false };
    }

    const perMinute = own ? details.hits.filter((h) => h.period === 'minute') : [];
    let explained = stale;
    if (!stale) {
      for (const h of perMinute) {
        const dimension = h.dimension === 'requests' ? 'rpm' : h.dimension === 'input-tokens' ? 'tpm' : undefined;
        if (dimension) explained = this.#learn(dimension, h) || explained;
      }
    }
    if (explained && !stale) this.#lastAdaptation = now;

    let delay: number;
    if (perMinute.length > 0) {
      this.#consecutiveBare = 0;
      if (!explained) {
        limiter.useMinimalBurst();
        this.#lower(limiter.rateScale * AT_LIMIT_DECREASE, 'slow');
        this.#lastAdaptation = now;
        this.#notify({
          key: `unexplained:${limiter.project}`,
          text: `${where}: 429 while under the limit (${perMinute.map(nameOf).join(', ')}); another client may share this project's quota, or the server allows smaller bursts. Pacing without bursts at a lower rate.`,
        });
      }
      delay = details.waitMs !== undefined ? serverDelayWithJitter(details.waitMs, this.#random) : equalJitterDelay(1, this.#random);
    } else {
      this.#consecutiveBare++;
      if (!stale) {
        // Relative to what was achieved only when that is well below the target (the target is not what binds: the
        // input, concurrency, or a limit set far too high); otherwise relative to the target, so that the dips of
        // earlier pauses and recoveries in the last minute do not compound into a collapse.
        const full = limiter.rpmCeiling;
        const achieved = (limiter.achievedRpm(now) ?? Infinity) / full;
        const base = achieved < UNDERUSED * limiter.rateScale ? achieved : limiter.rateScale;
        this.#lower(BARE_DECREASE * base, 'fast');
        this.#lastAdaptation = now;
      }
      this.#notify({
        key: `bare:${limiter.project}`,
        text: `${where}: 429 without quota details; pausing briefly and slowing to ${Math.round(BARE_DECREASE * 100)} % of the rate achieved, back to full speed within seconds while no 429 follows.`,
      });
      const backoff = equalJitterDelay(this.#consecutiveBare, this.#random, BARE_PAUSE_MS);
      delay = Math.max(backoff, details.waitMs !== undefined ? serverDelayWithJitter(details.waitMs, this.#random) : 0);
    }
    const until = now + delay;
    limiter.pause(until, perMinute.length > 0 ? `per-minute quota (${perMinute.map(nameOf).join(', ')})` : 'rate limited');
    return { hold: 'paused', until, countsAsAttempt: true };
  }

  /**
   * The 429's wait capped at SERVER_WAIT_CAP_MS (./server-wait.ts explains the bound), said once per project: a
   * server asking for hours or years is probed again after the cap, never waited out.
   */
  #capWait(details: RateLimitDetails, where: string): RateLimitDetails {
    const waitMs = capServerWait(details.waitMs);
    if (waitMs === details.waitMs) return details;
    if (details.waitMs !== undefined && details.waitMs > SERVER_WAIT_CAP_MS) {
      this.#notify({
        key: `long-wait:${this.#limiter.project}`,
        text: `${where}: a 429 asked to wait ${describeWait(details.waitMs)}; pausing ${describeWait(SERVER_WAIT_CAP_MS)} at most, then trying again (a per-minute quota refills within a minute; a daily one is parked when the 429 names it).`,
      });
    }
    return { ...details, waitMs };
  }

  /**
   * A 429 of shared capacity (Vertex Dynamic Shared Quota: "Resource exhausted, please try again later", no details):
   * capacity shared with other customers is short, not a limit of ours, and such 429s come at any rate when the region
   * is busy. So the project does not stop: its rate drops multiplicatively as after a bare 429 (once per adaptation:
   * 429s of requests already in flight lower nothing again) and recovers × 1.2 every 3 s without a 429 — concurrency
   * follows the rate (./concurrency.ts) — while the row alone backs off (./failure-policy.ts). Never parked, never a
   * lowered limit. Source: docs/providers.md "Vertex AI".
   */
  #sharedCapacity(details: RateLimitDetails, now: number, stale: boolean, where: string): RateLimitOutcome {
    const limiter = this.#limiter;
    if (!stale) {
      const achieved = (limiter.achievedRpm(now) ?? Infinity) / limiter.rpmCeiling;
      this.#lower(BARE_DECREASE * (achieved < UNDERUSED * limiter.rateScale ? achieved : limiter.rateScale), 'fast');
      this.#lastAdaptation = now;
    }
    this.#notify({
      key: `shared:${limiter.project}`,
      text: `${where}: 429, shared capacity is busy (no limit of the project was hit); slowing to ${Math.round(BARE_DECREASE * 100)} % of the rate achieved and backing the row off, back up within seconds while no 429 follows. Never a daily stop.`,
    });
    return { hold: 'slowed', until: undefined, waitMs: details.waitMs, countsAsAttempt: true };
  }

  /**
   * Call after each answered request: recovers a lowered rate, probes default limits upward.
   * @param sentAt when the answered request was sent, ms: an answer to a request sent after the last 429 ends a run of
   *   429s without details (the next one pauses briefly again).
   */
  onAnswered(now: number, sentAt: number = -Infinity): void {
    if (sentAt > this.#last429) this.#consecutiveBare = 0;
    const limiter = this.#limiter;
    const interval = this.#recovery === 'fast' ? FAST_RECOVERY_INTERVAL_MS : SLOW_RECOVERY_INTERVAL_MS;
    if (limiter.rateScale < 1) {
      if (now - this.#lastStep >= interval && now - this.#last429 >= interval) {
        limiter.setRateScale(this.#recovery === 'fast' ? limiter.rateScale * FAST_RECOVERY_FACTOR : limiter.rateScale + this.#slowStep);
        this.#lastStep = now;
      }
      return;
    }
    if (now - this.#last429 >= PROBE_INTERVAL_MS && now - this.#lastStep >= PROBE_INTERVAL_MS) {
      const usage = limiter.usage(now);
      const { rpm, tpm } = limiter.limits;
      if (rpm.source === 'default' && usage.requests >= 0.9 * limiter.rpmTarget) limiter.adoptLimit('rpm', Math.ceil(rpm.value * PROBE_FACTOR), 'default');
      if (tpm.source === 'default' && usage.tokens >= 0.9 * limiter.tpmTarget) limiter.adoptLimit('tpm', Math.ceil(tpm.value * PROBE_FACTOR), 'default');
      this.#lastStep = now;
    }
  }

  /**
   * Learns from the limits an answer's headers announced (x-ratelimit-limit-requests/-tokens, OpenAI-style servers,
   * docs/reference/batch-openai-vertex-facts.md §b.2) as from a 429's quotaValue: a server figure below ours, or in place of a default,
   * becomes the limit (said once). Tokens are as the server counts them (prompt plus max_tokens, which the limiter
   * reserves too). The remaining and reset figures are not used: the rolling window already holds the same count.
   */
  onLimitHints(hints: LimitHints, now: number): void {
    const requests = hints.requests?.limit;
    const tokens = hints.tokens?.limit;
    if (requests !== undefined) this.#learnHint('rpm', requests, 'x-ratelimit-limit-requests', now);
    if (tokens !== undefined) this.#learnHint('tpm', tokens, 'x-ratelimit-limit-tokens', now);
  }

  #learnHint(dimension: 'rpm' | 'tpm', value: number, id: string, now: number): void {
    const limit = this.#limiter.limits[dimension];
    if (limit.value === value && limit.source !== 'default') return;
    if (this.#learn(dimension, { dimension: dimension === 'rpm' ? 'requests' : 'input-tokens', period: 'minute', limit: value, id })) this.#lastAdaptation = now;
  }

  /** Lowers the rate scale to `scale` (never raises it) and says how it recovers. */
  #lower(scale: number, recovery: 'fast' | 'slow'): void {
    const limiter = this.#limiter;
    const stillCautious = this.#recovery === 'slow' && limiter.rateScale < 1;
    limiter.setRateScale(Math.min(limiter.rateScale, scale));
    this.#recovery = stillCautious ? 'slow' : recovery;
    this.#slowStep = Math.max(0.1 * limiter.rateScale, 1 / limiter.limits.rpm.value);
  }

  /**
   * Adopts a hit's limit (the server's figure: quotaValue, x-ratelimit-limit-*) as ours when it is lower than ours, or when ours was only a default.
   * @returns true when the 429 is explained by a limit above the real one.
   */
  #learn(dimension: 'rpm' | 'tpm' | 'rpd', hit: RateLimitHit): boolean {
    const limiter = this.#limiter;
    const limit = limiter.limits[dimension];
    const value = hit.limit;
    if (value === undefined || value <= 0) return false;
    if (limit === undefined) {
      limiter.adoptLimit(dimension, value, 'learned');
      this.#onLearned?.(dimension, value);
      return true;
    }
    if (value === limit.value && limit.source === 'learned') return false;
    if (value < limit.value || limit.source === 'default') {
      const before = limit.value;
      limiter.adoptLimit(dimension, value, 'learned');
      this.#onLearned?.(dimension, value);
      this.#notify({
        key: `learned:${limiter.project}:${dimension}:${value}`,
        text: `project ${limiter.project}, ${limiter.model}: the server's ${dimension.toUpperCase()} limit is ${value} (the server's figure for ${nameOf(hit)}); was ${before}. Using ${value}.`,
      });
      return value < before || dimension === 'rpd';
    }
    return false;
  }
}

/** How a notice names a limit: its quotaId or code, else what it counts. */
function nameOf(hit: RateLimitHit): string {
  return hit.id ?? `${hit.dimension} per ${hit.period ?? 'period'}`;
}
