/**
 * The gate of one quota project and model: every request of every key of the project passes here before it is sent.
 * Quotas belong to a Google Cloud project and a model, not to a key (https://ai.google.dev/gemini-api/docs/rate-limits:
 * "Rate limits are applied per project, not per API key"), so the keys of one project share one ProjectLimiter.
 *
 * It combines, per dimension:
 * - RPM: a rolling 60 s window of requests + a pacer spreading them through the window;
 * - TPM: a weighted rolling window of input tokens, reserved from the estimate before sending and corrected with
 *   usageMetadata.promptTokenCount afterwards (given back when the request was rejected) + a token pacer;
 * - RPD: requests counted per quota day of the provider (its {@link QuotaDay}: Gemini's days end at midnight
 *   America/Los_Angeles), persisted by the job through `DailyUsageStore`;
 * and the state a 429 leaves: paused (per-minute quota: retryDelay), parked (daily quota: until the provider's day boundary),
 * disabled (`limit: 0`: the model has no quota on this project). How each quotaId is treated is in ./rate-limit-policy.ts.
 *
 * When a request counts. The server counts a request when it arrives (docs/design.md, facts §7: a rolling window
 * of arrivals is what a 429's retryDelay describes — "the expiry of the oldest request that must leave the window" —
 * and what the issue's independent mock and our simulator implement), so a request must hold its place in our window
 * from the moment it is sent until 60 s after the latest moment it can have arrived:
 * - from {@link ProjectLimiter.acquire} until its arrival is bounded it counts as "sending" (in every window at once);
 * - {@link ProjectLimiter.arrived} moves it into the rolling windows at that bound (./arrival-bound.ts: when its bytes
 *   reached the operating system plus one measured round trip and a margin);
 * - an answer or a failure before that bound proves it arrived by then: it enters the windows at that time.
 * It therefore occupies a window for 60 s + its uplink time, not 60 s + its whole latency: at 20 s per answer the
 * sustainable rate is the limit, not 60/(60+20) of it. Proof that the server never sees more than the limit: take any
 * server window and the last request sent among those it holds, at s*. Each other request j it holds arrived after
 * (window end − 60 s) ≥ s* − 60 s and counts in our window until ≥ its arrival + 60 s, or is still sending: all were
 * counted when s* was allowed, so they number at most the limit.
 */
import type { QuotaDay } from '../providers/contract.js';
import { Pacer } from './pacer.js';
import { DEFAULT_HEADROOM, WINDOW_GUARD_MS, type LimitSource, type ProjectLimits } from './quota-limits.js';
import { RollingWindow, type WindowEntry } from './rolling-window.js';

/** Requests counted per quota day, and daily-quota parks, kept across runs in the job directory. */
export interface DailyUsageStore {
  /** Requests already sent on quota day `day` (QuotaDay.dayOf) for this project and model. */
  get(project: string, model: string, day: string): number;
  /** Records one more request. */
  increment(project: string, model: string, day: string): void;
  /** Until when (ms) a daily 429 parked this project and model, with why; undefined when it is not parked. */
  parked(project: string, model: string): { until: number; reason: string } | undefined;
  /** Remembers a park, so that the next run does not hit the same daily wall. */
  park(project: string, model: string, until: number, reason: string): void;
}

/** What a sent request holds until its answer arrives. Created by {@link ProjectLimiter.acquire}. */
export interface Reservation {
  /** When it was sent, ms. */
  readonly at: number;
  /** Input tokens reserved (the estimate). */
  readonly tokens: number;
  /** True once answered, failed or abandoned: later calls about it change nothing. */
  settled: boolean;
  /** Its entries in the RPM and TPM windows, once its arrival is bounded; undefined while it is still sending. */
  rpmEntry: WindowEntry | undefined;
  tpmEntry: WindowEntry | undefined;
  /** (relative error × tokens)² of its estimate, held in the TPM margin until its promptTokenCount is known. */
  readonly uncertainty: number;
}

export interface ProjectLimiterOptions {
  project: string;
  model: string;
  limits: ProjectLimits;
  /** Fraction kept under the per-minute limits; default {@link DEFAULT_HEADROOM}. */
  headroom?: number;
  daily?: DailyUsageStore;
  /** The provider's calendar of daily quotas (Provider.quotaDay). */
  quotaDay: QuotaDay;
  now: number;
}

/** Why a project takes no requests for now. */
export type Hold =
  | { kind: 'paused'; until: number; reason: string }
  | { kind: 'parked'; until: number; reason: string }
  | { kind: 'disabled'; reason: string };

/** What sets {@link ProjectLimiter.readyAt}: the constraint that holds the next request longest. */
export type LimiterWait = 'none' | 'rpm' | 'tpm' | 'paused' | 'parked' | 'disabled';

/** Standard deviations of the summed estimate error kept free in the TPM window (2.5: about 1 in 160 exceeds it). */
export const TPM_MARGIN_Z = 2.5;

/** A rate is judged from at least this much sending, ms; less is too little to say what the server accepted. */
export const MEANINGFUL_INTERVAL_MS = 15_000;

export class ProjectLimiter {
  readonly project: string;
  readonly model: string;
  /** The provider's calendar of daily quotas. */
  readonly quotaDay: QuotaDay;
  readonly #limits: ProjectLimits;
  readonly #headroom: number;
  readonly #daily: DailyUsageStore | undefined;
  readonly #rpmWindow = new RollingWindow(60_000 + WINDOW_GUARD_MS);
  readonly #tpmWindow = new RollingWindow(60_000 + WINDOW_GUARD_MS);
  /** Requests sent whose arrival is not bounded yet, and their reserved input tokens: counted in every window. */
  #rpmSending = 0;
  #tpmSending = 0;
  readonly #rpmPacer: Pacer;
  readonly #tpmPacer: Pacer;
  /** Multiplier (0, 1] on the per-minute rates after 429s (./rate-limit-policy.ts decides it). */
  #rateScale = 1;
  /** After a 429 although we stayed under the limit: no bursts, only steady pacing. */
  #minimalBurst = false;
  #pausedUntil = 0;
  #pauseReason = '';
  #parkedUntil = 0;
  #parkReason = '';
  #disabledReason: string | undefined;
  /** Σ (relative error × estimate)² of the requests whose promptTokenCount is not known yet (tokens²). */
  #uncertainty = 0;
  /** The token estimator's relative error (./token-estimator.ts). */
  #estimateError = 0;
  /** Largest reservation seen, tokens: the TPM burst must let one such request through. */
  #largestRequest = 1;
  /** When this run's first request was sent, ms. */
  #firstSentAt = Infinity;
  /** The quota day of the last request and when it ends (formatting the date per request costs more than the rest). */
  #day = '';
  #dayEnds = -Infinity;

  constructor(options: ProjectLimiterOptions) {
    this.project = options.project;
    this.model = options.model;
    this.quotaDay = options.quotaDay;
    this.#limits = options.limits;
    this.#headroom = options.headroom ?? DEFAULT_HEADROOM;
    this.#daily = options.daily;
    this.#rpmPacer = new Pacer(1, 1, options.now);
    this.#tpmPacer = new Pacer(1, 1, options.now);
    this.#reconfigure();
  }

  /** The limits in force and where each came from. Change them with {@link adoptLimit}. */
  get limits(): Readonly<{ [K in keyof ProjectLimits]: Readonly<ProjectLimits[K]> }> {
    return this.#limits;
  }

  /**
   * Adopts a limit (a quotaValue, a probe of a default upward, a limit remembered from an earlier run) with its source,
   * and re-derives the pacing from it.
   * @param value requests/min (rpm), input tokens/min (tpm) or requests/day (rpd), > 0.
   * @throws RangeError when value is not a positive number.
   */
  adoptLimit(dimension: keyof ProjectLimits, value: number, source: LimitSource): void {
    if (!(value > 0) || !Number.isFinite(value)) throw new RangeError(`a ${dimension} limit must be a positive number, got ${value}`);
    this.#limits[dimension] = { value, source };
    this.#reconfigure();
  }

  /**
   * Requests per minute we pace ourselves to now (limit × (1 − headroom) × rate scale), ≥ 1. The rolling window itself
   * holds at most {@link rpmCeiling}: a lower rate scale slows the pacing only, so that it takes effect smoothly
   * instead of stopping all sending until the last minute's requests have left a lowered window.
   */
  get rpmTarget(): number {
    return Math.max(1, Math.floor(this.rpmCeiling * this.#rateScale));
  }

  /** Input tokens per minute we pace ourselves to now, ≥ 1. */
  get tpmTarget(): number {
    return Math.max(1, Math.floor(this.tpmCeiling * this.#rateScale));
  }

  /** Requests the rolling window may hold (limit × (1 − headroom)), ≥ 1, whatever 429s did to the rate scale. */
  get rpmCeiling(): number {
    return Math.max(1, Math.floor(this.#limits.rpm.value * (1 - this.#headroom)));
  }

  /** Input tokens the rolling window may hold (limit × (1 − headroom)), ≥ 1. */
  get tpmCeiling(): number {
    return Math.max(1, Math.floor(this.#limits.tpm.value * (1 - this.#headroom)));
  }

  /**
   * How far off token estimates may be, as a fraction (the estimator's relative error). The TPM window keeps a margin
   * of {@link TPM_MARGIN_Z} standard deviations of the summed error of every request whose promptTokenCount is not known
   * yet: independent errors partly cancel, so the margin grows with the square root of what is in flight, not with it.
   */
  setEstimateError(relativeError: number): void {
    this.#estimateError = Math.max(0, relativeError);
  }

  /** The multiplier (0, 1] 429s left on the per-minute rates. */
  get rateScale(): number {
    return this.#rateScale;
  }

  /** Sets the rate scale, clamped to [0.001, 1] (never below 0.1 % of the limit). */
  setRateScale(scale: number): void {
    this.#rateScale = Math.max(0.001, Math.min(1, scale));
    this.#reconfigure();
  }

  /** Re-derives pacer rates and bursts from the limits and the rate scale. */
  #reconfigure(): void {
    const rpm = this.rpmTarget;
    const tpm = this.tpmTarget;
    // Burst: one second's worth (a sixth of what a server with a 10 s bucket allows), one request when minimal. A TPM
    // burst lets the largest request seen through, up to what the window may hold.
    const rpmBurst = this.#minimalBurst ? 1 : Math.max(1, Math.floor(rpm / 60));
    const tpmBurst = Math.min(this.tpmCeiling, Math.max(this.#largestRequest, this.#minimalBurst ? 0 : Math.floor(tpm / 60)));
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
    const rpd = this.#limits.rpd;
    if (rpd && this.#daily) {
      const day = this.#quotaDayOf(now);
      if (this.#daily.get(this.project, this.model, day) >= rpd.value) {
        this.park(this.nextDayBoundary(now), `requests per day reached (RPD ${rpd.value})`);
        return { kind: 'parked', until: this.#parkedUntil, reason: this.#parkReason };
      }
    }
    if (this.#pausedUntil > now) return { kind: 'paused', until: this.#pausedUntil, reason: this.#pauseReason };
    return undefined;
  }

  /**
   * The pause, park or disablement in force at `now` as last decided; unlike {@link hold} it decides nothing (the RPD
   * count is not checked, nothing is parked): for reports.
   */
  heldAt(now: number): Hold | undefined {
    if (this.#disabledReason !== undefined) return { kind: 'disabled', reason: this.#disabledReason };
    if (this.#parkedUntil > now) return { kind: 'parked', until: this.#parkedUntil, reason: this.#parkReason };
    if (this.#pausedUntil > now) return { kind: 'paused', until: this.#pausedUntil, reason: this.#pauseReason };
    return undefined;
  }

  /**
   * Earliest time ≥ now at which a request of `tokens` estimated input tokens may start.
   * @returns Infinity when the project is disabled or parked, when `tokens` exceeds the TPM target (never fits), or
   *   when only answers to requests in flight can make room (call again after the next answer).
   */
  readyAt(tokens: number, now: number): number {
    return this.whenReady(tokens, now).at;
  }

  /** {@link readyAt} with the constraint that sets it (`none` when a request may start now). */
  whenReady(tokens: number, now: number): { at: number; wait: LimiterWait } {
    return this.#whenReady(tokens, 0, now);
  }

  /**
   * {@link whenReady} for a request of `tokens` if one other request of `aheadTokens` were sent at `now` first (it would
   * count in every window from now until at least 60 s later, so it is counted as still sending). The dispatcher's
   * look-ahead asks this before sending a later row in front of a waiting one (./look-ahead.ts).
   */
  whenReadyAfter(tokens: number, aheadTokens: number, now: number): { at: number; wait: LimiterWait } {
    return this.#whenReady(tokens, aheadTokens, now);
  }

  /** @param ahead input tokens of one request imagined sent at `now` before this one; 0: none. */
  #whenReady(tokens: number, ahead: number, now: number): { at: number; wait: LimiterWait } {
    const hold = this.hold(now);
    if (hold && hold.kind !== 'paused') return { at: Infinity, wait: hold.kind };
    const tpm = this.tpmCeiling;
    if (tokens > tpm) return { at: Infinity, wait: 'tpm' };
    const paused = hold?.until ?? now;
    const aheadRequests = ahead > 0 ? 1 : 0;
    const rpmAt = Math.max(
      this.#rpmWindow.earliestFit(1 + this.#rpmSending + aheadRequests, this.rpmCeiling, now),
      this.#rpmPacer.earliestAfter(aheadRequests, 1, now),
    );
    // The margin never makes a request that fits an empty window wait forever: it is capped at what is left.
    const needed = tokens + ahead + this.#tpmSending;
    const margin = TPM_MARGIN_Z * Math.sqrt(this.#uncertainty + (this.#estimateError * tokens) ** 2 + (this.#estimateError * ahead) ** 2);
    const weight = needed > tpm ? needed : Math.min(tpm, needed + margin);
    const tpmAt = Math.max(this.#tpmWindow.earliestFit(weight, tpm, now), this.#tpmPacer.earliestAfter(ahead, tokens, now));
    const at = Math.max(paused, rpmAt, tpmAt);
    if (at <= now) return { at, wait: 'none' };
    return { at, wait: paused >= rpmAt && paused >= tpmAt ? 'paused' : rpmAt >= tpmAt ? 'rpm' : 'tpm' };
  }

  /**
   * Input tokens the TPM window has room for now (its ceiling less what it holds and what is still sending), ≥ 0: an
   * upper bound on what a request may reserve now, before the estimate margin and the pacer.
   */
  tpmRoom(now: number): number {
    return Math.max(0, this.tpmCeiling - this.#tpmWindow.sum(now) - this.#tpmSending);
  }

  /** True when a request of `tokens` can never pass this project's TPM window. */
  tooLarge(tokens: number): boolean {
    return tokens > this.tpmCeiling;
  }

  /** Records a request starting now (call only when {@link readyAt} ≤ now); it counts as sending until {@link arrived}. */
  acquire(tokens: number, now: number): Reservation {
    if (tokens > this.#largestRequest) {
      this.#largestRequest = tokens;
      this.#reconfigure();
    }
    this.#firstSentAt = Math.min(this.#firstSentAt, now);
    this.#rpmPacer.take(1, now);
    this.#tpmPacer.take(tokens, now);
    this.#daily?.increment(this.project, this.model, this.#quotaDayOf(now));
    this.#rpmSending += 1;
    this.#tpmSending += tokens;
    const uncertainty = (this.#estimateError * tokens) ** 2;
    this.#uncertainty += uncertainty;
    return { at: now, tokens, settled: false, rpmEntry: undefined, tpmEntry: undefined, uncertainty };
  }

  /**
   * The latest time the server can have received the request is `arrivalBound` (ms, from ./arrival-bound.ts): it leaves
   * the sending count and holds its place in the rolling windows from then on. Ignored once it is in the windows.
   */
  arrived(reservation: Reservation, arrivalBound: number): void {
    if (reservation.rpmEntry !== undefined || reservation.settled) return;
    this.#enterWindows(reservation, Math.max(arrivalBound, reservation.at), reservation.tokens);
  }

  /**
   * Records the answer to a request at `now`: its input tokens are corrected to the answer's
   * usageMetadata.promptTokenCount (the estimate is kept when that is 0). A request still counted as sending enters the
   * windows at `now`: the answer proves it arrived by then.
   */
  settle(reservation: Reservation, promptTokenCount: number, now: number): void {
    if (reservation.settled) return;
    const tokens = promptTokenCount > 0 ? promptTokenCount : reservation.tokens;
    this.#close(reservation, tokens, now);
    this.#tpmPacer.adjust(tokens - reservation.tokens);
  }

  /**
   * Records a request that got no answer with usage (rejected, failed, abandoned): it stays counted as a request, but
   * its reserved input tokens are given back — a rejected request consumes no TPM.
   */
  refund(reservation: Reservation, now: number): void {
    if (reservation.settled) return;
    this.#close(reservation, 0, now);
    this.#tpmPacer.adjust(-reservation.tokens);
  }

  #close(reservation: Reservation, tokens: number, now: number): void {
    if (reservation.tpmEntry === undefined) this.#enterWindows(reservation, Math.max(now, reservation.at), tokens);
    else this.#tpmWindow.reweigh(reservation.tpmEntry, tokens);
    reservation.settled = true;
    this.#uncertainty = Math.max(0, this.#uncertainty - reservation.uncertainty);
  }

  #enterWindows(reservation: Reservation, at: number, tokens: number): void {
    this.#rpmSending -= 1;
    this.#tpmSending -= reservation.tokens;
    reservation.rpmEntry = this.#rpmWindow.add(1, at);
    reservation.tpmEntry = this.#tpmWindow.add(tokens, at);
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
   * Requests per minute this project actually sent over the last minute (or since its first request, when that is
   * sooner), counting requests still sending; undefined before {@link MEANINGFUL_INTERVAL_MS} of sending.
   */
  achievedRpm(now: number): number | undefined {
    const span = Math.min(60_000, now - this.#firstSentAt);
    if (!(span >= MEANINGFUL_INTERVAL_MS)) return undefined;
    return (this.usage(now).requests * 60_000) / span;
  }

  /** Turns bursts off: requests are only paced. */
  useMinimalBurst(): void {
    if (this.#minimalBurst) return;
    this.#minimalBurst = true;
    this.#reconfigure();
  }

  /** When the daily quotas reset next after `now`, ms: the provider's day boundary. */
  nextDayBoundary(now: number): number {
    return this.quotaDay.nextBoundary(now);
  }

  #quotaDayOf(now: number): string {
    if (now >= this.#dayEnds || now < this.#dayEnds - 25 * 3_600_000) {
      this.#day = this.quotaDay.dayOf(now);
      this.#dayEnds = this.quotaDay.nextBoundary(now);
    }
    return this.#day;
  }

  /** Requests and input tokens in the current rolling window, those still sending included (for reports and tests). */
  usage(now: number): { requests: number; tokens: number } {
    return { requests: this.#rpmWindow.sum(now) + this.#rpmSending, tokens: this.#tpmWindow.sum(now) + this.#tpmSending };
  }
}
