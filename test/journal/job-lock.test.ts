import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { jobFiles } from '../../src/journal/job-dir.js';
import { acquireJobLock, processStartTicks } from '../../src/journal/job-lock.js';
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
