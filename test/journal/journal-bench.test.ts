/**
 * Figures for the report, not assertions: run with
 * `GEMINI_BATCH_BENCH=1 npx vitest run test/journal/journal-bench.test.ts`.
 * Prints the append rate and the time and memory to open a 900,000-line journal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { entry, tempDir } from './entries.js';

const ROWS = Number(process.env.GEMINI_BATCH_BENCH_ROWS ?? 900_000);

describe.skipIf(!process.env.GEMINI_BATCH_BENCH)('journal figures', () => {
  it(`appends and reopens ${ROWS.toLocaleString('en-US')} rows`, async () => {
    const { dir, remove } = tempDir();
    try {
      const file = path.join(dir, 'journal.jsonl');
      const journal = await Journal.open(file);
      const raw = 'The activity belongs to the food supply chain: yes.';
      let t = performance.now();
      for (let row = 0; row < ROWS; row++) journal.append(entry(row, { raw, label: row % 2 ? 'yes' : 'no' }));
      const appendMs = performance.now() - t;
      await journal.close();
      const bytes = fs.statSync(file).size;
      globalThis.gc?.();
      const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
      t = performance.now();
      const reopened = await Journal.open(file);
      const openMs = performance.now() - t;
      const heapAfter = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
      t = performance.now();
      let parsed = 0;
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) if (line) parsed += JSON.parse(line).row >= 0 ? 1 : 0;
      const fullParseMs = performance.now() - t;
      expect(reopened.size).toBe(ROWS);
      expect(parsed).toBe(ROWS);
      await reopened.close();
      console.log(
        [
          `rows ${ROWS}, file ${(bytes / 1e6).toFixed(1)} MB (${Math.round(bytes / ROWS)} B/line)`,
          `append: ${(appendMs / 1000).toFixed(2)} s = ${Math.round(ROWS / (appendMs / 1000)).toLocaleString('en-US')} appends/s`,
          `open: ${openMs.toFixed(0)} ms, heap+buffers grew ${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB`,
          `(for comparison: readFileSync + JSON.parse of every line: ${fullParseMs.toFixed(0)} ms)`,
        ].join('\n'),
      );
    } finally {
      remove();
    }
  });
});
