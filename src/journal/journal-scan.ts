/**
 * Builds a {@link JournalIndex} from a journal file in one sequential pass over fixed-size chunks, without parsing
 * the JSON of every line (see ./journal-line.ts). Finds the torn last line a crash can leave.
 */
import fs from 'node:fs';
import type { JournalIndex } from './journal-index.js';
import { checkLineTail, lineTier, newLineHead, parseEntry, parseLineHead } from './journal-line.js';

/** The torn last line dropped when the journal was opened: its 1-based line number and its size in bytes. */
export interface JournalRepair {
  line: number;
  bytes: number;
}

/** What {@link scanJournal} found. */
export interface ScanResult {
  /** Byte length of the file's good part: the file is cut to this when {@link repaired} is set. */
  end: number;
  /** The torn last line to drop, or null. */
  repaired: JournalRepair | null;
  /** The first damaged line that is not the last one, or null. The index is incomplete when set. */
  corrupt: { line: number; problem: string } | null;
}

/** Bytes read per chunk; a longer line grows the buffer. */
const CHUNK_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads the journal open on `fd` from byte 0 and records the latest line of each row in `index` (plus counts and
 * token totals). Every line but the last must have the head and tail {@link parseLineHead} and {@link checkLineTail}
 * expect; the last line must also parse as a valid entry, or it is reported as torn, as is a last line without `\n`.
 * Pure reading: the caller truncates.
 * @throws the fs error when reading fails.
 */
export function scanJournal(fd: number, index: JournalIndex): ScanResult {
  let head = newLineHead();
  const older = newLineHead();
  // Each line is applied to the index when the next one is found, so the last line can still be rejected.
  let pending = false;
  let pendingOk = false;
  let pendingProblem = '';
  let pendingOffset = 0;
  let pendingLength = 0;
  let lineNo = 0;
  let pendingHead = newLineHead();

  const apply = (): void => {
    const row = pendingHead.row;
    if (index.code(row) !== 0) {
      const old = readBytes(fd, index.offset(row), Math.min(index.length(row), 256));
      if (parseLineHead(old, 0, old.length, older)) index.addTotals(-1, older.input, older.output, older.thoughts, older.attempts, index.tier(row));
    }
    index.set(row, pendingOffset, pendingLength, pendingHead.code, pendingHead.tier);
    index.addTotals(1, pendingHead.input, pendingHead.output, pendingHead.thoughts, pendingHead.attempts, pendingHead.tier);
  };

  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let bufStart = 0; // file offset of buf[0]
  let filled = 0;
  for (;;) {
    const n = fs.readSync(fd, buf, filled, buf.length - filled, bufStart + filled);
    filled += n;
    let p = 0;
    for (;;) {
      const nl = buf.indexOf(NEWLINE, p);
      if (nl < 0 || nl >= filled) break;
      if (pending) {
        if (!pendingOk) return { end: 0, repaired: null, corrupt: { line: lineNo, problem: pendingProblem } };
        apply();
      }
      lineNo++;
      pending = true;
      pendingOffset = bufStart + p;
      pendingLength = nl - p;
      pendingOk = parseLineHead(buf, p, nl, head);
      if (pendingOk && !checkLineTail(buf, p, nl)) {
        pendingOk = false;
        head.problem = 'it does not end with ,"time":"…"}';
      }
      head.tier = pendingOk ? lineTier(buf, p, nl) : 0;
      pendingProblem = head.problem;
      const swap = pendingHead;
      pendingHead = head;
      head = swap;
      p = nl + 1;
    }
    if (n === 0) {
      // End of file: buf[p, filled) is a last line without its newline.
      const goodEnd = bufStart + p;
      if (filled > p) {
        if (pending) {
          if (!pendingOk) return { end: 0, repaired: null, corrupt: { line: lineNo, problem: pendingProblem } };
          apply();
        }
        return { end: goodEnd, repaired: { line: lineNo + 1, bytes: filled - p }, corrupt: null };
      }
      if (!pending) return { end: goodEnd, repaired: null, corrupt: null };
      const last = readBytes(fd, pendingOffset, pendingLength).toString('utf8');
      const entry = parseEntry(last);
      if (pendingOk && typeof entry !== 'string' && entry.row === pendingHead.row) {
        apply();
        return { end: goodEnd, repaired: null, corrupt: null };
      }
      return { end: pendingOffset, repaired: { line: lineNo, bytes: pendingLength + 1 }, corrupt: null };
    }
    // Keep the unfinished line at the start of the buffer; grow the buffer when one line fills it.
    buf = keepUnfinishedLine(buf, p, filled);
    bufStart += p;
    filled -= p;
  }
}

/**
 * Keeps the unfinished line `buf[p, filled)` for the next read: moves it to the start of `buf`, or, when it fills the
 * whole buffer (p = 0), copies it into one twice as large. Returns the buffer to read on into; the caller moves its
 * file offset on by `p` bytes and its fill back by `p`.
 */
function keepUnfinishedLine(buf: Buffer<ArrayBuffer>, p: number, filled: number): Buffer<ArrayBuffer> {
  if (p === 0 && filled === buf.length) {
    const bigger = Buffer.allocUnsafe(buf.length * 2);
    buf.copy(bigger, 0, 0, filled);
    return bigger;
  }
  if (p > 0) buf.copy(buf, 0, p, filled);
  return buf;
}

/** Reads up to `length` bytes at `offset` (pread); fewer at the end of the file. */
export function readBytes(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buf, done, length - done, offset + done);
    if (n === 0) break;
    done += n;
  }
  return buf.subarray(0, done);
}

/**
 * Calls `visit(buf, start, end, offset)` for every whole line of the file open on `fd`, up to byte `size`, in order:
 * the line is `buf[start, end)` without its newline and starts at byte `offset` of the file. Reads 4 MiB chunks
 * sequentially (a longer line grows the buffer); `buf` is reused between calls.
 * @throws the fs error when reading fails.
 */
export function forEachLine(fd: number, size: number, visit: (buf: Buffer, start: number, end: number, offset: number) => void): void {
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let bufStart = 0;
  let filled = 0;
  while (bufStart + filled < size) {
    const n = fs.readSync(fd, buf, filled, Math.min(buf.length - filled, size - bufStart - filled), bufStart + filled);
    if (n === 0) break;
    filled += n;
    let p = 0;
    for (;;) {
      const nl = buf.indexOf(NEWLINE, p);
      if (nl < 0 || nl >= filled) break;
      visit(buf, p, nl, bufStart + p);
      p = nl + 1;
    }
    buf = keepUnfinishedLine(buf, p, filled);
    bufStart += p;
    filled -= p;
  }
}
