/**
 * Spreads events through time at a steady rate with a small burst (GCRA, the virtual-scheduling form of a token bucket
 * that starts nearly empty). Requests are paced through the window instead of sending a minute's budget at once,
 * because a server may enforce its per-minute limit with a smaller burst (a token bucket) — docs/design.md
 * "Pacing". A bucket that starts full would send up to 2× the limit in its first minute (the full bucket plus a
 * minute of refill), which a rolling-window server answers with 429s.
 */
export class Pacer {
  #msPerUnit: number;
  #burst: number;
  /** Theoretical arrival time: when the next unit would be due at exactly the rate. */
  #tat: number;

  /**
   * @param ratePerMinute units (requests or tokens) per minute, > 0.
   * @param burst units that may pass at once after idle time (≥ 1 unit's worth is sensible).
   * @param now start time, ms; the pacer starts with no credit beyond `burst`.
   */
  constructor(ratePerMinute: number, burst: number, now: number) {
    this.#msPerUnit = 60_000 / ratePerMinute;
    this.#burst = burst;
    this.#tat = now;
  }

  /** Changes the rate (units/minute) and burst; credit already earned is kept. */
  configure(ratePerMinute: number, burst: number): void {
    this.#msPerUnit = 60_000 / ratePerMinute;
    this.#burst = burst;
  }

  get burst(): number {
    return this.#burst;
  }

  /** Earliest time ≥ now at which `units` may pass. */
  earliest(units: number, now: number): number {
    const tolerance = this.#burst * this.#msPerUnit;
    return Math.max(now, this.#tat + units * this.#msPerUnit - tolerance);
  }

  /**
   * Earliest time ≥ now at which `units` may pass if `ahead` units passed at `now` first (what {@link take} of `ahead`
   * now would leave): for asking whether sending something else first delays a waiting request.
   */
  earliestAfter(ahead: number, units: number, now: number): number {
    if (ahead <= 0) return this.earliest(units, now);
    const tolerance = this.#burst * this.#msPerUnit;
    return Math.max(now, Math.max(this.#tat, now) + (ahead + units) * this.#msPerUnit - tolerance);
  }

  /** Records `units` passing at `now` (call when {@link earliest} ≤ now). */
  take(units: number, now: number): void {
    this.#tat = Math.max(this.#tat, now) + units * this.#msPerUnit;
  }

  /** Corrects a past take by `delta` units (positive: it cost more; negative: refund). */
  adjust(delta: number): void {
    this.#tat += delta * this.#msPerUnit;
  }
}
