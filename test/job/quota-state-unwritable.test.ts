/**
 * A quota-usage.json that cannot be written (issue 17, "Untested paths"): what the job learned (parks, limits, refused
 * keys) only helps the next run, so a failed write must neither throw nor stop the run; this run still uses what it
 * learned, the request counts (requests.log) are unaffected, and no temporary file is left behind. The file is made
 * unwritable by a directory in its place: a rename onto it fails whoever runs the tests (root included).
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuotaStateFile } from '../../src/journal/quota-state-file.js';
import { parseScenario, startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runMain } from '../support/run-main.js';
import { tempRoot } from '../support/temp-root.js';

const DAY = '2026-11-29';
const root = tempRoot('gb-quota-unwritable-');

/** A job directory whose quota-usage.json is a directory. */
function jobDirWithBlockedState(name: string): string {
  const dir = root.folder(name);
  mkdirSync(path.join(dir, 'quota-usage.json'));
  return dir;
}

describe('QuotaStateFile when quota-usage.json cannot be written', () => {
  it('parks, learns and refuses in memory without throwing; counts still go to requests.log; no temporary left', async () => {
    const dir = jobDirWithBlockedState('unit');
    const state = new QuotaStateFile(path.join(dir, 'quota-usage.json'));
    expect(() => state.park('p', 'gemini-2.5-flash', Date.now() + 60_000, 'daily quota')).not.toThrow();
    expect(() => state.learn('p', 'gemini-2.5-flash', 'rpm', 60)).not.toThrow();
    expect(() => state.refuse('key-id', 'key-1 …abcd', 'HTTP 403 PERMISSION_DENIED')).not.toThrow();
    expect(state.parked('p', 'gemini-2.5-flash')?.reason).toBe('daily quota');
    expect(state.learnedLimits('p', 'gemini-2.5-flash')).toEqual({ rpm: 60 });
    expect(state.refusal('key-id')?.alias).toBe('key-1 …abcd');
    for (let i = 0; i < 3; i++) state.increment('p', 'gemini-2.5-flash', DAY);
    await expect(state.flush()).resolves.toBeUndefined();
    await expect(state.close()).resolves.toBeUndefined();

    expect(statSync(path.join(dir, 'quota-usage.json')).isDirectory()).toBe(true);
    expect(readdirSync(path.join(dir, 'quota-usage.json'))).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['quota-usage.json', 'requests.log']);
    // The next run reads the count from requests.log; what quota-usage.json would have kept is lost, as documented.
    const next = new QuotaStateFile(path.join(dir, 'quota-usage.json'));
    expect(next.get('p', 'gemini-2.5-flash', DAY)).toBe(3);
    expect(next.learnedLimits('p', 'gemini-2.5-flash')).toEqual({});
    await next.close();
  });
});

describe('classify when quota-usage.json cannot be written', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    // One key of two is refused (403, a leaked key): the run remembers the refusal in quota-usage.json.
    sim = await startSimulator(
      parseScenario({ projects: [{ id: 'p', keys: ['good-key-0001', { key: 'leaked-key-0002', leaked: true }], limits: { '*': { rpm: 100_000, tpm: 100_000_000 } } }] }, 'quota-unwritable'),
    );
  });
  afterAll(() => sim.close());

  it('fails to keep a refused key, says nothing of it, and finishes every row on the other key', async () => {
    const dir = root.folder('cli');
    writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: 40 }, (_, i) => `${i},topic ${i}`).join('\n')}\n`);
    writeFileSync(path.join(dir, 'keys.txt'), 'p good-key-0001\np leaked-key-0002\n');
    mkdirSync(path.join(dir, 'rows.gemini-batch', 'quota-usage.json'), { recursive: true });
    const result = await runMain(['classify', 'rows.csv', '--prompt', '{{text}}', '--labels', 'a,b', '--keys-file', 'keys.txt', '--base-url', sim.url], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/key-2 \S+ \(project p\) was refused/); // the refusal was handled…
    expect(result.stdout).not.toMatch(/quota-usage|EISDIR/); // …and the failed write of it is not the user's problem
    const rows = parse<Record<string, string>>(readFileSync(path.join(dir, 'rows.classified.csv')), { columns: true });
    expect(rows.map((r) => r.status)).toEqual(Array(40).fill('ok'));
    const jobDir = path.join(dir, 'rows.gemini-batch');
    expect(statSync(path.join(jobDir, 'quota-usage.json')).isDirectory()).toBe(true);
    expect(readdirSync(jobDir).filter((n) => n.includes('tmp'))).toEqual([]);
  });
});
