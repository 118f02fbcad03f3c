/**
 * The batch log: records survive a reopen in order, a torn last line (a kill mid-write) is cut away, a damaged line
 * elsewhere stops the job naming the line, and the replayed book knows which rows are held by unfinished chunks and
 * which wait for a later batch or the online path.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchBook, stageOf } from '../../src/batch/batch-book.js';
import { BatchLog } from '../../src/batch/batch-log.js';
import { rangeSize, rowsOf, toRanges, type BatchRecord, type ChunkRecord } from '../../src/batch/batch-records.js';
import { InputError } from '../../src/errors.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'batch-log-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const at = '2026-12-01T00:00:00.000Z';
const chunk = (id: string, rows: number[], over: Partial<ChunkRecord> = {}): ChunkRecord => ({
  t: 'chunk',
  id,
  file: `batches/${id}.jsonl`,
  sha256: 'ab'.repeat(32),
  bytes: 100,
  lines: rows.length,
  tokens: 10 * rows.length,
  rows: toRanges(rows),
  again: [],
  journalEnd: 0,
  carry: [],
  at,
  ...over,
});
const tokens = { input: 5, output: 1, thoughts: 0 };

describe('row ranges', () => {
  it('round-trip ascending rows through compact ranges', () => {
    const rows = [0, 1, 2, 5, 7, 8, 100];
    expect(toRanges(rows)).toEqual([[0, 2], [5, 5], [7, 8], [100, 100]]);
    expect([...rowsOf(toRanges(rows))]).toEqual(rows);
    expect(rangeSize(toRanges(rows))).toBe(rows.length);
  });
});

describe('BatchLog', () => {
  it('keeps records in order across a reopen', () => {
    const file = path.join(dir, 'batches.jsonl');
    const records: BatchRecord[] = [
      { t: 'job', tag: 'abcdef012345', at },
      chunk('b0001', [0, 1, 2]),
      { t: 'upload', id: 'b0001', file: 'files/x', at },
      { t: 'intent', id: 'b0001', displayName: 'gemini-batch abcdef012345 b0001', key: 'key-1 …abcd', at },
      { t: 'created', id: 'b0001', name: 'batches/1', at },
    ];
    const log = BatchLog.open(file);
    for (const r of records) log.append(r);
    log.close();
    expect(BatchLog.read(file)).toEqual(records);
    const again = BatchLog.open(file);
    expect(again.records).toEqual(records);
    again.close();
  });

  it('cuts a torn last line away on open, and read ignores it', () => {
    const file = path.join(dir, 'batches.jsonl');
    const log = BatchLog.open(file);
    log.append({ t: 'job', tag: 'abcdef012345', at });
    log.close();
    const whole = fs.readFileSync(file, 'utf8');
    fs.appendFileSync(file, '{"t":"chunk","id":"b00');
    expect(BatchLog.read(file)).toHaveLength(1);
    BatchLog.open(file).close();
    expect(fs.readFileSync(file, 'utf8')).toBe(whole);
  });

  it('a damaged line before the last stops with its line number', () => {
    const file = path.join(dir, 'batches.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ t: 'job', tag: 'a', at })}\nnot json\n${JSON.stringify({ t: 'job', tag: 'b', at })}\n`);
    expect(() => BatchLog.read(file)).toThrow(InputError);
    expect(() => BatchLog.read(file)).toThrow(/batches\.jsonl:2: /);
  });

  it('a missing log reads as no records', () => {
    expect(BatchLog.read(path.join(dir, 'none.jsonl'))).toEqual([]);
  });
});

describe('BatchBook', () => {
  it('follows each chunk through its stages and holds its rows until it ends', () => {
    const book = new BatchBook([{ t: 'job', tag: 't1', at }, chunk('b0001', [0, 1, 2]), chunk('b0002', [3, 4])]);
    expect(book.tag).toBe('t1');
    expect(book.nextId()).toBe('b0003');
    expect([0, 1, 2, 3, 4].every((r) => book.isHeld(r))).toBe(true);
    expect(book.isHeld(5)).toBe(false);
    expect(book.heldTokens()).toBe(50);
    const c = book.chunks.get('b0001');
    if (!c) throw new Error('no chunk');
    expect(stageOf(c)).toBe('written');
    book.apply({ t: 'upload', id: 'b0001', file: 'files/x', at });
    expect(stageOf(c)).toBe('uploaded');
    book.apply({ t: 'intent', id: 'b0001', displayName: 'd', key: 'k', at });
    expect(stageOf(c)).toBe('intent');
    book.apply({ t: 'created', id: 'b0001', name: 'batches/1', at });
    expect(stageOf(c)).toBe('created');
    book.apply({ t: 'end', id: 'b0001', how: 'collected', journaled: 1, ok: 1, requeue: [{ row: 1, attempts: 1, tokens }], online: [{ row: 2, attempts: 1, tokens }], at });
    expect(book.isHeld(0)).toBe(false);
    expect(book.open().map((o) => o.chunk.id)).toEqual(['b0002']);
    expect([...book.waiting.keys()]).toEqual([1]);
    expect([...book.online.keys()]).toEqual([2]);
    expect(book.heldRows).toBe(2);
    // A later chunk takes the waiting row with it.
    book.apply(chunk('b0003', [1], { carry: [{ row: 1, attempts: 1, tokens }] }));
    expect(book.waiting.size).toBe(0);
    expect(book.isHeld(1)).toBe(true);
  });

  it('replaying the same records gives the same book (a resumed run sees what the killed one did)', () => {
    const records: BatchRecord[] = [
      chunk('b0001', [0, 1]),
      { t: 'end', id: 'b0001', how: 'dropped', journaled: 0, ok: 0, requeue: [{ row: 0, attempts: 1, tokens }, { row: 1, attempts: 1, tokens }], online: [], at },
      chunk('b0002', [0]),
    ];
    const a = new BatchBook(records);
    const b = new BatchBook();
    for (const r of records) b.apply(r);
    expect([...a.waiting.keys()]).toEqual([1]);
    expect([...b.waiting.keys()]).toEqual([1]);
    expect(a.isHeld(0) && b.isHeld(0)).toBe(true);
  });
});
