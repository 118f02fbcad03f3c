/**
 * One gemini-batch per job: `<job-dir>/lock` holds the pid of the process running the job. A lock whose process is
 * gone (killed, machine rebooted) is stale and taken over.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, readFileSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { createTempFile, O_NOFOLLOW } from '../files/atomic-file.js';
import { jobFiles } from './job-dir.js';

/** What the lock file holds (JSON). */
interface LockContent {
  pid: number;
  hostname: string;
  /** When the holding process started, ISO 8601 (for people). */
  startedAt: string;
  /** Linux: the holder's start time in clock ticks since boot (/proc/<pid>/stat field 22), which tells a reused pid. */
  startTicks?: number;
  /** When it took the lock, ISO 8601. */
  acquiredAt: string;
  /** Random hex: no two locks have the same bytes, so a takeover can tell the stale lock from a fresh one. */
  nonce?: string;
}

/**
 * Removes the lock if it is still ours (idempotent). Awaiting it releases asynchronously; `sync()` does the same
 * synchronously, for a process about to exit (a second Ctrl-C, ../job/interrupts.ts).
 */
export interface JobLockRelease {
  (): Promise<void>;
  sync(): void;
}

/** Attempts to win the lock before giving up while others take over a stale one (each waits {@link RETRY_MS}). */
const MAX_ATTEMPTS = 50;
const RETRY_MS = 20;

/**
 * Takes the job's lock, creating `jobDir` when missing. The lock file is written whole beside it (an exclusive
 * temporary, ../files/atomic-file.ts) and hard-linked into place, so it appears atomically and never half-written.
 *
 * A stale lock (its process is gone) is taken over without ever removing it: the taker first claims the takeover
 * of exactly that lock by hard-linking its own lock file to `.lock.takeover-<hash of the stale lock's bytes>` (the
 * link fails for every other taker of the same stale lock), checks that `lock` still holds those bytes, and renames
 * its file over `lock`, which replaces the stale one atomically. Two processes can therefore never both win, and
 * nobody can delete a lock just taken: each lock holds a random nonce, so no two locks have the same bytes.
 * A takeover claim left by a taker that died is moved aside once its process is gone.
 * @returns a {@link JobLockRelease}: removes the lock if it is still ours (idempotent), awaited or `sync()`.
 * @throws UsageError code `JOB_LOCKED` (exit 2) when a live process holds it: "another gemini-batch (pid N) is
 *   running this job", or when the holder is on another host and cannot be checked.
 * @throws UsageError code `JOB_DIR_UNWRITABLE` (exit 2) when the directory cannot be created or written.
 */
export async function acquireJobLock(jobDir: string): Promise<JobLockRelease> {
  const lock = jobFiles(jobDir).lock;
  const mine: LockContent = {
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: new Date(performance.timeOrigin).toISOString(),
    acquiredAt: new Date().toISOString(),
    nonce: randomBytes(8).toString('hex'),
  };
  const ticks = processStartTicks(process.pid);
  if (ticks !== null) mine.startTicks = ticks;
  let temp: string;
  try {
    await fs.mkdir(jobDir, { recursive: true });
    temp = await writeTemporary(lock, `${JSON.stringify(mine)}\n`);
  } catch (error) {
    throw new UsageError('JOB_DIR_UNWRITABLE', `cannot create the job directory ${jobDir}: ${(error as Error).message}; choose another --job-dir`, { cause: error });
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await fs.link(temp, lock);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (attempt >= MAX_ATTEMPTS) throw locked(jobDir, lock, parseLock(await readLockBytes(lock)));
      const held = await readLockBytes(lock);
      if (held === null) continue; // released meanwhile: try again
      const holder = parseLock(held);
      if (holder && !isStale(holder)) throw locked(jobDir, lock, holder);
      if (await takeOver(jobDir, lock, temp, held)) break;
      await sleep(RETRY_MS);
    }
  } finally {
    await fs.rm(temp, { force: true });
  }
  let released = false;
  const isMine = (holder: LockContent | null) => holder?.pid === mine.pid && holder.nonce === mine.nonce;
  const release = async () => {
    if (released) return;
    released = true;
    if (isMine(parseLock(await readLockBytes(lock)))) await fs.rm(lock, { force: true });
  };
  return Object.assign(release, {
    sync(): void {
      if (released) return;
      released = true;
      try {
        if (isMine(parseLock(readLockBytesSync(lock)))) rmSync(lock, { force: true });
      } catch {
        // left behind: stale once this process is gone, and taken over by the next run
      }
    },
  });
}

/**
 * What {@link readLockBytes} answers when the lock file would not open: null when it is gone, the text `symbolic link`
 * when it is one (O_NOFOLLOW).
 * @throws `error` for any other failure to open it.
 */
function unopenedLockBytes(error: unknown): Buffer | null {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return null;
  if (code === 'ELOOP') return Buffer.from('symbolic link');
  throw error;
}

/** {@link readLockBytes}, synchronously. */
function readLockBytesSync(file: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | O_NOFOLLOW);
  } catch (error) {
    return unopenedLockBytes(error);
  }
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces the stale lock whose bytes are `stale` with the file `temp` (see {@link acquireJobLock}).
 * @returns true when the lock is now ours; false when another process got there first or `lock` changed.
 */
async function takeOver(jobDir: string, lock: string, temp: string, stale: Buffer): Promise<boolean> {
  const gate = path.join(jobDir, `.lock.takeover-${createHash('sha256').update(stale).digest('hex').slice(0, 32)}`);
  try {
    await fs.link(temp, gate);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process is taking over this stale lock, or died doing so.
    const claim = await readLockBytes(gate);
    const taker = parseLock(claim);
    if (claim !== null && (taker === null || isStale(taker))) await moveAsideIfSame(jobDir, gate, claim);
    return false;
  }
  try {
    const now = await readLockBytes(lock);
    if (now === null || !now.equals(stale)) return false;
    await fs.rename(temp, lock);
    return true;
  } finally {
    await fs.rm(gate, { force: true });
  }
}

/**
 * Removes `file` if it still holds `bytes`: renames it to a name of ours first (atomic), and puts back whatever it
 * turns out to be when it changed in between.
 */
async function moveAsideIfSame(jobDir: string, file: string, bytes: Buffer): Promise<void> {
  const aside = path.join(jobDir, `.lock.aside-${randomBytes(8).toString('hex')}`);
  try {
    await fs.rename(file, aside);
  } catch {
    return; // gone already
  }
  const moved = await readLockBytes(aside);
  if (moved !== null && !moved.equals(bytes)) await fs.link(aside, file).catch(() => undefined);
  await fs.rm(aside, { force: true });
}

/** Writes `text` to a new exclusive temporary file beside `target`; returns its path. */
async function writeTemporary(target: string, text: string): Promise<string> {
  const { path: temp, handle } = await createTempFile(target);
  try {
    await handle.writeFile(text);
  } catch (error) {
    await handle.close();
    await fs.rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  return temp;
}

/** The bytes of a lock file, or null when it is gone. Does not follow a symbolic link. */
async function readLockBytes(file: string): Promise<Buffer | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | O_NOFOLLOW);
  } catch (error) {
    return unopenedLockBytes(error);
  }
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The lock's content, or null when it is gone or unreadable (then it is stale: ours are written whole). */
function parseLock(bytes: Buffer | null): LockContent | null {
  if (bytes === null) return null;
  try {
    const v = JSON.parse(bytes.toString('utf8')) as LockContent;
    return Number.isSafeInteger(v.pid) && typeof v.hostname === 'string' ? v : null;
  } catch {
    return null;
  }
}

/**
 * True when the lock's process is gone: no process has its pid, or (Linux) the process with that pid started at
 * another clock tick than the holder did, so the pid was reused (e.g. after a reboot). Ticks since boot do not move
 * when the wall clock is set. A holder on another host is never stale: its pid cannot be checked from here.
 */
function isStale(holder: LockContent): boolean {
  if (holder.hostname !== os.hostname()) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
  }
  if (holder.startTicks === undefined) return false;
  const ticks = processStartTicks(holder.pid);
  return ticks !== null && ticks !== holder.startTicks;
}

/** Start time of a process in clock ticks since boot, from /proc/<pid>/stat field 22; null without /proc. */
export function processStartTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the command name may hold spaces and ')'
    const ticks = Number(fields[19]); // field 22 of the whole line
    return Number.isSafeInteger(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

function locked(jobDir: string, lock: string, holder: LockContent | null): UsageError {
  const who = holder ? `pid ${holder.pid}${holder.hostname !== os.hostname() ? ` on ${holder.hostname}` : ''}` : 'unknown pid';
  const since = holder ? `, since ${holder.acquiredAt}` : '';
  return new UsageError(
    'JOB_LOCKED',
    `another gemini-batch (${who}) is running this job (${jobDir}${since}). Wait for it to finish or stop it; ` +
      `if none is running, delete ${lock}.`,
  );
}
