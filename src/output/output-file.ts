/**
 * The temporary file an output is written to, beside its target, and the rename that publishes it: a reader of the
 * target sees the old file or the whole new one, never a half-written one.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ExitCode, GeminiBatchError, UsageError } from '../errors.js';
import { syncDirectory } from '../files/sync-directory.js';

/** `.<name>.tmp-<pid>` in the target's directory. */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}`);
}

/**
 * Creates (or empties) the temporary file of `target` and returns a write stream on it.
 * @throws UsageError code `OUTPUT_UNWRITABLE` (exit 2) when the target is a directory, its directory does not
 *   exist, or the file cannot be created there.
 */
export async function openTempFile(target: string): Promise<{ temp: string; stream: fs.WriteStream }> {
  const stat = await fsp.stat(target).catch(() => null);
  if (stat?.isDirectory()) throw new UsageError('OUTPUT_UNWRITABLE', `cannot write the output ${target}: it is a directory`);
  const temp = tempPathFor(target);
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(temp, 'w');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `the folder ${path.dirname(target)} does not exist` : (error as Error).message;
    throw new UsageError('OUTPUT_UNWRITABLE', `cannot write the output ${target}: ${reason}`, { cause: error });
  }
  return { temp, stream: handle.createWriteStream({ highWaterMark: 256 * 1024 }) };
}

/** fsyncs the (closed) temporary file, renames it onto `target` and fsyncs the directory. */
export async function publishTempFile(temp: string, target: string): Promise<void> {
  const handle = await fsp.open(temp, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsp.rename(temp, target);
  syncDirectory(path.dirname(target));
}

/** Removes the temporary file; nothing when it is gone. */
export async function removeTempFile(temp: string): Promise<void> {
  await fsp.rm(temp, { force: true });
}

/** Wraps an error met while writing or publishing the output (disk full, permissions…): exit 3, the job can resume. */
export function writeFailed(target: string, error: unknown): GeminiBatchError {
  if (error instanceof GeminiBatchError) return error;
  return new GeminiBatchError(
    'OUTPUT_WRITE_FAILED',
    `cannot write the output ${target}: ${(error as Error).message}. The results are kept in the journal; run again to write it.`,
    ExitCode.Stopped,
    { cause: error },
  );
}

