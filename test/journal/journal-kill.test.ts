/**
 * A process appending to the journal is killed with SIGKILL at a random moment; reopening must find every row it had
 * appended (each line was handed to the OS before append returned) and nothing torn but possibly the last line.
 * The child runs the built journal (dist/, which `npm test` builds first, as for the CLI tests that spawn).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { repoRoot } from '../support/fixtures.js';
import { tempDir } from './entries.js';

let dir: string;
let remove: () => void;
beforeAll(() => {
  ({ dir, remove } = tempDir('gb-kill-'));
  const builtJournal = pathToFileURL(path.join(repoRoot, 'dist', 'journal', 'journal.js')).href;
  // Appends rows from argv[3] on, printing each row id after append() returns; rows are reclassified now and then.
  fs.writeFileSync(
    path.join(dir, 'child.mjs'),
    `import { Journal } from '${builtJournal}';
const j = await Journal.open(process.argv[2], { fsyncIntervalMs: 50 });
const raw = 'Réponse : oui 😀 '.repeat(20);
for (let row = Number(process.argv[3]); ; row++) {
  j.append({ row, fp: 'fp' + row, status: row % 5 ? 'ok' : 'failed', label: 'oui', raw, finishReason: 'STOP', error: null,
    tokens: { input: 10, output: 1, thoughts: 0 }, attempts: 1, key: 'key-1 …x7Qa', time: new Date().toISOString() });
  if (row % 97 === 0 && row > 0) j.append({ row: row - 50, fp: 'again', status: 'ok', label: 'non', raw, finishReason: 'STOP', error: null,
    tokens: { input: 10, output: 1, thoughts: 0 }, attempts: 2, key: null, time: new Date().toISOString() });
  if (row % 200 === 0) process.stdout.write(row + '\\n');
}
`,
  );
});
afterAll(() => remove());

/** Runs the child until it has reported `atLeast` rows, then SIGKILLs it; resolves with the last row it reported. */
function runAndKill(file: string, from: number, atLeast: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dir, 'child.mjs'), file, String(from)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let reported = -1;
    let text = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      text += chunk;
      const lines = text.split('\n');
      text = lines.pop() ?? '';
      for (const l of lines) reported = Number(l);
      if (reported >= from + atLeast) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(reported) : reject(new Error(`child exited ${signal ?? _code}`))));
  });
}

describe('Journal after SIGKILL', () => {
  it('keeps every appended row across three kills and resumes exactly', async () => {
    const file = path.join(dir, 'journal.jsonl');
    let next = 0;
    for (let round = 0; round < 3; round++) {
      const reported = await runAndKill(file, next, 2000 + round * 1000);
      const j = await Journal.open(file);
      // Every row the child reported (and any it appended after) is there, contiguous from 0.
      const rows = [...j.rows()];
      expect(rows.length).toBeGreaterThan(reported);
      expect(rows[rows.length - 1]).toBe(rows.length - 1);
      if (j.repaired) expect(j.repaired.bytes).toBeGreaterThan(0);
      for (const row of [0, reported, rows.length - 1]) expect(j.get(row)?.row).toBe(row);
      // A reclassified row's latest entry is the one that counts.
      if (rows.length > 200) expect(j.get(97 - 50)?.fp).toBe('again');
      const counts = Object.values(j.counts()).reduce((a, b) => a + b, 0);
      expect(counts).toBe(rows.length);
      next = rows.length;
      await j.close();
    }
  });
});
