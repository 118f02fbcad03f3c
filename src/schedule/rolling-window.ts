/**
 * A sliding log of weighted events over a rolling window: the exact sum of the weights of the events whose time lies in
 * (now − windowMs, now]. Amortized O(1) per event.
 *
 * This is the rolling-window half of a per-project limit (RPM: weight 1 per request; TPM: weight = input tokens).
 * Google does not document whether its per-minute window is rolling or clock-aligned
 * (../shared/reference/gemini-api-facts.md §1.3); a rolling window ≤ L also keeps every clock minute ≤ L.
 */

interface WindowEntry {
  /** When the event happened (ms since epoch). */
  readonly at: number;
  /** Its weight (requests, tokens). */
  readonly weight: number;
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

  /** Records an event of `weight` at `at` (ms). Times must not go backwards (events are added as they happen). */
  add(weight: number, at: number): void {
    this.#entries.push({ at, weight });
    this.#sum += weight;
  }

  /** Sum of the weights in (now − windowMs, now]. */
  sum(now: number): number {
    this.#evict(now);
    return this.#sum;
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
    if (this.#head === this.#entries.length) this.#sum = 0;
  }
}
