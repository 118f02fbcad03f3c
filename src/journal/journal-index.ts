/**
 * Where the latest journal line of each row is, in typed arrays indexed by row id (14 bytes a row): byte offset,
 * byte length, status code and billing-tier code. Keeps counts by status and running token sums over the latest
 * entries, in all and by billing tier. Holds no entry text.
 */
import type { BillingTier } from '../providers/contract.js';
import { ENTRY_STATUSES, ENTRY_TIERS, MAX_ROW, type EntryStatus } from './journal-line.js';

/** Token and attempt sums over a set of entries (tokens, requests). */
export interface JournalTotals {
  input: number;
  output: number;
  thoughts: number;
  attempts: number;
}

/** Tokens and rows of the latest entries billed at one tier. */
export interface TierTotals {
  input: number;
  output: number;
  thoughts: number;
  rows: number;
}


/** The in-memory index of a journal (see the file comment). */
export class JournalIndex {
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private codes = new Uint8Array(1024);
  private tiers = new Uint8Array(1024);
  private readonly byTier: TierTotals[] = ENTRY_TIERS.map(() => ({ input: 0, output: 0, thoughts: 0, rows: 0 }));
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

  /** Billing-tier code of the row's latest entry (index in ENTRY_TIERS; 0, `standard`, when it has none). */
  tier(row: number): number {
    return row >= 0 && row < this.tiers.length ? this.tiers[row]! : 0;
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
  set(row: number, offset: number, length: number, code: number, tier = 0): void {
    if (row > MAX_ROW) throw new RangeError(`row ${row} is above the journal's limit of ${MAX_ROW}`);
    if (length > 0xffffffff) throw new RangeError(`a journal line of ${length} bytes is too long`);
    if (row >= this.codes.length) this.grow(row + 1);
    const previous = this.codes[row]!;
    if (previous === 0) this.rowCount++;
    else this.byCode[previous]!--;
    this.byCode[code]!++;
    this.codes[row] = code;
    this.tiers[row] = tier;
    this.offsets[row] = offset;
    this.lengths[row] = length;
  }

  /** Adds `sign` (1 or −1) times the given counts to {@link totals} and to the totals of billing-tier code `tier`. */
  addTotals(sign: 1 | -1, input: number, output: number, thoughts: number, attempts: number, tier = 0): void {
    this.totals.input += sign * input;
    this.totals.output += sign * output;
    this.totals.thoughts += sign * thoughts;
    this.totals.attempts += sign * attempts;
    const t = this.byTier[tier] ?? this.byTier[0]!;
    t.input += sign * input;
    t.output += sign * output;
    t.thoughts += sign * thoughts;
    t.rows += sign;
  }

  /** Token sums and rows of the latest entries by billing tier; every tier is present (zeros when none). */
  tierTotals(): Record<BillingTier, TierTotals> {
    const out = {} as Record<BillingTier, TierTotals>;
    ENTRY_TIERS.forEach((tier, i) => (out[tier] = { ...this.byTier[i]! }));
    return out;
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
    const tiers = new Uint8Array(capacity);
    tiers.set(this.tiers);
    this.offsets = offsets;
    this.lengths = lengths;
    this.codes = codes;
    this.tiers = tiers;
  }
}
