/**
 * Replacing a file so a reader (or a crash, or a power failure) sees either the old content or the new, never a mix:
 * write a temporary file beside it, fsync it, rename it over the file, fsync the directory. The one place that does
 * this, for the job directory's files and for outputs.
 *
 * Temporary files are `.<name>.tmp-<pid>-<16 random hex digits>`: created with O_CREAT|O_EXCL|O_NOFOLLOW, so a file
 * or symlink planted at a predictable name can neither be written through nor truncated, and named with the pid, so
 * those of a killed process can be found and removed ({@link removeStaleTemporaries}).
 */
import { randomBytes } from 'node:crypto';
import fsSync, { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { syncDirectory } from './sync-directory.js';

/** A temporary file's name: `.<name>.tmp-<pid>-<16 hex>`; also matches the `.<name>.tmp-<pid>` of earlier versions. */
const TEMPORARY = /^\.(.+)\.tmp-(\d+)(?:-[0-9a-f]{16})?$/;

/** O_NOFOLLOW where the platform has it (not Windows), else 0. */
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** A new, exclusive temporary file beside `target`, open for writing. */
export interface TempFile {
  path: string;
  handle: fs.FileHandle;
}

/** A fresh temporary name beside `target` (see the file comment). */
export function temporaryPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}-${randomBytes(8).toString('hex')}`);
}

/**
 * Creates a new temporary file beside `target`, exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0666 less the umask).
 * @throws the fs error (ENOENT when the folder is missing, EACCES…).
 */
export async function createTempFile(target: string): Promise<TempFile> {
  const temp = temporaryPathFor(target);
  const handle = await fs.open(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | O_NOFOLLOW, 0o666);
  return { path: temp, handle };
}

/**
 * fsyncs the (closed) temporary file, renames it onto `target` (replacing the file, or a symlink itself, never
 * writing through one) and fsyncs the directory.
 * @throws the fs error of the failing step; the temporary file is left for the caller to remove.
 */
export async function publishTempFile(temp: string, target: string): Promise<void> {
  const handle = await fs.open(temp, constants.O_RDONLY | O_NOFOLLOW);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, target);
  syncDirectory(path.dirname(target));
}

/**
 * Replaces `file` with `data` atomically (see the file comment). The temporary file is removed when any step fails.
 * @throws the fs error of the failing step.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const { path: temp, handle } = await createTempFile(file);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  syncDirectory(path.dirname(file));
}

/**
 * {@link writeFileAtomic} without leaving the event loop: for small files whose new content must be on disk before
 * the caller goes on (a daily-quota park, a refused key), even if the process is killed the next moment.
 * @throws the fs error of the failing step; the temporary file is removed.
 */
export function writeFileAtomicSync(file: string, data: string | Uint8Array): void {
  const temp = temporaryPathFor(file);
  try {
    const fd = fsSync.openSync(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | O_NOFOLLOW, 0o666);
    try {
      fsSync.writeFileSync(fd, data);
      fsSync.fsyncSync(fd);
    } finally {
      fsSync.closeSync(fd);
    }
    fsSync.renameSync(temp, file);
  } catch (error) {
    fsSync.rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(path.dirname(file));
}

/**
 * Removes the temporary files of `target` (or, without `target`, of any file in `dir`) left by processes that are
 * gone (killed while writing). A temporary of a live process, or of a process on another host sharing the folder,
 * looks alive when its pid is in use here, and is kept.
 * @returns the names removed. Never throws: a folder that cannot be read has nothing removed.
 */
export async function removeStaleTemporaries(dir: string, target?: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMPORARY.exec(name);
    if (!m || (target !== undefined && m[1] !== path.basename(target)) || isAlive(Number(m[2]))) continue;
    try {
      await fs.rm(path.join(dir, name), { force: true });
      removed.push(name);
    } catch {
      // another process removed it, or it cannot be removed: nothing to do
    }
  }
  return removed;
}

/** True when `name` is a temporary file's name (see the file comment), of `of` when given. */
export function isTemporaryName(name: string, of?: string): boolean {
  const m = TEMPORARY.exec(name);
  return m !== null && (of === undefined || m[1] === of);
}

/** True when a process with this pid exists (or cannot be checked: EPERM means it exists). */
function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
