/**
 * ../../src/journal/run-counts.ts on a journal written here: rows fall in the window of the run that started last
 * before them; a pack counts once; Batch API rows are no requests; runs that ended keep their records' figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import type { JournalEntry } from '../../src/journal/journal-entry.js';
import type { RunRecord } from '../../src/journal/run-log.js';
import { countJournal, countRuns, runStarts } from '../../src/journal/run-counts.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-run-counts-unit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function entry(row: number, s: number, more: Partial<JournalEntry> = {}): JournalEntry {
  return { row, fp: `fp${row}`, status: 'ok', label: 'x', raw: 'x', finishReason: 'STOP', error: null, tokens: { input: 1, output: 1, thoughts: 0 }, attempts: 1, key: null, time: at(s), ...more };
}

function run(s: number, exitCode: number | null, requests: number, finished: number): RunRecord {
  return { run: `${at(s)}#1`, startedAt: at(s), updatedAt: at(s + 1), exitCode, requests, rateLimited: 0, retries: 0, finished };
}

describe('countJournal and countRuns', () => {
  it('counts rows per run window, packs once, batch rows as no request; lifts only runs without an exit code', async () => {
    const journal = await Journal.open(path.join(dir, 'journal.jsonl'));
    try {
      // Run 1 (starts at 0 s): rows 0-2 alone (row 1 took 3 attempts), rows 3-6 in pack a (2 attempts), rows 7-8 in pack b.
      journal.append(entry(0, 1));
      journal.append(entry(1, 2, { attempts: 3 }));
      journal.append(entry(2, 3));
      for (const row of [3, 4, 5, 6]) journal.append(entry(row, 4, { attempts: 2, pack: { id: 'r1.1', item: `i${row}`, rows: 4 } }));
      for (const row of [7, 8]) journal.append(entry(row, 5, { pack: { id: 'r1.2', item: `i${row}`, rows: 2 } }));
      // Run 2 (starts at 100 s): rows 9-11 answered by the Batch API; row 0 again (superseding run 1's entry), 2 attempts.
      for (const row of [9, 10, 11]) journal.append(entry(row, 101, { tier: 'batch' }));
      journal.append(entry(0, 102, { attempts: 2 }));
      journal.flush();
      const runs = [run(0, null, 0, 0), run(100, 0, 1, 4)];
      const counts = countJournal(journal, runStarts(runs));
      expect(counts.perRun).toEqual([
        { finished: 8, requests: 2 + 2 }, // rows 1-8: rows 1 and 2 alone, packs a and b
        { finished: 4, requests: 1 }, // rows 9-11 (batch) and row 0
      ]);
      expect(counts.batchRows).toBe(3);
      expect(counts.requests).toBe(3 + 1 + 2 + 1 + 2); // rows 1, 2, 0 alone; pack a twice, pack b once
      const counted = countRuns(runs, counts, new Map([[runs[0]!.run, 6]]));
      expect(counted[0]).toMatchObject({ requests: 6, finished: 8, fromJournal: true });
      expect(counted[1]).toBe(runs[1]); // it ended: its summary's figures stand
    } finally {
      await journal.close();
    }
  });

  it('a run whose record already shows more keeps it, unmarked', () => {
    const runs = [run(0, null, 50, 40)];
    expect(countRuns(runs, { requests: 10, batchRows: 0, perRun: [{ finished: 10, requests: 10 }] })[0]).toBe(runs[0]);
  });
});
