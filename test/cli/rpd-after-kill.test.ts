/**
 * Issue 11 item 12, as reported: classify is SIGKILLed several times mid-run; the daily request count the job keeps
 * (what the next run's RPD limiter starts from) must hold every request the server received — before, ten kills
 * recorded 1,288 of 1,531 requests. A subprocess, because a kill is the point; each kill once 60 more rows are journaled.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuotaStateFile } from '../../src/journal/quota-state-file.js';
import { PACIFIC_DAY } from '../../src/providers/gemini/quota-day.js';
import { parseScenario, startSimulator, type SimStats, type SimulatorHandle } from '../../src/simulator/index.js';
import { spawnCli } from '../support/cli.js';
import { journalLineCount } from '../support/journal-rows.js';

const KEY = 'rpd-after-kill-key-0001';
const WORKERS = 4;
let sim: SimulatorHandle;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator(
    parseScenario(
      { projects: [{ id: 'acme', keys: [KEY], limits: { '*': { rpm: 100_000, tpm: 100_000_000 } } }], latency: { medianMs: 15, p99Ms: 40 } },
      'rpd-after-kill',
    ),
  );
  dir = mkdtempSync(path.join(tmpdir(), 'gb-rpd-kill-'));
  writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: 2000 }, (_, i) => `${i},topic number ${i}`).join('\n')}\n`);
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const journalLines = () => journalLineCount(path.join(dir, 'rows.gemini-batch', 'journal.jsonl'));

describe('RPD after SIGKILL (issue 11 item 12)', () => {
  it('counts every request the server received, over three kills', async () => {
    const args = ['classify', 'rows.csv', '--prompt', 'Topic: {{text}}', '--labels', 'x,y', '--base-url', sim.url, '--workers-per-key', String(WORKERS), '--rpm', '100000', '--tpm', '100000000'];
    for (let kill = 1; kill <= 3; kill++) {
      const target = journalLines() + 60;
      const run = spawnCli(args, { cwd: dir, env: { GEMINI_API_KEY: KEY } });
      await run.waitUntil(`${target} journaled rows`, () => journalLines() >= target);
      run.child.kill('SIGKILL');
      expect((await run.done).signal).toBe('SIGKILL');
    }
    const received = ((await (await fetch(`${sim.url}/__sim/stats`)).json()) as SimStats).keys['acme/key-1']?.requests ?? 0;
    expect(received).toBeGreaterThan(150);
    const counted = new QuotaStateFile(path.join(dir, 'rows.gemini-batch', 'quota-usage.json')).get('key-1', 'gemini-2.5-flash', PACIFIC_DAY.dayOf(Date.now()));
    // A request is counted before it leaves: at most the ones in flight at each kill were counted and never arrived.
    expect(counted).toBeGreaterThanOrEqual(received);
    expect(counted).toBeLessThanOrEqual(received + 3 * WORKERS);
  });
});
