/**
 * The temporary file an output is written to, beside its target, and the rename that publishes it: a reader of the
 * target sees the old file or the whole new one, never a half-written one.
 */
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ExitCode, GeminiBatchError, UsageError } from '../errors.js';
import { createTempFile, removeStaleTemporaries } from '../files/atomic-file.js';

export { publishTempFile } from '../files/atomic-file.js';

/**
 * Creates the temporary file of `target` (`.<name>.tmp-<pid>-<random>`, exclusive: ../files/atomic-file.ts) and
 * returns a write stream on it. First removes the temporaries of `target` that killed runs left behind.
 * @throws UsageError code `OUTPUT_UNWRITABLE` (exit 2) when the target is a directory, its directory does not
 *   exist, or the file cannot be created there.
 */
export async function openTempFile(target: string): Promise<{ temp: string; stream: fs.WriteStream }> {
  const stat = await fsp.stat(target).catch(() => null);
  if (stat?.isDirectory()) throw new UsageError('OUTPUT_UNWRITABLE', `cannot write the output ${target}: it is a directory`);
  await removeStaleTemporaries(path.dirname(target), target);
  try {
    const { path: temp, handle } = await createTempFile(target);
    return { temp, stream: handle.createWriteStream({ highWaterMark: 256 * 1024 }) };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `the folder ${path.dirname(target)} does not exist` : (error as Error).message;
    throw new UsageError('OUTPUT_UNWRITABLE', `cannot write the output ${target}: ${reason}`, { cause: error });
  }
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

