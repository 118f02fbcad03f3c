/**
 * `--simulate --batch` stopped with Ctrl-C: the batches live in the run's own simulator, so the message says they end
 * with the process (no "at Google"), and the resume, with a new simulator, puts their rows into new batches at once:
 * every row ok, journaled once, at its first attempt, in batches no earlier name points at. The Ctrl-C is a real
 * SIGINT to a spawned CLI; the resume runs in-process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchLog } from '../../src/batch/batch-log.js';
import { spawnCli } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-batch-simulate-'));
  writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: 40 }, (_, i) => `${i + 1},row number ${i}`).join('\n')}\n`);
  // The chunks b0001 and b0002 (the first run's) stay PENDING; later ones succeed at once.
  const pending = (id: string) => ({ end: 'PENDING', displayNameIncludes: ` ${id}` });
  writeFileSync(
    path.join(dir, 'sim.json'),
    JSON.stringify({ projects: [{ id: 'acme', keys: ['batch-simulate-resume-key'] }], batch: { pendingMs: 20, runningMs: 40, jobs: [pending('b0001'), pending('b0002')] } }),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const logFile = () => path.join(dir, 'rows.gemini-batch', 'batches.jsonl');
const created = () => BatchLog.read(logFile()).filter((r) => r.t === 'created').length;

describe('--simulate --batch, Ctrl-C and resume', () => {
  it('says the simulated batches end with the process; the resume sends their rows in new batches, each row once', async () => {
    const args = ['classify', 'rows.csv', '--prompt', 'About {{text}}?', '--labels', 'yes,no', '--simulate', '--simulate-config', 'sim.json', '--batch', '--batch-size', '20', '--batch-poll', '0.05'];
    const run = spawnCli(args, { cwd: dir });
    await run.waitUntil('two batches created', () => created() === 2);
    run.child.kill('SIGINT');
    const stopped = await run.done;
    expect(stopped.code).toBe(3);
    expect(stopped.stdout).toContain('stopping: the simulated batches end with this process; no new requests');
    expect(stopped.stdout).toMatch(/2 simulated batches end with this process \(--simulate: its simulator stops with it\); the resume creates new batches for their rows: node \S+ classify rows\.csv/);
    expect(stopped.stdout).not.toContain('at Google');
    const firstNames = BatchLog.read(logFile()).flatMap((r) => (r.t === 'created' ? [r.name] : []));

    const resumed = await runMain(args, { cwd: dir });
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('2 batches of an earlier run ended with its simulator (--simulate): their rows go into new batches');
    // The old names are not asked for again, so no 404 for them (a port number such as 40421 holds the digits 404).
    expect(resumed.stdout).not.toMatch(/\b404\b|no longer exists/);
    expect(resumed.stdout).toMatch(/batches: 4 \(80 lines\): 2 given up \(the simulator of the run that made it has ended\), 2 collected/);
    const out = parse<Record<string, string>>(readFileSync(path.join(dir, 'rows.classified.csv')), { columns: true });
    expect(out.map((r) => r.id)).toEqual(Array.from({ length: 40 }, (_, i) => String(i + 1)));
    expect(out.every((r) => r.status === 'ok')).toBe(true);
    const entries = readFileSync(path.join(dir, 'rows.gemini-batch', 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { row: number; attempts: number });
    expect(entries.map((e) => e.row).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(entries.every((e) => e.attempts === 1)).toBe(true);
    const log = BatchLog.read(logFile());
    const secondNames = log.flatMap((r) => (r.t === 'created' ? [r.name] : [])).slice(2);
    expect(secondNames).toHaveLength(2);
    expect(secondNames.some((n) => firstNames.includes(n))).toBe(false);
  });
});
