/**
 * The job's journal (`<job-dir>/journal.jsonl`): an append-only file with one line per finished row (format in
 * ./journal-line.ts). A later line for a row replaces the earlier one, so no row ever has two results.
 *
 * Durability: each line goes to the OS with one write(2) on an O_APPEND descriptor as soon as it is appended, so it
 * survives the process being killed (SIGKILL); the file is fdatasync'ed at most every `fsyncIntervalMs`, so a power
 * failure loses at most that much finished work. A crash can leave a torn last line: {@link Journal.open} drops it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ExitCode, GeminiBatchError, InputError, UsageError } from '../errors.js';
import type { RowStatus } from '../row-status.js';
import type { JournalEntry } from './journal-entry.js';
import { JournalIndex, type JournalTotals, type TierTotals } from './journal-index.js';
import type { BillingTier } from '../providers/contract.js';
import { forEachLine, readBytes, scanJournal, type JournalRepair } from './journal-scan.js';
import { O_NOFOLLOW } from '../files/atomic-file.js';
import { syncDirectory } from '../files/sync-directory.js';
import {
  ENTRY_STATUSES,
  ENTRY_TIERS,
  entryProblem,
  newLineHead,
  parseEntry,
  parseLineHead,
  serializeEntry,
  statusCode,
  type EntryStatus,
  type LineHead,
} from './journal-line.js';

/** Options of {@link Journal.open}. */
export interface JournalOptions {
  /**
   * Longest time (ms) an appended line may wait before it is fdatasync'ed to disk. 0 syncs after every append
   * (slow: a disk flush per row).
   * @default 1000
   */
  fsyncIntervalMs?: number;
}

/** An open journal: an index of the latest line of each row, and the descriptor lines are appended to. */
export class Journal {
  /** The torn last line {@link open} removed, or null when the file ended cleanly. */
  readonly repaired: JournalRepair | null;
  private readonly index: JournalIndex;
  private readonly fd: number;
  private readonly fsyncIntervalMs: number;
  /** Byte size of the file: where the next line lands. */
  private end: number;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private readonly head = newLineHead();
  /**
   * The error of a failed background fdatasync. Linux may drop the dirty pages of a failed writeback and let a later
   * fdatasync succeed (fsyncgate, https://lwn.net/Articles/752063/), so a retry cannot prove the lines durable: the
   * error is kept and every later append, flush and close fails with it.
   */
  private syncFailure: unknown;

  private constructor(readonly file: string, fd: number, index: JournalIndex, end: number, repaired: JournalRepair | null, fsyncIntervalMs: number) {
    this.fd = fd;
    this.index = index;
    this.end = end;
    this.repaired = repaired;
    this.fsyncIntervalMs = fsyncIntervalMs;
  }

  /**
   * Opens `file`, creating it (and syncing its directory) when missing, and indexes its lines. Reads the file in
   * 4 MiB chunks and checks each line's head and tail bytes (journal-line.ts) instead of JSON.parse; the last line is
   * parsed in full. A torn last line (no newline, or not a valid entry) is truncated away and reported in
   * {@link repaired}.
   * @throws InputError code `JOURNAL_CORRUPT` (exit 2) naming the file and the 1-based line, for a damaged line
   *   other than the last.
   * @throws UsageError code `JOURNAL_UNREADABLE` (exit 2) when the file cannot be opened, read or repaired.
   */
  static async open(file: string, options: JournalOptions = {}): Promise<Journal> {
    const fsyncIntervalMs = options.fsyncIntervalMs ?? 1000;
    if (!(fsyncIntervalMs >= 0)) {
      throw new UsageError('JOURNAL_INVALID_OPTION', `fsyncIntervalMs must be a number of ms >= 0, got ${fsyncIntervalMs}`);
    }
    let fd: number;
    let created = false;
    try {
      // O_NOFOLLOW: a journal planted as a symbolic link is refused (ELOOP), never appended through.
      const flags = fs.constants.O_APPEND | fs.constants.O_RDWR | O_NOFOLLOW;
      try {
        fd = fs.openSync(file, flags | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o666); // created by us
        created = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        fd = fs.openSync(file, flags);
      }
      if (!fs.fstatSync(fd).isFile()) {
        fs.closeSync(fd);
        throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
      }
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code === 'ELOOP' ? 'it is a symbolic link, which gemini-batch does not write through' : (error as Error).message;
      throw new UsageError('JOURNAL_UNREADABLE', `cannot open the journal ${file}: ${why}`, { cause: error });
    }
    try {
      if (created) syncDirectory(path.dirname(file));
      const index = new JournalIndex();
      const scan = scanJournal(fd, index);
      if (scan.corrupt) {
        throw new InputError(
          'JOURNAL_CORRUPT',
          { file, line: scan.corrupt.line },
          `this journal line is damaged (${scan.corrupt.problem}). Remove or fix the line to keep the other results, ` +
            'or run with --restart to discard all of them.',
        );
      }
      if (scan.repaired) {
        fs.ftruncateSync(fd, scan.end);
        fs.fdatasyncSync(fd);
      }
      return new Journal(file, fd, index, scan.end, scan.repaired, fsyncIntervalMs);
    } catch (error) {
      fs.closeSync(fd);
      if (error instanceof GeminiBatchError) throw error;
      throw new UsageError('JOURNAL_UNREADABLE', `cannot read the journal ${file}: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * Appends the row's result: one write to the OS before returning, an fdatasync within `fsyncIntervalMs`. Replaces
   * any earlier entry of the row in the index (and in {@link totals}).
   * @throws GeminiBatchError code `JOURNAL_INVALID_ENTRY` (exit 4, a bug) when the entry breaks the contract.
   * @throws GeminiBatchError code `JOURNAL_WRITE_FAILED` (exit 3: results so far are kept, the job can resume) when
   *   the write fails, e.g. the disk is full; the file is cut back to its last complete line.
   * @throws GeminiBatchError code `JOURNAL_CLOSED` (exit 4) after {@link close}.
   * @throws GeminiBatchError code `JOURNAL_SYNC_FAILED` (exit 3) once an fdatasync has failed: lines appended before
   *   it may not be on disk, and a later sync cannot tell.
   */
  append(entry: JournalEntry): void {
    this.assertOpen();
    this.assertSynced();
    const problem = entryProblem(entry);
    if (problem !== null) throw new GeminiBatchError('JOURNAL_INVALID_ENTRY', `journal entry of row ${String(entry?.row)}: ${problem}`, ExitCode.Internal);
    const bytes = Buffer.from(serializeEntry(entry), 'utf8');
    const offset = this.end;
    this.writeAll(bytes);
    this.end += bytes.length;
    if (this.index.code(entry.row) !== 0) this.subtractLatest(entry.row);
    const tier = Math.max(0, ENTRY_TIERS.indexOf(entry.tier ?? 'standard'));
    this.index.set(entry.row, offset, bytes.length - 1, statusCode(entry.status), tier);
    const t = entry.tokens;
    this.index.addTotals(1, t.input, t.output, t.thoughts, entry.attempts, tier);
    this.dirty = true;
    this.scheduleSync();
  }

  /** True when the row has a result. */
  has(row: number): boolean {
    return this.index.code(row) !== 0;
  }

  /** Status of the row's latest entry; undefined when it has none. */
  status(row: number): RowStatus | undefined {
    const code = this.index.code(row);
    return code === 0 ? undefined : ENTRY_STATUSES[code - 1];
  }

  /**
   * The row's latest entry, read back from the file (one pread and JSON.parse); undefined when it has none.
   * @throws InputError code `JOURNAL_CORRUPT` when the line no longer parses (the file was changed under us).
   */
  get(row: number): JournalEntry | undefined {
    this.assertOpen();
    if (this.index.code(row) === 0) return undefined;
    const offset = this.index.offset(row);
    const text = readBytes(this.fd, offset, this.index.length(row)).toString('utf8');
    const entry = parseEntry(text);
    if (typeof entry === 'string' || entry.row !== row) {
      throw new InputError('JOURNAL_CORRUPT', { file: this.file }, `the entry of row ${row} at byte ${offset} is damaged (${typeof entry === 'string' ? entry : `it is row ${entry.row}`})`);
    }
    return entry;
  }

  /**
   * Calls `visit(row, line, fp, head)` for the latest entry of every row, in file order, reading the file sequentially in
   * 4 MiB chunks (one pass, no pread per row): `line` holds the line's bytes without its newline and is valid only
   * during the call; `fp` is the entry's fingerprint; `head` its row, status code, attempts and tokens (reused between
   * calls). For passes over every entry (../job/reconcile-input.ts, ./run-counts.ts).
   * @throws InputError code `JOURNAL_CORRUPT` when a latest line no longer parses (the file was changed under us).
   */
  forEachLatest(visit: (row: number, line: Buffer, fp: string, head: Readonly<LineHead>) => void): void {
    this.assertOpen();
    const h = newLineHead();
    forEachLine(this.fd, this.end, (buf, start, end, offset) => {
      if (!parseLineHead(buf, start, end, h)) return;
      if (this.index.code(h.row) === 0 || this.index.offset(h.row) !== offset) return; // superseded
      const quote = buf.indexOf(0x22, h.end);
      const raw = quote < 0 || quote > end ? undefined : buf.subarray(h.end, quote);
      const fp = raw && !raw.includes(0x5c) ? raw.toString('latin1') : this.get(h.row)?.fp;
      if (fp === undefined) throw new InputError('JOURNAL_CORRUPT', { file: this.file }, `the entry of row ${h.row} at byte ${offset} has no fingerprint`);
      visit(h.row, buf.subarray(start, end), fp, h);
    });
  }

  /** The options the journal was opened with (to reopen it alike). */
  get options(): JournalOptions {
    return { fsyncIntervalMs: this.fsyncIntervalMs };
  }

  /** The file's size, bytes: where the next line lands. A line appended later starts at or past it. */
  get byteLength(): number {
    return this.end;
  }

  /** Byte offset of the row's latest line; undefined when the row has none. */
  entryOffset(row: number): number | undefined {
    return this.index.code(row) === 0 ? undefined : this.index.offset(row);
  }

  /** Number of rows with a result. */
  get size(): number {
    return this.index.size;
  }

  /** Rows by the status of their latest entry; every status is present (0 when none). */
  counts(): Record<EntryStatus, number> {
    return this.index.counts();
  }

  /** Sums over the latest entry of every row: tokens (input, output, thoughts) and requests (attempts). */
  totals(): JournalTotals {
    return { ...this.index.totals };
  }

  /** Tokens and rows of the latest entries by the billing tier they are counted at (`standard` for entries without one). */
  tierTotals(): Record<BillingTier, TierTotals> {
    return this.index.tierTotals();
  }

  /** Row ids that have a result, ascending. */
  rows(): Iterable<number> {
    return this.index.rows();
  }

  /**
   * fdatasyncs the file now when anything was appended since the last sync.
   * @throws GeminiBatchError code `JOURNAL_SYNC_FAILED` (exit 3) when this or an earlier (timer) fdatasync failed.
   */
  flush(): void {
    this.assertOpen();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.assertSynced();
    if (!this.dirty) return;
    this.dirty = false;
    this.sync();
  }

  /** Syncs and closes the file. Idempotent; the journal cannot be used afterwards. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve, reject) => {
      try {
        this.flush();
      } catch (error) {
        reject(error);
        return;
      } finally {
        fs.closeSync(this.fd);
      }
      resolve();
    });
    return this.closing;
  }

  private scheduleSync(): void {
    if (this.fsyncIntervalMs === 0) {
      this.flush();
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.closing || !this.dirty || this.syncFailure !== undefined) return;
      this.dirty = false;
      try {
        this.sync();
      } catch {
        // Kept in syncFailure: the next append, flush() or close() fails with it.
      }
    }, this.fsyncIntervalMs);
    this.timer.unref();
  }

  /** fdatasync; a failure is kept for good (see {@link syncFailure}) and thrown. */
  private sync(): void {
    try {
      fs.fdatasyncSync(this.fd);
    } catch (error) {
      this.syncFailure ??= error;
      this.assertSynced();
    }
  }

  private assertSynced(): void {
    if (this.syncFailure === undefined) return;
    throw new GeminiBatchError(
      'JOURNAL_SYNC_FAILED',
      `cannot sync the journal ${this.file} to disk: ${(this.syncFailure as Error).message}. Rows finished since the last sync may be lost; run again to send them.`,
      ExitCode.Stopped,
      { cause: this.syncFailure },
    );
  }

  /** Writes every byte at the end of the file; on failure, cuts the file back so it still ends with a whole line. */
  private writeAll(bytes: Buffer): void {
    let done = 0;
    try {
      while (done < bytes.length) done += fs.writeSync(this.fd, bytes, done, bytes.length - done);
    } catch (error) {
      try {
        if (done > 0) fs.ftruncateSync(this.fd, this.end);
      } catch {
        // Open() will drop the torn line.
      }
      throw new GeminiBatchError('JOURNAL_WRITE_FAILED', `cannot write to the journal ${this.file}: ${(error as Error).message}`, ExitCode.Stopped, { cause: error });
    }
  }

  private subtractLatest(row: number): void {
    const buf = readBytes(this.fd, this.index.offset(row), Math.min(this.index.length(row), 256));
    const h = this.head;
    if (parseLineHead(buf, 0, buf.length, h)) this.index.addTotals(-1, h.input, h.output, h.thoughts, h.attempts, this.index.tier(row));
  }

  private assertOpen(): void {
    if (this.closing) throw new GeminiBatchError('JOURNAL_CLOSED', `the journal ${this.file} is closed`, ExitCode.Internal);
  }
}
