/**
 * Issue 15, resume mid-pack: classify --rows-per-request 10 runs as a subprocess against the simulator over real HTTP
 * and is SIGKILLed while packs are in flight; the rows of the packs that had not answered have no journal line, so the
 * next run (in-process) sends exactly them: every row ends with one journal line, ok, and one output row.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { spawnCli } from '../support/cli.js';
import { journaledRows } from '../support/journal-rows.js';
import { runMain } from '../support/run-main.js';
import { startAnyKeySimulator } from '../support/any-key-simulator.js';

const ROWS = 300;
let sim: SimulatorHandle;
let dir: string;

beforeAll(async () => {
  sim = await startAnyKeySimulator('pack-kill', { latency: { medianMs: 150, p99Ms: 400 } }, { id: 'p1' });
  dir = mkdtempSync(path.join(tmpdir(), 'gb-pack-kill-'));
  writeFileSync(path.join(dir, 'rows.csv'), `id,text\n${Array.from({ length: ROWS }, (_, i) => `${i},note ${i} on ${['cats', 'rates', 'golf'][i % 3]}`).join('\n')}\n`);
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a pack killed in flight', () => {
  it('leaves its rows pending; the next run sends them and every row ends with exactly one result', async () => {
    const journal = path.join(dir, 'rows.gemini-batch', 'journal.jsonl');
    const args = ['classify', 'rows.csv', '--prompt', 'Topic: {{text}}', '--labels', 'animals,money,sport', '--base-url', sim.url, '--rows-per-request', '10', '--workers-per-key', '4', '--rpm', '100000', '--tpm', '100000000'];
    const env = { GEMINI_API_KEY: 'pack-kill-key' };
    const first = spawnCli(args, { cwd: dir, env });
    await first.waitUntil('60 journaled rows', () => journaledRows(journal).size >= 60);
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    const before = journaledRows(journal);
    expect(before.size).toBeLessThan(ROWS);
    // Only answered packs are journaled: whole packs of 10 (the run sends no pack smaller than 10 here).
    expect(before.size % 10).toBe(0);

    const second = await runMain(args, { cwd: dir, env });
    expect(second.code, second.stderr).toBe(0);
    const lines = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { row: number; status: string; pack?: { id: string } });
    const perRow = new Map<number, number>();
    for (const line of lines) perRow.set(line.row, (perRow.get(line.row) ?? 0) + 1);
    expect(perRow.size).toBe(ROWS);
    expect([...perRow.values()].every((n) => n === 1)).toBe(true);
    const output = parse<Record<string, string>>(readFileSync(path.join(dir, 'rows.classified.csv')), { columns: true });
    expect(output).toHaveLength(ROWS);
    expect(output.every((r) => r.status === 'ok')).toBe(true);
  });
});
