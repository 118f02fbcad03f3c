/**
 * Writing a chunk: lines are taken until the next would pass a bound (rows, bytes, tokens), the one that did not fit is
 * left for the next chunk, the first line always goes, the file is exactly the lines with their sha256, and keys join
 * rows only by row and fingerprint.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileSha256, writeChunk, type ChunkLine } from '../../src/batch/chunk-writer.js';
import { Peekable } from '../../src/batch/peekable.js';
import { parseResultKey, resultKey } from '../../src/batch/result-key.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chunk-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function* linesOf(specs: Array<{ bytes: number; tokens: number }>): AsyncGenerator<ChunkLine> {
  let row = 0;
  for (const s of specs) {
    const key = `r${row}`;
    const pad = Math.max(0, s.bytes - 1 - JSON.stringify({ key, pad: '' }).length);
    yield { row, text: JSON.stringify({ key, pad: 'x'.repeat(pad) }), tokens: s.tokens, hadEntry: row % 3 === 0, carry: undefined };
    row++;
  }
}

describe('writeChunk', () => {
  it('splits any line sequence into chunks within every bound, losing and repeating no line', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ bytes: fc.integer({ min: 20, max: 120 }), tokens: fc.integer({ min: 1, max: 50 }) }), { minLength: 1, maxLength: 40 }),
        fc.record({ maxRows: fc.integer({ min: 1, max: 10 }), maxBytes: fc.integer({ min: 120, max: 600 }), maxTokens: fc.integer({ min: 1, max: 200 }) }),
        async (specs, bounds) => {
          const source = new Peekable(linesOf(specs));
          const seen: number[] = [];
          let n = 0;
          for (;;) {
            const target = path.join(dir, `c${n++}.jsonl`);
            const written = await writeChunk(target, source, bounds);
            if (!written) break;
            const text = fs.readFileSync(target);
            expect(written.bytes).toBe(text.length);
            expect(written.sha256).toBe(createHash('sha256').update(text).digest('hex'));
            expect(await fileSha256(target)).toBe(written.sha256);
            const lines = text.toString('utf8').split('\n').slice(0, -1);
            expect(lines.map((l) => Number((JSON.parse(l) as { key: string }).key.slice(1)))).toEqual(written.rows);
            expect(written.again).toEqual(written.rows.filter((r) => r % 3 === 0));
            if (written.lines > 1) {
              expect(written.lines).toBeLessThanOrEqual(bounds.maxRows);
              expect(written.bytes).toBeLessThanOrEqual(bounds.maxBytes);
              expect(written.tokens).toBeLessThanOrEqual(bounds.maxTokens);
            }
            seen.push(...written.rows);
          }
          expect(seen).toEqual(specs.map((_, i) => i));
          for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('writes nothing for an empty source and leaves no temporary file behind', async () => {
    expect(await writeChunk(path.join(dir, 'x.jsonl'), new Peekable(linesOf([])), { maxRows: 5, maxBytes: 100, maxTokens: 5 })).toBeUndefined();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('result keys', () => {
  it('carry the row and the fingerprint, and refuse anything else', () => {
    expect(parseResultKey(resultKey(1234, 'AbC-_09xyzAbC-_09xyzAb'))).toEqual({ row: 1234, fingerprint: 'AbC-_09xyzAbC-_09xyzAb' });
    for (const bad of [undefined, '', 'request-1', 'r-1:abc', 'r1:', 'r1:a b', '12:abc']) expect(parseResultKey(bad)).toBeUndefined();
  });
});
