/**
 * Rewriting a journal under new row ids: when the input changed, its rows were matched to the journal's entries by
 * fingerprint (../job/reconcile-input.ts), and the entries move to the row ids of the new input. Each entry is copied
 * byte for byte but for its `row`; superseded lines and entries of rows no longer in the input are left out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GeminiBatchError, ExitCode } from '../errors.js';
import { O_NOFOLLOW, temporaryPathFor } from '../files/atomic-file.js';
import { syncDirectory } from '../files/sync-directory.js';
import { Journal } from './journal.js';

/** Bytes written to the temporary file at once. */
const CHUNK_BYTES = 4 * 1024 * 1024;
const ROW_PREFIX = Buffer.from('{"row":', 'latin1');

/**
 * Writes a new journal in which the latest entry of each row `r` of `journal` becomes the entry of row `to[r]`
 * (left out when `to[r]` is -1 or past the array), and replaces the file with it atomically: an exclusive temporary
 * file beside it, fdatasync, rename, directory fsync. A crash leaves the old journal or the new one, whole. Closes
 * `journal`. One sequential read of the old file and one sequential write of the new, in the old file's order (a
 * journal's lines need not be in row order); memory: 4 MiB buffers, whatever the journal's size.
 * @returns the new journal, open (same options).
 * @throws GeminiBatchError code `JOURNAL_WRITE_FAILED` (exit 3) when the new file cannot be written; the old journal
 *   is then left in place, closed.
 */
export async function rewriteJournal(journal: Journal, to: Int32Array): Promise<Journal> {
  const temp = temporaryPathFor(journal.file);
  try {
    const fd = fs.openSync(temp, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY | O_NOFOLLOW, 0o666);
    try {
      let buf = Buffer.allocUnsafe(CHUNK_BYTES);
      let used = 0;
      const flush = () => {
        let done = 0;
        while (done < used) done += fs.writeSync(fd, buf, done, used - done);
        used = 0;
      };
      journal.forEachLatest((old, line) => {
        const row = to[old] ?? -1;
        if (row < 0) return;
        const rest = afterRowId(line);
        const head = `{"row":${row}`;
        const size = head.length + (line.length - rest) + 1;
        if (used + size > buf.length) {
          flush();
          if (size > buf.length) buf = Buffer.allocUnsafe(size);
        }
        used += buf.write(head, used, 'latin1');
        used += line.copy(buf, used, rest);
        buf[used++] = 0x0a;
      });
      flush();
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, journal.file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    await journal.close().catch(() => undefined);
    if (error instanceof GeminiBatchError) throw error;
    throw new GeminiBatchError('JOURNAL_WRITE_FAILED', `cannot rewrite the journal ${journal.file}: ${(error as Error).message}`, ExitCode.Stopped, { cause: error });
  }
  syncDirectory(path.dirname(journal.file));
  const options = journal.options;
  await journal.close();
  return Journal.open(journal.file, options);
}

/** Index of the byte after `{"row":<digits>` in a journal line (journal-line.ts writes `row` first). */
function afterRowId(line: Buffer): number {
  if (line.compare(ROW_PREFIX, 0, ROW_PREFIX.length, 0, ROW_PREFIX.length) !== 0) throw new Error('a journal line does not start with {"row":');
  let p = ROW_PREFIX.length;
  while (p < line.length && line[p]! >= 0x30 && line[p]! <= 0x39) p++;
  return p;
}
