/** Matching rows to journal entries by fingerprint (issue 12), and rewriting the journal under new row ids. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowFingerprint } from '../../src/input/row-identity.js';
import { RowMatcher } from '../../src/job/row-matcher.js';
import { Journal } from '../../src/journal/journal.js';
import { rewriteJournal } from '../../src/journal/journal-rewrite.js';
import { entry } from '../journal/entries.js';

const fp = (n: number) => rowFingerprint([`content ${n}`]);

describe('RowMatcher', () => {
  it('gives the k-th row with a fingerprint the k-th entry with it, in row order; every entry at most once (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 80 }), fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 80 }), (old, now) => {
        const matcher = new RowMatcher(old.length);
        old.forEach((content, row) => matcher.add(fp(content), row));
        const got = now.map((content) => matcher.take(fp(content)));
        // The reference: a queue of rows per content.
        const queues = new Map<number, number[]>();
        old.forEach((content, row) => queues.set(content, [...(queues.get(content) ?? []), row]));
        const want = now.map((content) => queues.get(content)?.shift() ?? -1);
        expect(got).toEqual(want);
        expect(matcher.remaining).toBe(old.length - want.filter((r) => r >= 0).length);
      }),
    );
  });

  it('never matches a fingerprint that is not one (hand-edited journals)', () => {
    const matcher = new RowMatcher(2);
    matcher.add('fp0', 0);
    matcher.add('not base64url!!!!!!!!!', 1);
    expect(matcher.take('fp0')).toBe(-1);
    expect(matcher.take('not base64url!!!!!!!!!')).toBe(-1);
    expect(matcher.remaining).toBe(0);
  });
});

describe('rewriteJournal', () => {
  it('moves each latest entry to its new row, byte for byte but its row id; drops superseded and unmapped ones', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-rewrite-'));
    try {
      const file = path.join(dir, 'journal.jsonl');
      const j = await Journal.open(file);
      for (let row = 0; row < 6; row++) j.append(entry(row, { fp: fp(row), label: `answer ${row}` }));
      j.append(entry(2, { fp: fp(2), label: 'answer 2, again', status: 'failed', error: 'x' })); // supersedes row 2
      const before = [0, 1, 2, 3, 4, 5].map((row) => j.get(row));
      const to = Int32Array.from([3, -1, 0, 1, 2]); // row 1 and row 5 leave; the others move
      const k = await rewriteJournal(j, to);
      expect(k.size).toBe(4);
      for (const [old, row] of [[0, 3], [2, 0], [3, 1], [4, 2]] as const) expect(k.get(row)).toEqual({ ...before[old], row });
      expect(k.counts()).toMatchObject({ ok: 3, failed: 1 });
      expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(4);
      expect(fs.readdirSync(dir)).toEqual(['journal.jsonl']);
      await k.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
