/**
 * The gate of one quota project and model: every request of every key of the project passes here before it is sent.
 * Quotas belong to a Google Cloud project and a model, not to a key (https://ai.google.dev/gemini-api/docs/rate-limits:
 * "Rate limits are applied per project, not per API key"), so the keys of one project share one ProjectLimiter.
 *
 * It combines, per dimension:
 * - RPM: a rolling 60 s window of requests + a pacer spreading them through the window;
 * - TPM: a weighted rolling window of input tokens, reserved from the estimate before sending and corrected with
 *   usageMetadata.promptTokenCount afterwards (refunded when the request was rejected) + a token pacer;
 * A request counts as "in flight" from the moment it is sent until its answer, and enters the rolling window at the
 * time of its answer: the server counted it at its arrival, somewhere between the two, so it leaves our window no
 * earlier than it leaves the server's, whatever the network and our own event loop delayed.
 * - RPD: requests counted per America/Los_Angeles day (persisted by the job through `DailyUsageStore`);
 * and the state a 429 leaves: paused (per-minute quota: retryDelay), parked (daily quota: until Pacific midnight),
 * disabled (`limit: 0`: the model has no quota on this project). How each quotaId is treated is in ./rate-limit-policy.ts.
 */
import { nextPacificMidnight, pacificDay } from './pacific-day.js';
import { Pacer } from './pacer.js';
import { DEFAULT_HEADROOM, WINDOW_GUARD_MS, type ProjectLimits } from './quota-limits.js';
import { RollingWindow } from './rolling-window.js';

/** Requests counted per Pacific day, and daily-quota parks, kept across runs in the job directory. */
export interface DailyUsageStore {
  /** Requests already sent today (Pacific) for this project and model. */
  get(project: string, model: string, day: string): number;
  /** Records one more request. */
  increment(project: string, model: string, day: string): void;
  /** Until when (ms) a daily 429 parked this project and model, with why; undefined when it is not parked. */
  parked(project: string, model: string): { until: number; reason: string } | undefined;
  /** Remembers a park, so that the next run does not hit the same daily wall. */
  park(project: string, model: string, until: number, reason: string): void;
}

/** What a sent request holds until its answer arrives. */
export interface Reservation {
  /** When it was sent, ms. */
  readonly at: number;
  /** Input tokens reserved (the estimate). */
  readonly tokens: number;
  settled: boolean;
}

export interface ProjectLimiterOptions {
  project: string;
  model: string;
  limits: ProjectLimits;
  /** Fraction kept under the per-minute limits; default {@link DEFAULT_HEADROOM}. */
  headroom?: number;
  daily?: DailyUsageStore;
  now: number;
}

/** Why a project takes no requests for now. */
export type Hold =
  | { kind: 'paused'; until: number; reason: string }
  | { kind: 'parked'; until: number; reason: string }
  | { kind: 'disabled'; reason: string };

export class ProjectLimiter {
  readonly project: string;
  readonly model: string;
  readonly limits: ProjectLimits;
  readonly #headroom: number;
  readonly #daily: DailyUsageStore | undefined;
  readonly #rpmWindow = new RollingWindow(60_000 + WINDOW_GUARD_MS);
  readonly #tpmWindow = new RollingWindow(60_000 + WINDOW_GUARD_MS);
  /** Requests sent and not yet answered, and their reserved input tokens. */
  #rpmInFlight = 0;
  #tpmInFlight = 0;
  readonly #rpmPacer: Pacer;
  readonly #tpmPacer: Pacer;
  /** Multiplier (0, 1] on the per-minute rates after 429s that name no limit; recovers additively. */
  #rateScale = 1;
  /** What one recovery step adds to the rate scale: a tenth of the scale the last slow-down set. */
  #recoveryStep = 0.05;
  /** After a 429 although we stayed under the limit: no bursts, only steady pacing. */
  #minimalBurst = false;
  #pausedUntil = 0;
  #pauseReason = '';
  #parkedUntil = 0;
  #parkReason = '';
  #disabledReason: string | undefined;
  /** Largest reservation seen, tokens: the TPM burst must let one such request through. */
  #largestRequest = 1;
  /** The Pacific day of the last request and when it ends (formatting the date per request costs more than the rest). */
  #day = '';
  #dayEnds = -Infinity;

  constructor(options: ProjectLimiterOptions) {
    this.project = options.project;
    this.model = options.model;
    this.limits = options.limits;
    this.#headroom = options.headroom ?? DEFAULT_HEADROOM;
    this.#daily = options.daily;
    this.#rpmPacer = new Pacer(1, 1, options.now);
    this.#tpmPacer = new Pacer(1, 1, options.now);
    this.reconfigure();
  }

  /** Requests per minute we allow ourselves now (limit × (1 − headroom) × rate scale), ≥ 1. */
  get rpmTarget(): number {
    return Math.max(1, Math.floor(this.limits.rpm.value * (1 - this.#headroom) * this.#rateScale));
  }

  /** Input tokens per minute we allow ourselves now, ≥ 1. */
  get tpmTarget(): number {
    return Math.max(1, Math.floor(this.limits.tpm.value * (1 - this.#headroom) * this.#rateScale));
  }

  get rateScale(): number {
    return this.#rateScale;
  }

  /** Re-derives pacer rates and bursts from the limits; call after changing `limits` or the rate scale. */
  reconfigure(): void {
    const rpm = this.rpmTarget;
    const tpm = this.tpmTarget;
    // Burst: one second's worth (a sixth of what a server with a 10 s bucket allows), one request when minimal.
    const rpmBurst = this.#minimalBurst ? 1 : Math.max(1, Math.floor(rpm / 60));
    const tpmBurst = Math.max(this.#largestRequest, this.#minimalBurst ? 0 : Math.floor(tpm / 60));
    this.#rpmPacer.configure(rpm, rpmBurst);
    this.#tpmPacer.configure(tpm, tpmBurst);
  }

  /** The current hold, if the project takes no requests at `now`. */
  hold(now: number): Hold | undefined {
    if (this.#disabledReason !== undefined) return { kind: 'disabled', reason: this.#disabledReason };
    const remembered = this.#daily?.parked(this.project, this.model);
    if (remembered && remembered.until > this.#parkedUntil) {
      this.#parkedUntil = remembered.until;
      this.#parkReason = remembered.reason;
    }
    if (this.#parkedUntil > now) return { kind: 'parked', until: this.#parkedUntil, reason: this.#parkReason };
    const rpd = this.limits.rpd;
    if (rpd && this.#daily) {
      const day = this.#pacificDay(now);
      if (this.#daily.get(this.project, this.model, day) >= rpd.value) {
        this.park(nextPacificMidnight(now), `requests per day reached (RPD ${rpd.value})`);
        return { kind: 'parked', until: this.#parkedUntil, reason: this.#parkReason };
      }
    }
    if (this.#pausedUntil > now) return { kind: 'paused', until: this.#pausedUntil, reason: this.#pauseReason };
    return undefined;
  }

  /**
   * Earliest time ≥ now at which a request of `tokens` estimated input tokens may start.
   * @returns Infinity when the project is disabled or parked, when `tokens` exceeds the TPM target (never fits), or
   *   when only answers to requests in flight can make room (call again after the next answer).
   */
  readyAt(tokens: number, now: number): number {
    const hold = this.hold(now);
    if (hold && hold.kind !== 'paused') return Infinity;
    const tpm = this.tpmTarget;
    if (tokens > tpm) return Infinity;
    return Math.max(
      hold?.until ?? now,
      this.#rpmWindow.earliestFit(1 + this.#rpmInFlight, this.rpmTarget, now),
      this.#tpmWindow.earliestFit(tokens + this.#tpmInFlight, tpm, now),
      this.#rpmPacer.earliest(1, now),
      this.#tpmPacer.earliest(tokens, now),
    );
  }

  /** True when a request of `tokens` can never pass this project's TPM target. */
  tooLarge(tokens: number): boolean {
    return tokens > this.tpmTarget;
  }

  /** Records a request starting now (call only when {@link readyAt} ≤ now). */
  acquire(tokens: number, now: number): Reservation {
    if (tokens > this.#largestRequest) {
      this.#largestRequest = tokens;
      this.reconfigure();
    }
    this.#rpmPacer.take(1, now);
    this.#tpmPacer.take(tokens, now);
    this.#daily?.increment(this.project, this.model, this.#pacificDay(now));
    this.#rpmInFlight += 1;
    this.#tpmInFlight += tokens;
    return { at: now, tokens, settled: false };
  }

  /**
   * Records the answer to a request: it leaves the in-flight count and enters the rolling windows at `now`, its input
   * tokens corrected to the answer's usageMetadata.promptTokenCount (the estimate is kept when that is 0).
   */
  settle(reservation: Reservation, promptTokenCount: number, now: number): void {
    if (reservation.settled) return;
    reservation.settled = true;
    const tokens = promptTokenCount > 0 ? promptTokenCount : reservation.tokens;
    this.#leaveFlight(reservation);
    this.#rpmWindow.add(1, now);
    this.#tpmWindow.add(tokens, now);
    this.#tpmPacer.adjust(tokens - reservation.tokens);
  }

  /**
   * Records a request that got no answer with usage (rejected, failed, abandoned): it stays counted as a request, at
   * `now`, but its reserved input tokens are given back — a rejected request consumes no TPM.
   */
  refund(reservation: Reservation, now: number): void {
    if (reservation.settled) return;
    reservation.settled = true;
    this.#leaveFlight(reservation);
    this.#rpmWindow.add(1, now);
    this.#tpmPacer.adjust(-reservation.tokens);
  }

  #leaveFlight(reservation: Reservation): void {
    this.#rpmInFlight -= 1;
    this.#tpmInFlight -= reservation.tokens;
  }

  /** Stops new requests until `until` (ms); a later pause extends, an earlier one does not shorten. */
  pause(until: number, reason: string): void {
    if (until > this.#pausedUntil) {
      this.#pausedUntil = until;
      this.#pauseReason = reason;
    }
  }

  /** Parks the project until `until` (a daily quota is gone), and remembers it in the job directory. */
  park(until: number, reason: string): void {
    if (until > this.#parkedUntil) {
      this.#parkedUntil = until;
      this.#parkReason = reason;
      this.#daily?.park(this.project, this.model, until, reason);
    }
  }

  /** The model cannot run on this project (e.g. `limit: 0`). */
  disable(reason: string): void {
    this.#disabledReason ??= reason;
  }

  /**
   * Multiplicative decrease: the per-minute targets become `factor` × what they are. Used when the server's limit is
   * known (a quotaValue) and a 429 came anyway: its burst is smaller, or another client shares the project.
   */
  scaleRate(factor: number): void {
    this.#setScale(this.#rateScale * factor);
  }

  /**
   * Multiplicative decrease after a 429 that names no limit: the request rate becomes `factor` × the lower of our target
   * and the requests the server's window can have seen — those answered in our rolling window plus those in flight.
   * The server refused with at most that many in its window, so a limit far above it (a default, or an --rpm set too
   * high) must not make "× 0.7" change nothing.
   */
  slowDown(factor: number, now: number): void {
    const seen = this.usage(now).requests;
    const fromSeen = seen > 0 ? (factor * seen) / (this.limits.rpm.value * (1 - this.#headroom)) : 1;
    this.#setScale(Math.min(this.#rateScale * factor, fromSeen));
  }

  /** Sets the rate scale (never below 0.1 % of the limit); a recovery step is a tenth of the new scale. */
  #setScale(scale: number): void {
    this.#rateScale = Math.max(0.001, Math.min(1, scale));
    this.#recoveryStep = Math.max(0.1 * this.#rateScale, 1 / this.limits.rpm.value);
    this.reconfigure();
  }

  /** Additive increase: one step (a tenth of the rate the last slow-down set), up to the full limit. */
  recoverRate(): void {
    if (this.#rateScale >= 1) return;
    this.#rateScale = Math.min(1, this.#rateScale + this.#recoveryStep);
    this.reconfigure();
  }

  /** Turns bursts off: requests are only paced. */
  useMinimalBurst(): void {
    if (this.#minimalBurst) return;
    this.#minimalBurst = true;
    this.reconfigure();
  }

  #pacificDay(now: number): string {
    if (now >= this.#dayEnds || now < this.#dayEnds - 25 * 3_600_000) {
      this.#day = pacificDay(now);
      this.#dayEnds = nextPacificMidnight(now);
    }
    return this.#day;
  }

  /** Requests and input tokens in the current rolling window, in flight included (for reports and tests). */
  usage(now: number): { requests: number; tokens: number } {
    return { requests: this.#rpmWindow.sum(now) + this.#rpmInFlight, tokens: this.#tpmWindow.sum(now) + this.#tpmInFlight };
  }
}
