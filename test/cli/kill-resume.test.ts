/**
 * Issue 2, "Done when": classify runs as a subprocess against the simulator over real HTTP, is SIGKILLed once 150 rows
 * are journaled, runs again (in-process) and ends with one output row per input record; no row whose result was
 * journaled is sent again. The input is the sample's first 300 records (multi-line quoted descriptions, CRLF), not all
 * 656: the kill at 150 journaled rows comes midway (the CLI was killed within 3 rows of the 150th in runs under load,
 * so 150 rows of margin before it could finish), and the resume sends about 150 rows instead of 506.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimLogEntry, SimulatorHandle } from '../../src/simulator/index.js';
import { repoRoot } from '../support/fixtures.js';
import { spawnCli } from '../support/cli.js';
import { writeCsvHead } from '../support/csv-head.js';
import { journaledRows as journaledIn, journalLineCount } from '../support/journal-rows.js';
import { runMain } from '../support/run-main.js';
import { startAnyKeySimulator } from '../support/any-key-simulator.js';

/** Records of the input: see the file comment. */
const RECORDS = 300;
const PROMPT = 'Is this skill group relevant to a backend engineering role? {{Level 3 preferred term}} {{Level 2 preferred term}}: {{Description}}';

let sim: SimulatorHandle;
let dir: string;
let journalFile: string;

beforeAll(async () => {
  sim = await startAnyKeySimulator(
    'kill-resume',
    {
      latency: { medianMs: 15, p99Ms: 40 },
      requestLog: true,
    },
    { id: 'p1' },
  );
  dir = mkdtempSync(path.join(tmpdir(), 'gb-kill-'));
  writeCsvHead(path.join(repoRoot, 'samples', 'topics.csv'), path.join(dir, 'topics.csv'), RECORDS);
  journalFile = path.join(dir, 'topics.gemini-batch', 'journal.jsonl');
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const journaledRows = () => journaledIn(journalFile);

async function log(since: number): Promise<SimLogEntry[]> {
  return (await (await fetch(`${sim.url}/__sim/log?since=${since}`)).json()) as SimLogEntry[];
}

describe('classify survives SIGKILL and resumes exactly', () => {
  it('sends only rows without a result and writes one row per input record', async () => {
    const args = ['classify', 'topics.csv', '--prompt', PROMPT, '--labels', 'yes,no', '--base-url', sim.url, '--workers-per-key', '16', '--rpm', '100000', '--tpm', '100000000'];
    const env = { GEMINI_API_KEY: 'test-key-kill-resume' };
    const first = spawnCli(args, { cwd: dir, env });
    // Kill once a good part of the rows is journaled.
    await first.waitUntil('150 journaled rows', () => journalLineCount(journalFile) >= 150);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const journaled = journaledRows();
    expect(journaled.size).toBeGreaterThan(0);
    expect(journaled.size).toBeLessThan(RECORDS);
    const beforeResume = await log(0);
    const lastSeq = beforeResume.reduce((m, e) => Math.max(m, e.seq), 0);

    const second = await runMain(args, { cwd: dir, env });
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);

    // Which rows did the second run send? Map each request's prompt hash back to its row.
    const records = parse<Record<string, string>>(readFileSync(path.join(dir, 'topics.csv')), { columns: true });
    expect(records).toHaveLength(RECORDS);
    const rowOfPrompt = new Map<string, number>();
    records.forEach((r, i) => {
      const text = PROMPT.replace(/\{\{([^}]+)\}\}/g, (_m, name: string) => r[name] ?? '');
      rowOfPrompt.set(createHash('sha256').update(text).digest('hex'), i);
    });
    const resent = (await log(lastSeq)).filter((e) => e.endpoint === 'generateContent').map((e) => rowOfPrompt.get(e.promptSha256 ?? ''));
    expect(resent.every((row) => row !== undefined)).toBe(true);
    for (const row of resent) expect(journaled.has(row as number)).toBe(false);
    expect(resent.length).toBeGreaterThanOrEqual(RECORDS - journaled.size);

    const output = parse<Record<string, string>>(readFileSync(path.join(dir, 'topics.classified.csv')), { columns: true });
    expect(output).toHaveLength(records.length);
    // Each output row is its input record's, ok, with a label of the set: the rows that are not, in one assertion (an
    // expect per cell cost more than the run's own work here).
    const wrong = output.filter((row, i) => {
      const record = records[i];
      return row['Level 0 URI'] !== record?.['Level 0 URI'] || row.Description !== record?.Description || row.status !== 'ok' || (row.label !== 'yes' && row.label !== 'no');
    });
    expect(wrong).toEqual([]);
  });
});
