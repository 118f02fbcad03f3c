/**
 * A --batch job's `status` and HTML report say its rows were answered through the batches of its batch log, not
 * "0 requests", and the report says why it has no chart. In-process, against the simulator's Batch API over real HTTP
 * on 127.0.0.1.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runMain } from '../support/run-main.js';

const KEY = 'AIzaSyRunCountsBatchTestKey00000000001';
const ROWS = 40;
let dir: string;
let sim: SimulatorHandle;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-run-counts-batch-'));
  fs.writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: ROWS }, (_, i) => `${i},topic ${i}`).join('\n')}\n`);
  fs.writeFileSync(path.join(dir, 'keys.txt'), `acme ${KEY}\n`);
  sim = await startSimulator(
    parseScenario({ projects: [{ id: 'acme', keys: [KEY], limits: { '*': { rpm: 1_000_000, tpm: 1_000_000_000 } } }], batch: { pendingMs: 20, runningMs: 20 } }, 'run-counts-batch'),
  );
});

afterAll(async () => {
  await sim.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a --batch job', () => {
  it('status and the report count its rows through its batches', async () => {
    const run = await runMain(['classify', 'rows.csv', '--prompt', 'Topic: {{text}}', '--labels', 'x,y', '--keys-file', 'keys.txt', '--base-url', sim.url, '--batch', '--batch-size', '20', '--batch-poll', '0.05', '-o', 'out.csv'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const created = fs
      .readFileSync(path.join(dir, 'rows.gemini-batch', 'batches.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"t":"created"')).length;
    expect(created).toBe(2);

    const status = await runMain(['status', 'rows.csv'], { cwd: dir });
    expect(status.stdout).toMatch(new RegExp(`^requests: 0 in 1 run · .* · ${ROWS} rows answered through 2 batches$`, 'm'));

    const report = await runMain(['report', 'rows.csv', '-o', 'report.html'], { cwd: dir });
    expect(report.code).toBe(0);
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(html).toContain(`0 online requests in 1 run · ${ROWS} rows answered through 2 batches`);
    expect(html).not.toContain('Charts for the last 0 runs');
    expect(html).toContain('No run sent online requests: nothing to chart (the rows were answered through the Batch API).');
  });
});
