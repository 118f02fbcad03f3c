/**
 * Writes one chunk of rows as a Batch API input file — our own copy, kept in the job directory with its sha256
 * (docs/batch-runner.md "Our copy"): JSONL lines taken from `source` until the next one would pass a bound (rows,
 * bytes, estimated input tokens). The first line is always taken, so that a row larger than a bound still goes (alone).
 * The file is written beside its name, synced and renamed into place: a kill leaves either no file or a whole one.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { createTempFile, publishTempFile } from '../files/atomic-file.js';
import type { CarriedRow } from './batch-records.js';
import type { Peekable } from './peekable.js';

/** One row's line, ready to write. */
export interface ChunkLine {
  row: number;
  /** The JSONL line, without its newline. */
  text: string;
  /** Estimated input tokens of the request. */
  tokens: number;
  /** The row had a journal entry when it was taken (--retry-errors). */
  hadEntry: boolean;
  /** What the row has been through in earlier batches, if anything. */
  carry: CarriedRow | undefined;
}

/** Bounds of one chunk. */
export interface ChunkBounds {
  /** Lines at most (--batch-size). */
  maxRows: number;
  /** Bytes at most, newlines included (the provider's file limit). */
  maxBytes: number;
  /** Estimated input tokens at most (what the enqueued-token quota has room for). */
  maxTokens: number;
}

/** What was written. */
export interface WrittenChunk {
  sha256: string;
  bytes: number;
  lines: number;
  tokens: number;
  /** Rows of the lines, ascending. */
  rows: number[];
  /** Of them, the rows that had a journal entry. */
  again: number[];
  carry: CarriedRow[];
}

/** Bytes gathered before each write to the file. */
const WRITE_BUFFER = 1 << 20;

/**
 * Writes the chunk to `target`.
 * @returns undefined, with nothing written, when `source` has no line.
 * @throws the fs error of a failing write (the temporary file is removed).
 */
export async function writeChunk(target: string, source: Peekable<ChunkLine>, bounds: ChunkBounds): Promise<WrittenChunk | undefined> {
  if ((await source.peek()) === undefined) return undefined;
  const { path: temp, handle } = await createTempFile(target);
  const hash = createHash('sha256');
  const out: WrittenChunk = { sha256: '', bytes: 0, lines: 0, tokens: 0, rows: [], again: [], carry: [] };
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const data = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    hash.update(data);
    await handle.write(data);
  };
  try {
    try {
      for (let line = await source.peek(); line !== undefined; line = await source.peek()) {
        const bytes = Buffer.from(`${line.text}\n`, 'utf8');
        const first = out.lines === 0;
        if (!first && (out.lines + 1 > bounds.maxRows || out.bytes + bytes.length > bounds.maxBytes || out.tokens + line.tokens > bounds.maxTokens)) break;
        await source.take();
        pending.push(bytes);
        pendingBytes += bytes.length;
        out.bytes += bytes.length;
        out.lines++;
        out.tokens += line.tokens;
        out.rows.push(line.row);
        if (line.hadEntry) out.again.push(line.row);
        if (line.carry) out.carry.push(line.carry);
        if (pendingBytes >= WRITE_BUFFER) await flush();
      }
      await flush();
    } finally {
      await handle.close();
    }
    await publishTempFile(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  out.sha256 = hash.digest('hex');
  out.rows.sort((a, b) => a - b);
  out.again.sort((a, b) => a - b);
  return out;
}

/** The sha256 of a file, hex; undefined when it cannot be read. */
export async function fileSha256(file: string): Promise<string | undefined> {
  try {
    const hash = createHash('sha256');
    const handle = await fs.open(file, 'r');
    try {
      for await (const chunk of handle.createReadStream()) hash.update(chunk as Buffer);
    } finally {
      await handle.close().catch(() => undefined);
    }
    return hash.digest('hex');
  } catch {
    return undefined;
  }
}
