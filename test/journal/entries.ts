/** Test helpers: journal entries and temporary directories. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { JournalEntry } from '../../src/journal/journal-entry.js';

/** A realistic entry for `row`; `over` replaces fields. */
export function entry(row: number, over: Partial<JournalEntry> = {}): JournalEntry {
  return {
    row,
    fp: `fp${row.toString(36).padStart(20, 'x')}`,
    status: 'ok',
    label: 'yes',
    raw: 'yes',
    finishReason: 'STOP',
    error: null,
    tokens: { input: 100 + (row % 7), output: 1, thoughts: row % 3 },
    attempts: 1,
    key: 'key-1 …x7Qa',
    time: '2025-06-01T12:00:00.000Z',
    ...over,
  };
}

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix = 'gb-journal-'): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
