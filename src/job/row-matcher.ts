/**
 * Matches the rows of a changed input to the journal's entries by fingerprint: the k-th row of the input with a given
 * fingerprint gets the k-th entry (in row order) with that fingerprint. Rows moved keep their answers; a row present
 * twice keeps both answers, and a third copy added is sent; an edited row matches nothing (it is sent), and an entry
 * no row matches belonged to a row that left the input.
 *
 * Memory is flat typed arrays, whatever the number of rows: a fingerprint is kept as 120 bits (the first 20 base64url
 * characters of ../input/row-identity.ts's 22), about 30 bytes an entry with the open-addressing table. The chance
 * that two different rows share 120 bits among a million is below 10^-24.
 */

/** Words per fingerprint key (30 bits each, from 5 base64url characters). */
const WORDS = 4;
const CHARS_PER_WORD = 5;
const BASE64URL = new Int8Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) BASE64URL[c.charCodeAt(0)] = i;

/** Writes the 120-bit key of `fp` into `out` at `at`; false when `fp` is not a base64url fingerprint (never matches). */
export function fingerprintKey(fp: string, out: Uint32Array, at: number): boolean {
  if (fp.length < WORDS * CHARS_PER_WORD) return false;
  for (let w = 0; w < WORDS; w++) {
    let word = 0;
    for (let c = 0; c < CHARS_PER_WORD; c++) {
      const code = fp.charCodeAt(w * CHARS_PER_WORD + c);
      const v = code < 128 ? BASE64URL[code]! : -1;
      if (v < 0) return false;
      word = word * 64 + v;
    }
    out[at + w] = word;
  }
  return true;
}

export class RowMatcher {
  /** Keys of the entries, WORDS words each, in the order added. */
  readonly #keys: Uint32Array;
  /** Row id of each entry. */
  readonly #rows: Int32Array;
  /** The next entry with the same key (in the order added), or -1. */
  readonly #next: Int32Array;
  /** Slot → an entry of its key group (to compare keys), -1 when empty. */
  readonly #group: Int32Array;
  /** Slot → the group's first entry not yet taken, -1 when all are taken. */
  readonly #cursor: Int32Array;
  /** Slot → the group's last entry (to append). */
  readonly #tail: Int32Array;
  readonly #mask: number;
  readonly #scratch = new Uint32Array(WORDS);
  #size = 0;
  /** Entries not taken yet. */
  remaining = 0;

  /** @param capacity entries that will be added at most. */
  constructor(capacity: number) {
    this.#keys = new Uint32Array(Math.max(1, capacity) * WORDS);
    this.#rows = new Int32Array(Math.max(1, capacity));
    this.#next = new Int32Array(Math.max(1, capacity)).fill(-1);
    let slots = 16;
    while (slots < capacity * 2) slots *= 2;
    this.#group = new Int32Array(slots).fill(-1);
    this.#cursor = new Int32Array(slots).fill(-1);
    this.#tail = new Int32Array(slots).fill(-1);
    this.#mask = slots - 1;
  }

  /** Adds the entry of `row`. Add entries in ascending row order: that is the order {@link take} hands them out. */
  add(fp: string, row: number): void {
    const e = this.#size;
    if (!fingerprintKey(fp, this.#keys, e * WORDS)) return;
    this.#rows[e] = row;
    this.#size++;
    this.remaining++;
    const slot = this.#slot(this.#keys, e * WORDS);
    if (this.#group[slot] === -1) {
      this.#group[slot] = e;
      this.#cursor[slot] = e;
    } else {
      this.#next[this.#tail[slot]!] = e;
      if (this.#cursor[slot] === -1) this.#cursor[slot] = e;
    }
    this.#tail[slot] = e;
  }

  /** The row of the first entry not taken yet whose fingerprint is `fp`, now taken; -1 when there is none. */
  take(fp: string): number {
    if (!fingerprintKey(fp, this.#scratch, 0)) return -1;
    const slot = this.#slot(this.#scratch, 0);
    const e = this.#cursor[slot]!;
    if (this.#group[slot] === -1 || e === -1) return -1;
    this.#cursor[slot] = this.#next[e]!;
    this.remaining--;
    return this.#rows[e]!;
  }

  /** The slot of a key: its group's, or the empty one where the group would go (linear probing). */
  #slot(keys: Uint32Array, at: number): number {
    let slot = (keys[at]! ^ Math.imul(keys[at + 1]!, 0x9e3779b1)) & this.#mask;
    for (;;) {
      const g = this.#group[slot]!;
      if (g === -1) return slot;
      const k = g * WORDS;
      if (this.#keys[k] === keys[at] && this.#keys[k + 1] === keys[at + 1] && this.#keys[k + 2] === keys[at + 2] && this.#keys[k + 3] === keys[at + 3]) return slot;
      slot = (slot + 1) & this.#mask;
    }
  }
}
