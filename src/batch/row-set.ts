/**
 * A set of row ids as a bit set (one bit a row, grown as needed): a million rows held by running batches cost 125 KB,
 * where a Set<number> costs tens of MB.
 */
export class RowSet {
  #bits = new Uint8Array(128);
  #size = 0;

  /** Number of rows in the set. */
  get size(): number {
    return this.#size;
  }

  has(row: number): boolean {
    const byte = row >>> 3;
    return row >= 0 && byte < this.#bits.length && (this.#bits[byte]! & (1 << (row & 7))) !== 0;
  }

  add(row: number): void {
    const byte = row >>> 3;
    if (byte >= this.#bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.#bits.length * 2));
      grown.set(this.#bits);
      this.#bits = grown;
    }
    const mask = 1 << (row & 7);
    if ((this.#bits[byte]! & mask) === 0) {
      this.#bits[byte]! |= mask;
      this.#size++;
    }
  }

  delete(row: number): void {
    if (!this.has(row)) return;
    this.#bits[row >>> 3]! &= ~(1 << (row & 7));
    this.#size--;
  }
}
