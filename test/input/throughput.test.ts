/**
 * Opt-in benchmark of records(): run with
 *   GEMINI_BATCH_BENCH=1 npx vitest run test/input/throughput.test.ts
 * It writes a 1,000,000-record CSV of short records to a temporary directory, streams it through records(), and
 * prints records/s and the largest heap seen. The target is >= 150,000 records/s on the 2-core dev machine; the
 * test asserts only that every record arrives, in order, and that the heap stays far below the file's size
 * (records() must stream, not hold the file).
 */
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, test } from 'vitest';
import { openInput } from '../../src/input/open-input.js';
import { scratchDir } from './helpers.js';

const RECORDS = 1_000_000;

test.runIf(process.env.GEMINI_BATCH_BENCH === '1')('records() streams 1,000,000 short records', async () => {
  const scratch = await scratchDir();
  try {
    const path = `${scratch.dir}/big.csv`;
    const out = createWriteStream(path);
    out.write('id,name,label,score\n');
    let chunk = '';
    for (let i = 0; i < RECORDS; i += 1) {
      chunk += `${i},item ${i % 977},"yes, maybe",${(i % 100) / 10}\n`;
      if (chunk.length > 1_000_000) {
        if (!out.write(chunk)) await once(out, 'drain');
        chunk = '';
      }
    }
    out.end(chunk);
    await once(out, 'finish');
    const size = (await stat(path)).size;

    const source = await openInput(path, {});
    // Pass 1: speed.
    let count = 0;
    const started = performance.now();
    for await (const record of source.records()) {
      if (record.index !== count) throw new Error(`record ${count} came as ${record.index}`);
      count += 1;
    }
    const seconds = (performance.now() - started) / 1000;
    expect(count).toBe(RECORDS);

    // Pass 2: memory, with a full GC before each sample so that only live objects count.
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    let maxGrowth = 0;
    let seen = 0;
    for await (const record of source.records()) {
      seen = record.index + 1;
      if (seen % 100_000 === 0) {
        gc();
        maxGrowth = Math.max(maxGrowth, process.memoryUsage().heapUsed - heapBefore);
      }
    }
    expect(seen).toBe(RECORDS);
    console.log(
      `records(): ${count} records of a ${(size / 1e6).toFixed(1)} MB file in ${seconds.toFixed(2)} s = ` +
        `${Math.round(count / seconds)} records/s; live heap grew by at most ${(maxGrowth / 1e6).toFixed(1)} MB`,
    );
    expect(maxGrowth).toBeLessThan(size / 4);
  } finally {
    await scratch.cleanup();
  }
});
