/**
 * A sliding log of weighted events over a rolling window: the exact sum of the weights of the events whose time lies in
 * (now − windowMs, now]. Amortized O(1) per event.
 *
 * This is the rolling-window half of a per-project limit (RPM: weight 1 per request; TPM: weight = input tokens).
 * Google does not document whether its per-minute window is rolling or clock-aligned
 * (docs/reference/gemini-api-facts.md §1.3); a rolling window ≤ L also keeps every clock minute ≤ L.
 *
 * An event's weight may be corrected after it was added ({@link RollingWindow.reweigh}): a request enters the TPM window
 * with its estimated input tokens and is corrected to usageMetadata.promptTokenCount when its answer comes.
 */

/** One event in the window. Returned by {@link RollingWindow.add} so that its weight can be corrected later. */
export interface WindowEntry {
  /** When the event counts from (ms since epoch). */
  readonly at: number;
  /** Its weight (requests, tokens). */
  weight: number;
  /** Set once the entry has left the window: correcting it then changes nothing. */
  expired: boolean;
}

export class RollingWindow {
  /** Length of the window, ms. */
  readonly windowMs: number;
  #entries: WindowEntry[] = [];
  #head = 0;
  #sum = 0;
  #lastAt = -Infinity;

  /**
   * @param windowMs length of the rolling window in ms (> 0). Default 60,000.
   * @throws RangeError when windowMs is not a positive finite number.
   */
  constructor(windowMs = 60_000) {
    if (!(windowMs > 0) || !Number.isFinite(windowMs)) throw new RangeError(`windowMs must be a positive number, got ${windowMs}`);
    this.windowMs = windowMs;
  }

  /**
   * Records an event of `weight` at `at` (ms). An `at` earlier than the latest event's is moved up to it: the event then
   * stays in the window a little longer than it needs to, never shorter.
   * @returns the entry, to correct its weight with {@link reweigh}.
   */
  add(weight: number, at: number): WindowEntry {
    const entry: WindowEntry = { at: Math.max(at, this.#lastAt), weight, expired: false };
    this.#lastAt = entry.at;
    this.#entries.push(entry);
    this.#sum += weight;
    return entry;
  }

  /** Sets an entry's weight (a corrected estimate); an entry that already left the window is only relabelled. */
  reweigh(entry: WindowEntry, weight: number): void {
    if (!entry.expired) this.#sum += weight - entry.weight;
    entry.weight = weight;
  }

  /** Sum of the weights in (now − windowMs, now]. */
  sum(now: number): number {
    this.#evict(now);
    return this.#sum;
  }

  /** Time of the latest event, or −Infinity when none was added. */
  get lastAt(): number {
    return this.#lastAt;
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
      const entry = entries[head] as WindowEntry;
      this.#sum -= entry.weight;
      entry.expired = true;
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
