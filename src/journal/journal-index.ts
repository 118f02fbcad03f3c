/**
 * Where the latest journal line of each row is, in typed arrays indexed by row id (13 bytes a row): byte offset,
 * byte length and status code. Keeps counts by status and running token sums over the latest entries. Holds no
 * entry text.
 */
import { ENTRY_STATUSES, MAX_ROW, type EntryStatus } from './journal-line.js';

/** Token and attempt sums over a set of entries (tokens, requests). */
export interface JournalTotals {
  input: number;
  output: number;
  thoughts: number;
  attempts: number;
}


/** The in-memory index of a journal (see the file comment). */
export class JournalIndex {
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private codes = new Uint8Array(1024);
  private readonly byCode = new Array<number>(ENTRY_STATUSES.length + 1).fill(0);
  private rowCount = 0;
  /** Sums over the latest entry of every row. Callers add and subtract with {@link addTotals}. */
  readonly totals: JournalTotals = { input: 0, output: 0, thoughts: 0, attempts: 0 };

  /** Number of rows with an entry. */
  get size(): number {
    return this.rowCount;
  }

  /** Status code of the row's latest entry (1-based, see ENTRY_STATUSES), or 0 when it has none. */
  code(row: number): number {
    return row >= 0 && row < this.codes.length ? this.codes[row]! : 0;
  }

  /** Byte offset of the row's latest line in the file. Only meaningful when {@link code} is not 0. */
  offset(row: number): number {
    return this.offsets[row]!;
  }

  /** Byte length of the row's latest line, without its newline. Only meaningful when {@link code} is not 0. */
  length(row: number): number {
    return this.lengths[row]!;
  }

  /**
   * Records the row's latest line. The caller subtracts the previous entry's tokens from {@link totals} itself.
   * @throws RangeError when `row` is above {@link MAX_ROW} or `length` does not fit 32 bits.
   */
  set(row: number, offset: number, length: number, code: number): void {
    if (row > MAX_ROW) throw new RangeError(`row ${row} is above the journal's limit of ${MAX_ROW}`);
    if (length > 0xffffffff) throw new RangeError(`a journal line of ${length} bytes is too long`);
    if (row >= this.codes.length) this.grow(row + 1);
    const previous = this.codes[row]!;
    if (previous === 0) this.rowCount++;
    else this.byCode[previous]!--;
    this.byCode[code]!++;
    this.codes[row] = code;
    this.offsets[row] = offset;
    this.lengths[row] = length;
  }

  /** Adds `sign` (1 or −1) times the given counts to {@link totals}. */
  addTotals(sign: 1 | -1, input: number, output: number, thoughts: number, attempts: number): void {
    this.totals.input += sign * input;
    this.totals.output += sign * output;
    this.totals.thoughts += sign * thoughts;
    this.totals.attempts += sign * attempts;
  }

  /** Rows by the status of their latest entry; every status is present, 0 when none. */
  counts(): Record<EntryStatus, number> {
    const out = {} as Record<EntryStatus, number>;
    ENTRY_STATUSES.forEach((status, i) => (out[status] = this.byCode[i + 1]!));
    return out;
  }

  /** Row ids with an entry, ascending. */
  *rows(): Generator<number> {
    const codes = this.codes;
    for (let row = 0; row < codes.length; row++) if (codes[row] !== 0) yield row;
  }

  private grow(minimum: number): void {
    let capacity = this.codes.length;
    while (capacity < minimum) capacity = Math.min(capacity * 2, MAX_ROW + 1);
    const offsets = new Float64Array(capacity);
    offsets.set(this.offsets);
    const lengths = new Uint32Array(capacity);
    lengths.set(this.lengths);
    const codes = new Uint8Array(capacity);
    codes.set(this.codes);
    this.offsets = offsets;
    this.lengths = lengths;
    this.codes = codes;
  }
}
