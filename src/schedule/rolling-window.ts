/**
 * A sliding log of weighted events over a rolling window: the exact sum of the weights of the events whose time lies in
 * (now − windowMs, now]. Weights can be corrected after the fact (a TPM reservation corrected with
 * usageMetadata.promptTokenCount) or zeroed (refunded). Amortized O(1) per event.
 *
 * This is the rolling-window half of a per-project limit (RPM: weight 1 per request; TPM: weight = input tokens).
 * Google does not document whether its per-minute window is rolling or clock-aligned
 * (../shared/reference/gemini-api-facts.md §1.3); a rolling window ≤ L also keeps every clock minute ≤ L.
 */

/** One event in the window; hold on to it to correct its weight later. */
export interface WindowEntry {
  /** When the event happened (ms since epoch). */
  readonly at: number;
  /** Its current weight (requests, tokens). */
  weight: number;
}

export class RollingWindow {
  /** Length of the window, ms. */
  readonly windowMs: number;
  #entries: WindowEntry[] = [];
  #head = 0;
  #sum = 0;

  /**
   * @param windowMs length of the rolling window in ms (> 0). Default 60,000.
   * @throws RangeError when windowMs is not a positive finite number.
   */
  constructor(windowMs = 60_000) {
    if (!(windowMs > 0) || !Number.isFinite(windowMs)) throw new RangeError(`windowMs must be a positive number, got ${windowMs}`);
    this.windowMs = windowMs;
  }

  /**
   * Records an event. Times must not go backwards (events are added as they happen).
   * @returns the entry, to pass to {@link adjust}.
   */
  add(weight: number, at: number): WindowEntry {
    const entry = { at, weight };
    this.#entries.push(entry);
    this.#sum += weight;
    return entry;
  }

  /** Changes an entry's weight (correction, or 0 to refund). Has no effect once the entry has left the window. */
  adjust(entry: WindowEntry, weight: number): void {
    if (!this.#contains(entry)) {
      entry.weight = weight;
      return;
    }
    this.#sum += weight - entry.weight;
    entry.weight = weight;
  }

  /** Sum of the weights in (now − windowMs, now]. */
  sum(now: number): number {
    this.#evict(now);
    return this.#sum;
  }

  /** Number of entries in the window (including zero-weight ones). */
  count(now: number): number {
    this.#evict(now);
    return this.#entries.length - this.#head;
  }

  /**
   * The earliest time t ≥ now at which an event of `weight` fits: sum(t) + weight ≤ limit.
   * @returns now when it fits already; Infinity when weight > limit (it never fits).
   */
  earliestFit(weight: number, limit: number, now: number): number {
    if (weight > limit) return Infinity;
    this.#evict(now);
    let excess = this.#sum + weight - limit;
    if (excess <= 0) return now;
    for (let i = this.#head; i < this.#entries.length; i++) {
      const entry = this.#entries[i] as WindowEntry;
      excess -= entry.weight;
      if (excess <= 0) return entry.at + this.windowMs;
    }
    return Infinity; // unreachable: the whole window expiring leaves weight ≤ limit
  }

  #contains(entry: WindowEntry): boolean {
    const first = this.#entries[this.#head];
    return first !== undefined && entry.at >= first.at && this.#entries.length > this.#head;
  }

  #evict(now: number): void {
    const horizon = now - this.windowMs;
    const entries = this.#entries;
    let head = this.#head;
    while (head < entries.length && (entries[head] as WindowEntry).at <= horizon) {
      this.#sum -= (entries[head] as WindowEntry).weight;
      head++;
    }
    if (head > 1024 && head * 2 > entries.length) {
      this.#entries = entries.slice(head);
      head = 0;
    }
    this.#head = head;
    if (this.#head === this.#entries.length) this.#sum = 0; // no drift from float corrections
  }
}
