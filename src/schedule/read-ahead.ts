/**
 * The rows read ahead from the input and not sent yet, in input order. The dispatcher sends the first (the head) unless
 * the look-ahead (./look-ahead.ts) sends a later one in front of it: such a row is taken from the middle and leaves a
 * hole that the head skips when it gets there. Holes count toward {@link ReadAhead.span}, what the dispatcher bounds its
 * reading by, so memory stays within the high-water mark whatever the look-ahead takes.
 */
import type { WorkItem } from './work-item.js';

export class ReadAhead {
  #slots: Array<WorkItem | undefined> = [];
  #head = 0;
  /** Slots at or after the head whose row was taken out of order. */
  #holes = 0;

  /** Rows held (not yet taken). */
  get size(): number {
    return this.#slots.length - this.#head - this.#holes;
  }

  /** Slots from the head to the last row read, holes included: what memory holds. */
  get span(): number {
    return this.#slots.length - this.#head;
  }

  push(item: WorkItem): void {
    this.#slots.push(item);
  }

  /** The first row not taken, or undefined when none is held. */
  peek(): WorkItem | undefined {
    return this.#slots[this.#head];
  }

  /**
   * The rows after the head among the next `limit` slots (holes included), in input order, with their slot index for
   * {@link takeAt}. A row taken during the iteration is not revisited.
   */
  *behind(limit: number): Generator<[index: number, item: WorkItem]> {
    const end = Math.min(this.#slots.length, this.#head + 1 + limit);
    for (let i = this.#head + 1; i < end; i++) {
      const item = this.#slots[i];
      if (item !== undefined) yield [i, item];
    }
  }

  /** Removes the head row. */
  takeHead(): void {
    if (this.#head >= this.#slots.length) return;
    this.#slots[this.#head] = undefined;
    this.#head++;
    this.#skipHoles();
    if (this.#head > 4096 && this.#head * 2 > this.#slots.length) {
      this.#slots.splice(0, this.#head);
      this.#head = 0;
    }
  }

  /**
   * Removes the row at slot `index` (from {@link behind}), leaving a hole; the head's own slot is {@link takeHead}'s.
   * @throws RangeError when the slot holds no row or is the head's.
   */
  takeAt(index: number): void {
    if (index === this.#head) {
      this.takeHead();
      return;
    }
    if (index < this.#head || this.#slots[index] === undefined) throw new RangeError(`no row held at read-ahead slot ${index}`);
    this.#slots[index] = undefined;
    this.#holes++;
  }

  #skipHoles(): void {
    while (this.#head < this.#slots.length && this.#slots[this.#head] === undefined) {
      this.#head++;
      this.#holes--;
    }
  }
}
