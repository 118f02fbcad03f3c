/** A list of numbers that grows by doubling (a row's or a request's estimate each, for millions without a boxed array). */
export class GrowingArray {
  #values = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.#values.length) {
      const next = new Float64Array(this.#values.length * 2);
      next.set(this.#values);
      this.#values = next;
    }
    this.#values[this.length++] = value;
  }

  /** The value at `index` (0 ≤ index < length). */
  at(index: number): number {
    return this.#values[index] as number;
  }
}
