/**
 * Issue 11 item 12: the daily request count (RPD) survives SIGKILL. A kill is simulated by reading the job directory
 * from a second QuotaStateFile while the first one never gets to run again (no timer, no flush, no close): only what
 * is on disk at that moment counts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QuotaStateFile } from '../../src/journal/quota-state-file.js';
import { RequestLog } from '../../src/journal/request-log.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-rpd-'));
  file = path.join(dir, 'quota-usage.json');
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const DAY = '2026-11-29';

describe('the durable request count (issue 11 item 12)', () => {
  it('every request counted before it leaves is on disk at once: a run stopped at any moment loses none', () => {
    const run = new QuotaStateFile(file);
    for (let n = 1; n <= 300; n++) {
      run.increment('acme', 'gemini-2.5-flash', DAY);
      if (n % 3 === 0) run.increment('side', 'gemini-2.5-pro', DAY);
      if (n % 37 === 0) expect(new QuotaStateFile(file).get('acme', 'gemini-2.5-flash', DAY)).toBe(n); // "killed" here
    }
    const after = new QuotaStateFile(file);
    expect(after.get('acme', 'gemini-2.5-flash', DAY)).toBe(300);
    expect(after.get('side', 'gemini-2.5-pro', DAY)).toBe(100);
    expect(after.get('acme', 'gemini-2.5-flash', '2026-11-30')).toBe(0);
  });

  it('parks, learned limits and refused keys are on disk before the call returns', () => {
    const run = new QuotaStateFile(file);
    run.park('acme', 'm', Date.now() + 60_000, 'daily quota exhausted');
    run.learn('acme', 'm', 'rpm', 60);
    run.refuse('abc123', 'key-1 …x7Qa', 'HTTP 403');
    const after = new QuotaStateFile(file);
    expect(after.parked('acme', 'm')?.reason).toBe('daily quota exhausted');
    expect(after.learnedLimits('acme', 'm')).toEqual({ rpm: 60 });
    expect(after.refusal('abc123')?.alias).toBe('key-1 …x7Qa');
  });

  it('adds up across runs, compacts to the latest day, and ignores a torn last line', async () => {
    const first = new QuotaStateFile(file);
    for (let i = 0; i < 50; i++) first.increment('acme', 'm', '2026-11-28');
    for (let i = 0; i < 7; i++) first.increment('acme', 'm', DAY);
    fs.appendFileSync(path.join(dir, 'requests.log'), '1'); // torn: no newline
    const second = new QuotaStateFile(file);
    expect(second.get('acme', 'm', DAY)).toBe(7);
    second.increment('acme', 'm', DAY); // compacts: the older day goes
    await second.close();
    const log = fs.readFileSync(path.join(dir, 'requests.log'), 'utf8');
    expect(log).not.toContain('2026-11-28');
    expect(log.split('\n').length).toBeLessThan(6);
    expect(new QuotaStateFile(file).get('acme', 'm', DAY)).toBe(8);
  });

  it('carries the counts of a job directory written before requests.log', () => {
    fs.writeFileSync(file, JSON.stringify({ day: DAY, requests: { 'acme\u0000m': 41 } }));
    const run = new QuotaStateFile(file);
    expect(run.get('acme', 'm', DAY)).toBe(41);
    run.increment('acme', 'm', DAY);
    expect(new QuotaStateFile(file).get('acme', 'm', DAY)).toBe(42);
  });

  it('keeps counting in memory when the log cannot be written, without throwing', () => {
    const log = new RequestLog(path.join(dir, 'missing-folder', 'requests.log'));
    log.increment('acme', 'm', DAY);
    log.increment('acme', 'm', DAY);
    expect(log.get('acme', 'm', DAY)).toBe(2);
    expect(log.failure).toBeDefined();
  });
});
