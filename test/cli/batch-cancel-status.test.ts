/**
 * Batches outside a classify run: Ctrl-C leaves them running and prints the command that re-attaches; `status` shows
 * each batch (name, state, lines, created) from the batch log without an API call, `status --refresh` with one get per
 * unfinished batch; `cancel` cancels them by name (a cancelled batch gives no results); the same classify command then
 * sends their rows in new batches, every row ok. The Ctrl-C is a real SIGINT to a spawned CLI; the rest runs in-process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchLog } from '../../src/batch/batch-log.js';
import { parseScenario, startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { binPath, spawnCli } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const KEY = 'AIzaSyBatchCancelTestKey0000000000000002';
let dir: string;
let sim: SimulatorHandle;

beforeAll(async () => {
  // The first two batches stay PENDING (until the 48 h expiry); later ones succeed at once.
  sim = await startSimulator(
    parseScenario({ projects: [{ id: 'acme', keys: [KEY] }], batch: { pendingMs: 20, runningMs: 40, jobs: [{ end: 'PENDING', nth: [1, 2] }] } }, 'batch-cancel'),
  );
  dir = mkdtempSync(path.join(tmpdir(), 'gb-batch-cancel-'));
  writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: 40 }, (_, i) => `${i + 1},row number ${i}`).join('\n')}\n`);
  writeFileSync(path.join(dir, 'keys.txt'), `acme ${KEY}\n`);
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const logFile = () => path.join(dir, 'rows.gemini-batch', 'batches.jsonl');
const created = () => BatchLog.read(logFile()).filter((r) => r.t === 'created').length;
/** The batches whose state a poll has recorded (a `state` record): their status line shows batchStats from then on. */
const polled = () => new Set(BatchLog.read(logFile()).flatMap((r) => (r.t === 'state' ? [r.id] : []))).size;

describe('batches outside a classify run', () => {
  it('Ctrl-C leaves them running; status shows them; cancel cancels them; classify again finishes every row', async () => {
    const args = ['classify', 'rows.csv', '--prompt', 'About {{text}}?', '--labels', 'yes,no', '--keys-file', 'keys.txt', '--base-url', sim.url, '--batch', '--batch-size', '20', '--batch-poll', '0.05'];
    const run = spawnCli(args, { cwd: dir });
    // Both batches created and polled once: before its first poll a batch's status line has no batchStats ("20
    // lines"), after it "0/20 lines done"; a SIGINT racing the first polls made that line either (1 run in 4).
    await run.waitUntil('two batches created and polled', () => created() === 2 && polled() === 2);
    run.child.kill('SIGINT');
    const stopped = await run.done;
    expect(stopped.code).toBe(3);
    expect(stopped.stdout).toContain('stopping: the batches keep running at Google');
    expect(stopped.stdout).toMatch(/2 batches keep running at Google \(batches\/\S+, batches\/\S+\); to collect the results, run: /);
    expect(stopped.stdout).toContain(`run: node ${binPath} classify rows.csv --prompt 'About {{text}}?' --labels yes,no --keys-file keys.txt --base-url ${sim.url} --batch`);
    const requestsBefore = sim.stats().requests.total;

    // status: from the log alone, no API call.
    const status = await runMain(['status', 'rows.csv'], { cwd: dir });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('batches: 2 — 2 not finished (states as last seen; --refresh asks the API)');
    expect(status.stdout).toMatch(/ {2}b0001 {2}batches\/\S+ {2}PENDING {2}0\/20 lines done · created \d{4}-\d\d-\d\dT/);
    expect(sim.stats().requests.total).toBe(requestsBefore);
    const json = JSON.parse((await runMain(['status', 'rows.csv', '--json'], { cwd: dir })).stdout) as { batches: Array<{ id: string; state: string; lines: number }> };
    expect(json.batches.map((b) => [b.id, b.state, b.lines])).toEqual([
      ['b0001', 'pending', 20],
      ['b0002', 'pending', 20],
    ]);
    // status --refresh: one get per unfinished batch.
    const refreshed = await runMain(['status', 'rows.csv', '--refresh', '--keys-file', 'keys.txt', '--base-url', sim.url], { cwd: dir });
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stdout).toContain('(states as get returned them now)');
    expect(sim.stats().requests.byEndpoint['batches.get']).toBeGreaterThan(0);

    // cancel: both batches, by name, recorded in the log.
    const cancelled = await runMain(['cancel', 'rows.csv', '--keys-file', 'keys.txt', '--base-url', sim.url], { cwd: dir });
    expect(cancelled.code, cancelled.stdout + cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toMatch(/b0001 batches\/\S+: cancel asked; now BATCH_STATE_CANCELLED/);
    expect(cancelled.stdout).toContain('2 batches cancelled; a cancelled batch gives no results, even for the lines it had done (docs/batch-api.md). Run the same classify --batch command again to send their rows in new batches.');
    expect(sim.stats().batches.byState.BATCH_STATE_CANCELLED).toBe(2);
    expect(BatchLog.read(logFile()).filter((r) => r.t === 'cancel').map((r) => r.t === 'cancel' && r.by)).toEqual(['user', 'user']);
    const again = await runMain(['cancel', 'rows.csv', '--keys-file', 'keys.txt', '--base-url', sim.url], { cwd: dir });
    expect(again.stdout).toContain('no unfinished batch to cancel');

    // The same classify command: the cancelled batches give nothing (no output, as the API); new batches answer their rows.
    const resumed = await runMain(args, { cwd: dir });
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    const out = parse<Record<string, string>>(readFileSync(path.join(dir, 'rows.classified.csv')), { columns: true });
    expect(out).toHaveLength(40);
    expect(out.every((r) => r.status === 'ok')).toBe(true);
    expect(sim.stats().batches.created).toBe(4);
    const final = await runMain(['status', 'rows.csv'], { cwd: dir });
    expect(final.stdout).toContain('batches: 4 — 0 not finished');
    expect(final.stdout).toMatch(/b0003 {2}batches\/\S+ {2}COLLECTED \(SUCCEEDED\) {2}20 lines: 20 journaled/);
  });

  it('cancel needs a job', async () => {
    const none = await runMain(['cancel', 'nothing.csv'], { cwd: dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no gemini-batch job');
  });
});
