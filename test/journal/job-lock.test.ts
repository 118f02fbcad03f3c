import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { jobFiles } from '../../src/journal/job-dir.js';
import { acquireJobLock, processStartTicks, type JobLockRelease } from '../../src/journal/job-lock.js';
import { tempDir } from './entries.js';

let dir: string;
let remove: () => void;
beforeEach(() => ({ dir, remove } = tempDir('gb-lock-')));
afterEach(() => remove());

const lockOf = () => JSON.parse(fs.readFileSync(jobFiles(dir).lock, 'utf8')) as { pid: number; hostname: string; startTicks?: number };
const writeLock = (content: object | string) => fs.writeFileSync(jobFiles(dir).lock, typeof content === 'string' ? content : JSON.stringify(content));

/** The pid of a process that has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.on('error', reject);
    child.on('exit', () => resolve(child.pid!));
  });
}

async function expectLocked(pid: number): Promise<UsageError> {
  const error = await acquireJobLock(dir).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  expect((error as UsageError).code).toBe('JOB_LOCKED');
  expect((error as UsageError).exitCode).toBe(2);
  expect((error as UsageError).message).toContain(`another gemini-batch (pid ${pid}`);
  return error as UsageError;
}

describe('acquireJobLock', () => {
  it('creates the directory and a lock naming our pid; release removes it, once', async () => {
    fs.rmSync(dir, { recursive: true });
    const release = await acquireJobLock(dir);
    expect(lockOf()).toMatchObject({ pid: process.pid, hostname: os.hostname() });
    expect(fs.readdirSync(dir)).toEqual(['lock']); // no temporary left behind
    await release();
    expect(fs.existsSync(jobFiles(dir).lock)).toBe(false);
    await release();
    const again = await acquireJobLock(dir);
    await again();
  });

  it('release.sync() removes our lock synchronously (a second Ctrl-C), once, and never a lock that is not ours', async () => {
    const release = await acquireJobLock(dir);
    release.sync();
    expect(fs.existsSync(jobFiles(dir).lock)).toBe(false);
    const other = await acquireJobLock(dir);
    release.sync(); // released already: the new holder's lock stays
    await release();
    expect(lockOf()).toMatchObject({ pid: process.pid });
    // A lock replaced behind our back (another holder's bytes) is left in place.
    const theirs = { pid: process.pid, hostname: os.hostname(), startedAt: '', acquiredAt: '', nonce: 'not-ours' };
    writeLock(theirs);
    other.sync();
    expect(lockOf()).toMatchObject({ nonce: 'not-ours' });
  });

  it('refuses while a live process holds the lock', async () => {
    const release = await acquireJobLock(dir);
    await expectLocked(process.pid);
    await release();
  });

  it('refuses a lock held by another live process', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      await new Promise((resolve) => child.on('spawn', resolve));
      writeLock({ pid: child.pid, hostname: os.hostname(), startedAt: '', acquiredAt: '', startTicks: processStartTicks(child.pid!) ?? undefined });
      const error = await expectLocked(child.pid!);
      expect(error.message).toContain(jobFiles(dir).lock);
      expect(lockOf().pid).toBe(child.pid);
    } finally {
      child.kill();
    }
  });

  it('takes over a lock whose process is gone', async () => {
    writeLock({ pid: await deadPid(), hostname: os.hostname(), startedAt: '', acquiredAt: '' });
    const release = await acquireJobLock(dir);
    expect(lockOf().pid).toBe(process.pid);
    await release();
  });

  it.skipIf(processStartTicks(process.pid) === null)('takes over a lock whose pid now belongs to another process (Linux)', async () => {
    writeLock({ pid: process.pid, hostname: os.hostname(), startedAt: '', acquiredAt: '', startTicks: processStartTicks(process.pid)! - 1 });
    const release = await acquireJobLock(dir);
    expect(lockOf().startTicks).toBe(processStartTicks(process.pid));
    await release();
  });

  it('takes over an unreadable lock', async () => {
    writeLock('');
    const release = await acquireJobLock(dir);
    expect(lockOf().pid).toBe(process.pid);
    await release();
  });

  it('refuses a lock held on another host, whose pid it cannot check', async () => {
    writeLock({ pid: await deadPid(), hostname: `not-${os.hostname()}`, startedAt: '', acquiredAt: '' });
    const error = await expectLocked(lockOf().pid);
    expect(error.message).toContain(`on not-${os.hostname()}`);
  });

  it('lets only one of two simultaneous callers in', async () => {
    const results = await Promise.allSettled([acquireJobLock(dir), acquireJobLock(dir), acquireJobLock(dir)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as UsageError).code).toBe('JOB_LOCKED');
    expect(fs.readdirSync(dir)).toEqual(['lock']);
  });

  it('does not remove a lock another process has taken since', async () => {
    const release = await acquireJobLock(dir);
    writeLock({ pid: 1, hostname: os.hostname(), startedAt: '', acquiredAt: 'later' });
    await release();
    expect(lockOf().pid).toBe(1);
  });
});

describe('acquireJobLock taking over a stale lock (issue 11 item 10)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('never lets a second taker delete the lock the first one just took', async () => {
    writeLock({ pid: await deadPid(), hostname: os.hostname(), startedAt: '', acquiredAt: 'stale' });
    // The interleaving of the bug: both callers judge the lock stale; the first replaces it; only then may the second
    // go on. A removal of the lock by the second caller waits until a lock was linked into place.
    const lock = jobFiles(dir).lock;
    let linked!: () => void;
    const firstLinked = new Promise<void>((resolve) => (linked = resolve));
    let removals = 0;
    const realRm = fsp.rm.bind(fsp);
    const realLink = fsp.link.bind(fsp);
    vi.spyOn(fsp, 'rm').mockImplementation(async (target, options) => {
      if (target === lock && ++removals === 2) await firstLinked;
      return realRm(target, options);
    });
    vi.spyOn(fsp, 'link').mockImplementation(async (from, to) => {
      await realLink(from, to);
      if (to === lock) linked();
    });
    const results = await Promise.allSettled([acquireJobLock(dir), acquireJobLock(dir)]);
    vi.restoreAllMocks();
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(lockOf().pid).toBe(process.pid);
  });

  it('lets exactly one of many simultaneous callers take over a lock whose process is gone, every time', async () => {
    const dead = await deadPid();
    for (let round = 0; round < 20; round++) {
      writeLock({ pid: dead, hostname: os.hostname(), startedAt: '', acquiredAt: `round ${round}` });
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => acquireJobLock(dir)));
      const winners = results.filter((r): r is PromiseFulfilledResult<JobLockRelease> => r.status === 'fulfilled');
      expect(winners, `round ${round}`).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect((r.reason as UsageError).code).toBe('JOB_LOCKED');
      expect(lockOf().pid).toBe(process.pid);
      expect(fs.readdirSync(dir)).toEqual(['lock']); // no claim, temporary or moved-aside file left
      await winners[0]!.value();
      expect(fs.existsSync(jobFiles(dir).lock)).toBe(false);
    }
  });

  it('moves aside the takeover claim of a taker that died, and takes over', async () => {
    const dead = await deadPid();
    writeLock({ pid: dead, hostname: os.hostname(), startedAt: '', acquiredAt: 'stale' });
    const stale = fs.readFileSync(jobFiles(dir).lock);
    const { createHash } = await import('node:crypto');
    const claim = `${dir}/.lock.takeover-${createHash('sha256').update(stale).digest('hex').slice(0, 32)}`;
    fs.writeFileSync(claim, JSON.stringify({ pid: dead, hostname: os.hostname(), startedAt: '', acquiredAt: 'claim' }));
    const release = await acquireJobLock(dir);
    expect(lockOf().pid).toBe(process.pid);
    expect(fs.readdirSync(dir)).toEqual(['lock']);
    await release();
  });

  it('does not write through a lock temporary planted as a symbolic link (issue 11 item 8)', async () => {
    const victim = `${dir}-victim`;
    fs.writeFileSync(victim, 'precious');
    try {
      // The names earlier versions used: .lock.tmp-<pid>-<n>, n counting this process's calls.
      for (let n = 1; n <= 200; n++) fs.symlinkSync(victim, `${dir}/.lock.tmp-${process.pid}-${n}`);
      const release = await acquireJobLock(dir);
      expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
      await release();
    } finally {
      fs.rmSync(victim, { force: true });
    }
  });
});
