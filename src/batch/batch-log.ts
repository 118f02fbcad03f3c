/**
 * The job's batch log (`<job-dir>/batches.jsonl`): append-only, one {@link BatchRecord} a line. Each record goes to the
 * OS in one write(2) on an O_APPEND descriptor and is fdatasync'ed before {@link BatchLog.append} returns: an intent
 * must be on disk before the create call it announces, a batch name before anything else happens. Records are few (a
 * handful per batch), so the sync costs nothing that matters. A torn last line (a kill mid-write) is cut away on
 * opening, as the journal's is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ExitCode, GeminiBatchError, InputError, UsageError } from '../errors.js';
import { O_NOFOLLOW } from '../files/atomic-file.js';
import { syncDirectory } from '../files/sync-directory.js';
import { isBatchRecord, type BatchRecord } from './batch-records.js';

export class BatchLog {
  private constructor(
    readonly file: string,
    private readonly fd: number,
    /** Every record on disk when opened, in order. */
    readonly records: readonly BatchRecord[],
  ) {}

  /**
   * Reads the records of `file` (none when it does not exist yet). Read-only: nothing is created or repaired (status).
   * A torn last line is ignored.
   * @throws InputError `BATCH_LOG_CORRUPT` (exit 2) naming the line, for a damaged line other than the last.
   */
  static read(file: string): BatchRecord[] {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new UsageError('BATCH_LOG_UNREADABLE', `cannot read the batch log ${file}: ${(error as Error).message}`, { cause: error });
    }
    return parse(file, text).records;
  }

  /**
   * Opens `file` for appending, creating it when missing, and reads its records; a torn last line is truncated away.
   * @throws InputError `BATCH_LOG_CORRUPT`, UsageError `BATCH_LOG_UNREADABLE` (exit 2).
   */
  static open(file: string): BatchLog {
    let fd: number;
    let created = false;
    try {
      const flags = fs.constants.O_APPEND | fs.constants.O_RDWR | O_NOFOLLOW;
      try {
        fd = fs.openSync(file, flags | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o666);
        created = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        fd = fs.openSync(file, flags);
      }
    } catch (error) {
      throw new UsageError('BATCH_LOG_UNREADABLE', `cannot open the batch log ${file}: ${(error as Error).message}`, { cause: error });
    }
    try {
      if (created) syncDirectory(path.dirname(file));
      const text = fs.readFileSync(fd, 'utf8');
      const { records, end } = parse(file, text);
      if (end < Buffer.byteLength(text)) {
        fs.ftruncateSync(fd, end);
        fs.fdatasyncSync(fd);
      }
      return new BatchLog(file, fd, records);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  /**
   * Appends `record` and syncs it to disk before returning.
   * @throws GeminiBatchError `BATCH_LOG_WRITE_FAILED` (exit 3: what is on disk stays consistent, the job can resume)
   *   when the write or the sync fails, e.g. the disk is full.
   */
  append(record: BatchRecord): void {
    const bytes = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
    try {
      let done = 0;
      while (done < bytes.length) done += fs.writeSync(this.fd, bytes, done, bytes.length - done);
      fs.fdatasyncSync(this.fd);
    } catch (error) {
      throw new GeminiBatchError('BATCH_LOG_WRITE_FAILED', `cannot write the batch log ${this.file}: ${(error as Error).message}`, ExitCode.Stopped, { cause: error });
    }
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/**
 * The records of the log's text and the byte length of its whole lines. A last line without its newline is a write cut
 * short by a kill (one write(2) writes a prefix, never a newline without the line before it): it is left out. Every
 * line with its newline must be a record.
 */
function parse(file: string, text: string): { records: BatchRecord[]; end: number } {
  const records: BatchRecord[] = [];
  const lines = text.split('\n');
  let end = 0;
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i] as string;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (!isBatchRecord(value)) {
      throw new InputError('BATCH_LOG_CORRUPT', { file, line: i + 1 }, 'this batch log line is damaged. Remove the line, or run with --restart to discard the job (cancel its batches first).');
    }
    records.push(value);
    end += Buffer.byteLength(line) + 1;
  }
  return { records, end };
}
