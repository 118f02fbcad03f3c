/**
 * A min-heap of timed events for simulations in tests: `pop` gives the earliest `at`, and among events at the same
 * time the one pushed first (the order a stable sort by `at` would give, without sorting on every step).
 */
export class EventHeap<T> {
  readonly #items: Array<{ at: number; seq: number; value: T }> = [];
  #seq = 0;

  /** Events held. */
  get size(): number {
    return this.#items.length;
  }

  /** The earliest event's time (ms, or whatever unit `push` was given); Infinity when empty. */
  get nextAt(): number {
    return this.#items[0]?.at ?? Infinity;
  }

  /** Adds `value` due at `at`. */
  push(at: number, value: T): void {
    const items = this.#items;
    items.push({ at, seq: this.#seq++, value });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** Removes and returns the earliest event's value; throws RangeError when empty. */
  pop(): T {
    const items = this.#items;
    const top = items[0];
    if (!top) throw new RangeError('pop from an empty EventHeap');
    const last = items.pop() as (typeof items)[number];
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        let least = i;
        if (l < items.length && this.#before(l, least)) least = l;
        if (l + 1 < items.length && this.#before(l + 1, least)) least = l + 1;
        if (least === i) break;
        this.#swap(i, least);
        i = least;
      }
    }
    return top.value;
  }

  #before(i: number, j: number): boolean {
    const a = this.#items[i] as { at: number; seq: number };
    const b = this.#items[j] as { at: number; seq: number };
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const items = this.#items;
    [items[i], items[j]] = [items[j] as (typeof items)[number], items[i] as (typeof items)[number]];
  }
}
