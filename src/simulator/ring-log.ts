/**
 * A growable ring buffer of (time, amount) events in non-decreasing time order, with O(1) amortized
 * push/prune, O(1) count and sum, and O(log n) "how many of the oldest events must leave to free X".
 * The building block of rolling windows (RPM/TPM) and of the 60 s peak trackers.
 */
export class RingLog {
  private times: Float64Array;
  /** Running total of amounts up to and including each entry (monotone). */
  private cums: Float64Array;
  private mask: number;
  private head = 0;
  private length = 0;
  /** Sum of all amounts ever pushed. */
  private total = 0;
  /** Running total of the entries already dropped. */
  private dropped = 0;
  private lastTime = -Infinity;

  constructor(initialCapacity = 64) {
    let cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    this.times = new Float64Array(cap);
    this.cums = new Float64Array(cap);
    this.mask = cap - 1;
  }

  /** Events currently held. */
  get count(): number {
    return this.length;
  }

  /** Sum of the amounts currently held. */
  get sum(): number {
    return this.total - this.dropped;
  }

  /** Appends an event. A time earlier than the last one is clamped to it (keeps the order invariant). */
  push(time: number, amount: number): void {
    if (this.length === this.times.length) this.grow();
    const t = time < this.lastTime ? this.lastTime : time;
    this.lastTime = t;
    const idx = (this.head + this.length) & this.mask;
    this.total += amount;
    this.times[idx] = t;
    this.cums[idx] = this.total;
    this.length++;
  }

  /** Drops every event with time <= `cutoff`. */
  dropThrough(cutoff: number): void {
    while (this.length > 0 && this.times[this.head]! <= cutoff) {
      this.dropped = this.cums[this.head]!;
      this.head = (this.head + 1) & this.mask;
      this.length--;
    }
  }

  /** Time of the i-th oldest event held (0-based). */
  timeAt(i: number): number {
    return this.times[(this.head + i) & this.mask]!;
  }

  /**
   * The smallest i such that dropping the i+1 oldest events removes at least `amount`, or -1 if even
   * dropping everything does not. Binary search over the running totals.
   */
  indexFreeing(amount: number): number {
    if (amount <= 0) return 0;
    if (this.sum < amount) return -1;
    let lo = 0;
    let hi = this.length - 1;
    const target = this.dropped + amount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cums[(this.head + mid) & this.mask]! >= target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Forgets every event (the running totals restart). */
  clear(): void {
    this.head = 0;
    this.length = 0;
    this.total = 0;
    this.dropped = 0;
  }

  private grow(): void {
    const cap = this.times.length * 2;
    const times = new Float64Array(cap);
    const cums = new Float64Array(cap);
    for (let i = 0; i < this.length; i++) {
      const idx = (this.head + i) & this.mask;
      times[i] = this.times[idx]!;
      cums[i] = this.cums[idx]!;
    }
    this.times = times;
    this.cums = cums;
    this.mask = cap - 1;
    this.head = 0;
  }
}
