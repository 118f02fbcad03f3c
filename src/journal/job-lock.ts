/**
 * One gemini-batch per job: `<job-dir>/lock` holds the pid of the process running the job. A lock whose process is
 * gone (killed, machine rebooted) is stale and taken over.
 */
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.js';
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
}

/** Calls of acquireJobLock in this process, naming their temporary files apart. */
let attempts = 0;

/**
 * Takes the job's lock, creating `jobDir` when missing. The lock file is written whole beside it and hard-linked
 * into place, so it appears atomically and never half-written.
 * @returns a function that removes the lock if it is still ours (idempotent).
 * @throws UsageError code `JOB_LOCKED` (exit 2) when a live process holds it: "another gemini-batch (pid N) is
 *   running this job", or when the holder is on another host and cannot be checked.
 * @throws UsageError code `JOB_DIR_UNWRITABLE` (exit 2) when the directory cannot be created or written.
 */
export async function acquireJobLock(jobDir: string): Promise<() => Promise<void>> {
  const lock = jobFiles(jobDir).lock;
  const mine: LockContent = {
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: new Date(performance.timeOrigin).toISOString(),
    acquiredAt: new Date().toISOString(),
  };
  const ticks = processStartTicks(process.pid);
  if (ticks !== null) mine.startTicks = ticks;
  const temp = path.join(jobDir, `.lock.tmp-${process.pid}-${++attempts}`);
  try {
    await fs.mkdir(jobDir, { recursive: true });
    await fs.writeFile(temp, `${JSON.stringify(mine)}\n`);
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
      const holder = await readLock(lock);
      if (holder && !isStale(holder)) throw locked(jobDir, lock, holder);
      if (attempt >= 2) throw locked(jobDir, lock, holder);
      await fs.rm(lock, { force: true }); // stale: take it over
    }
  } finally {
    await fs.rm(temp, { force: true });
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    const holder = await readLock(lock);
    if (holder?.pid === mine.pid && holder.acquiredAt === mine.acquiredAt) await fs.rm(lock, { force: true });
  };
}

/** The lock's content, or null when it is gone or unreadable (then it is stale: ours are written whole). */
async function readLock(lock: string): Promise<LockContent | null> {
  try {
    const v = JSON.parse(await fs.readFile(lock, 'utf8')) as LockContent;
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
