/**
 * The batch runner against an in-memory batch service (./fake-batch-service.ts): every row journaled exactly once,
 * joined by key whatever the order; per-line errors and answer retries go into a later batch with their history; a
 * refused create never fails a row; a create whose answer was lost is found again, never made twice; FAILED and EXPIRED
 * batches give their rows to a later batch or to the online path; --batch-deadline cancels a PENDING batch; a runner
 * stopped at any step and started again from the log finishes the job with no second batch for the same rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerJudge } from '../../src/answers/judge-answer.js';
import { BatchBook } from '../../src/batch/batch-book.js';
import { BatchLog } from '../../src/batch/batch-log.js';
import { BatchRunner, type BatchRunnerOptions } from '../../src/batch/batch-runner.js';
import type { ChunkLine } from '../../src/batch/chunk-writer.js';
import { parseResultKey, resultKey } from '../../src/batch/result-key.js';
import { Journal } from '../../src/journal/journal.js';
import type { JournalEntry } from '../../src/journal/journal-entry.js';
import type { ModelRequest } from '../../src/providers/contract.js';
import { tempDir } from '../journal/entries.js';
import { answerOf, FakeBatchService, yes } from './fake-batch-service.js';

let tmp: { dir: string; remove: () => void };
let journal: Journal;
beforeEach(async () => {
  tmp = tempDir('gb-batch-runner-');
  journal = await Journal.open(path.join(tmp.dir, 'journal.jsonl'), { fsyncIntervalMs: 0 });
});
afterEach(async () => {
  await journal.close();
  tmp.remove();
});

const ROWS = 25;
const fp = (row: number) => `fp${String(row).padStart(20, '0')}`;
const request = (row: number, moreRoom: boolean): ModelRequest => ({ model: 'm', prompt: `row ${row}`, output: { kind: 'labels', labels: ['yes', 'no'] }, reasoning: 'least', moreRoom });

interface Harness {
  runner: BatchRunner;
  book: BatchBook;
  log: BatchLog;
  appended: JournalEntry[];
  notices: string[];
  stop: AbortController;
}

function harness(service: FakeBatchService, over: Partial<BatchRunnerOptions> = {}, rows = ROWS): Harness {
  const log = BatchLog.open(path.join(tmp.dir, 'batches.jsonl'));
  const book = new BatchBook(log.records);
  const appended: JournalEntry[] = [];
  const notices: string[] = [];
  const stop = new AbortController();
  async function* lines(select: (row: number) => boolean): AsyncGenerator<ChunkLine> {
    for (let row = 0; row < rows; row++) {
      if (journal.has(row) || !select(row)) continue;
      const carry = book.waiting.get(row);
      yield { row, text: service.requestLine(resultKey(row, fp(row)), request(row, carry?.moreOutput === true)), tokens: 10, hadEntry: false, carry };
    }
  }
  const runner = new BatchRunner({
    book,
    log,
    jobDir: tmp.dir,
    credentials: [{ alias: 'key-1 …abcd', project: 'p1', secret: 'k1' }],
    service: () => service,
    model: 'gemini-2.5-flash',
    journal: () => journal,
    lines,
    judge: answerJudge({ kind: 'labels', labels: ['yes', 'no'] }),
    finish: (entry) => {
      journal.append(entry);
      appended.push(entry);
    },
    maxAttempts: 8,
    batchSize: 10,
    queueTokens: 1_000_000,
    maxOpen: 100,
    timing: { firstPollMs: 1, pollCapMs: 3, pollGrowth: 1.5, createBackoffMs: 5, createBackoffMaxMs: 20, retryMs: 1, retryMaxMs: 5, outageAfter: 5 },
    deadlineMs: undefined,
    fallbackOnline: false,
    notice: (_key, text) => notices.push(text),
    signal: stop.signal,
    ...over,
  });
  return { runner, book, log, appended, notices, stop };
}

/** Every row has exactly one entry and none was journaled twice. */
function expectEachRowOnce(appended: JournalEntry[], rows = ROWS): void {
  expect(appended.map((e) => e.row).sort((a, b) => a - b)).toEqual(Array.from({ length: rows }, (_, i) => i));
  expect(journal.size).toBe(rows);
}

describe('BatchRunner', () => {
  it('puts the rows into batches of --batch-size, journals each row once at tier batch, with our copies and their sha256', async () => {
    const service = new FakeBatchService();
    const h = harness(service);
    expect(await h.runner.run()).toEqual({ kind: 'done' });
    expectEachRowOnce(h.appended);
    expect(service.batches.map((b) => b.keys.length)).toEqual([10, 10, 5]);
    expect(h.appended.every((e) => e.status === 'ok' && e.tier === 'batch' && e.attempts === 1 && e.fp === fp(e.row) && e.key === 'key-1 …abcd')).toBe(true);
    const chunks = [...h.book.chunks.values()];
    expect(chunks.every((c) => c.end?.how === 'collected')).toBe(true);
    for (const c of chunks) expect(fs.readFileSync(path.join(tmp.dir, c.chunk.file), 'utf8')).toBe(service.uploads[Number(c.chunk.id.slice(1)) - 1]);
    h.log.close();
  });

  it('accepts inline results as well as a responses file', async () => {
    const service = new FakeBatchService({ inline: true });
    const h = harness(service);
    expect(await h.runner.run()).toEqual({ kind: 'done' });
    expectEachRowOnce(h.appended);
    h.log.close();
  });

  it('per-line errors: code 13 goes into a later batch (attempts counted), code 3 fails the row; blocked lines are blocked', async () => {
    const service = new FakeBatchService({
      answer: (key, attempt) => {
        const row = parseResultKey(key)?.row ?? -1;
        if (row % 5 === 1 && attempt === 1) return { kind: 'error', key, code: 13, status: undefined, message: 'An internal error has occurred.' };
        if (row === 7) return { kind: 'error', key, code: 3, status: 'INVALID_ARGUMENT', message: 'bad request' };
        if (row === 9) return { kind: 'answer', key, answer: answerOf(undefined, { blocked: 'PROHIBITED_CONTENT', finish: undefined, finishDetail: undefined }) };
        return yes(key);
      },
    });
    const h = harness(service);
    expect(await h.runner.run()).toEqual({ kind: 'done' });
    expectEachRowOnce(h.appended);
    const byRow = new Map(h.appended.map((e) => [e.row, e]));
    expect(byRow.get(7)).toMatchObject({ status: 'failed', error: 'batch line error 3 INVALID_ARGUMENT: bad request', attempts: 1 });
    expect(byRow.get(9)).toMatchObject({ status: 'blocked', error: 'prompt blocked: blockReason PROHIBITED_CONTENT' });
    for (const row of [1, 6, 11, 16, 21]) {
      expect(byRow.get(row)).toMatchObject({ status: 'ok', attempts: 2 });
      expect(service.batchesWith(resultKey(row, fp(row)))).toHaveLength(2);
    }
    h.log.close();
  });

  it('an answer the judge sends again goes into a later batch with more room, once; then the fallback stands', async () => {
    const service = new FakeBatchService({
      answer: (key, attempt) => {
        const row = parseResultKey(key)?.row ?? -1;
        if (row === 3) return { kind: 'answer', key, answer: answerOf(undefined, { finish: 'length', finishDetail: 'MAX_TOKENS', usage: { inputTokens: 10, outputTokens: 0, reasoningTokens: 500 } }) };
        if (row === 4 && attempt === 1) return { kind: 'answer', key, answer: answerOf('maybe') };
        return yes(key);
      },
    });
    const h = harness(service);
    expect(await h.runner.run()).toEqual({ kind: 'done' });
    expectEachRowOnce(h.appended);
    const byRow = new Map(h.appended.map((e) => [e.row, e]));
    expect(byRow.get(3)).toMatchObject({ status: 'failed', attempts: 2, tokens: { input: 20, output: 0, thoughts: 1000 } });
    expect(byRow.get(4)).toMatchObject({ status: 'ok', label: 'yes', attempts: 2 });
    // The second request of row 3 asked for more room.
    const second = service.uploads.map((u) => u.split('\n').find((l) => l.includes(resultKey(3, fp(3))))).filter(Boolean);
    expect(second.map((l) => (JSON.parse(l as string) as { request: { moreRoom: boolean } }).request.moreRoom)).toEqual([false, true]);
    h.log.close();
  });

  it('a create refused with 429 waits and tries again; no row fails for it', async () => {
    const service = new FakeBatchService({ refuseCreates: 3 });
    const h = harness(service);
    expect(await h.runner.run()).toEqual({ kind: 'done' });
    expectEachRowOnce(h.appended);
    expect(h.appended.every((e) => e.status === 'ok')).toBe(true);
    expect(service.batches).toHaveLength(3);
    expect(h.notices.some((n) => n.includes('refused to create') && n.includes('no row fails'))).toBe(true);
    h.log.close();
  });

  it('a create made but answered with a connection failure is found by its display name, not made again', async () => {
    const service = new FakeBatchService({ loseCreateAnswers: 2 });
    const h = harness(service);
    expect(await h.runner.run()).toEqual({ kind: 'done' });
    expectEachRowOnce(h.appended);
    expect(service.batches).toHaveLength(3);
    expect(new Set(service.batches.map((b) => b.displayName)).size).toBe(3);
    expect([...h.book.chunks.values()].filter((c) => c.created?.found)).toHaveLength(2);
    h.log.close();
  });

  it('FAILED and EXPIRED batches give their rows to a later batch; with --batch-fallback online, to the online path', async () => {
    const ends = (n: number) => (n === 1 ? 'failed' : n === 2 ? 'expired' : 'succeeded');
    const service = new FakeBatchService({ endOf: ends });
    const h = harness(service);
    expect(await h.runner.run()).toEqual({ kind: 'done' });
    expectEachRowOnce(h.appended);
    expect(h.appended.filter((e) => e.row < 20).every((e) => e.attempts === 2)).toBe(true);
    h.log.close();

    tmp.remove();
    tmp = tempDir('gb-batch-runner-');
    await journal.close();
    journal = await Journal.open(path.join(tmp.dir, 'journal.jsonl'), { fsyncIntervalMs: 0 });
    const online = harness(new FakeBatchService({ endOf: ends }), { fallbackOnline: true });
    expect(await online.runner.run()).toEqual({ kind: 'done' });
    expect(online.appended.map((e) => e.row).sort((a, b) => a - b)).toEqual([20, 21, 22, 23, 24]);
    expect([...online.book.online.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect([...online.book.online.values()].every((r) => r.attempts === 1)).toBe(true);
    online.log.close();
  });

  it('--batch-deadline cancels a batch still PENDING and sends its rows online', async () => {
    // Batch 1 stays PENDING and its createTime is an hour old, so its first poll is past a one-minute deadline; the
    // others succeed within a few polls, which would take a minute only on a machine stalled that long (with a 60 ms
    // deadline, a loaded machine let batch 2 pass it while still PENDING: 4 failures in 7 runs).
    const service = new FakeBatchService({ endOf: (n) => (n === 1 ? 'pending' : 'succeeded'), createdAgoMsOf: (n) => (n === 1 ? 3_600_000 : 0) });
    const h = harness(service, { deadlineMs: 60_000 });
    expect(await h.runner.run()).toEqual({ kind: 'done' });
    expect(service.cancels).toEqual(['batches/1']);
    expect([...h.book.online.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(h.appended).toHaveLength(15);
    h.log.close();
  });

  it('ephemeral (--simulate): the uploads and batches of an earlier run are gone; their rows go into new batches, no old name polled, no attempt counted', async () => {
    const first = new FakeBatchService({ endOf: () => 'pending' });
    const h1 = harness(first, { ephemeral: true });
    // Stop once b0001 and b0002 are created and b0003 uploaded.
    const append = h1.log.append.bind(h1.log);
    h1.log.append = (record) => {
      append(record);
      if (record.t === 'upload' && record.id === 'b0003') h1.stop.abort();
    };
    expect(await h1.runner.run()).toEqual({ kind: 'interrupted' });
    h1.log.close();
    expect(first.batches.map((b) => b.name)).toEqual(['batches/1', 'batches/2']);

    // A new service, as the new simulator of a resumed --simulate run: its batches/1 is not the first run's.
    const second = new FakeBatchService();
    const polled: string[] = [];
    const get = second.get.bind(second);
    second.get = (name) => {
      polled.push(name);
      return get(name);
    };
    const h2 = harness(second, { ephemeral: true });
    expect(await h2.runner.run()).toEqual({ kind: 'done' });
    expectEachRowOnce(h2.appended);
    expect(h2.appended.every((e) => e.status === 'ok' && e.attempts === 1)).toBe(true);
    const old = ['b0001', 'b0002', 'b0003'].map((id) => h2.book.chunks.get(id)?.end);
    expect(old.map((e) => e?.how)).toEqual(['dropped', 'dropped', 'dropped']);
    expect(old.map((e) => e?.reason)).toEqual(Array(3).fill('the simulator of the run that made it has ended'));
    expect(h2.notices).toContain('3 batches of an earlier run ended with its simulator (--simulate): their rows go into new batches');
    // Each row went into exactly one batch of the new service, and each name polled is one the new service made.
    const keys = second.batches.flatMap((b) => b.keys);
    expect(keys).toHaveLength(ROWS);
    expect(new Set(keys).size).toBe(ROWS);
    expect(polled.length).toBeGreaterThan(0);
    expect(polled.every((name) => second.batches.some((b) => b.name === name && b.keys.length > 0))).toBe(true);
    expect(second.batches.every((b) => !b.displayName.endsWith('b0001') && !b.displayName.endsWith('b0002'))).toBe(true);
    h2.log.close();
  });

  it('stopped after each record and started again from the log, the job ends with each row once and one batch per chunk', async () => {
    const service = new FakeBatchService({
      answer: (key, attempt) => ((parseResultKey(key)?.row ?? 0) % 4 === 0 && attempt === 1 ? { kind: 'error', key, code: 13, status: undefined, message: 'internal' } : yes(key)),
      loseCreateAnswers: 1,
    });
    const all: JournalEntry[] = [];
    let runs = 0;
    for (;;) {
      runs++;
      const h = harness(service);
      // Stop the run right after its next log record: the next run starts from what is on disk.
      const append = h.log.append.bind(h.log);
      h.log.append = (record) => {
        append(record);
        h.stop.abort();
      };
      const end = await h.runner.run();
      all.push(...h.appended);
      h.log.close();
      if (end.kind === 'done') break;
      expect(end.kind).toBe('interrupted');
      expect(runs).toBeLessThan(500);
    }
    expectEachRowOnce(all);
    expect(runs).toBeGreaterThan(10);
    // Every batch the service saw holds rows no other batch held at the same attempt: no second batch for the same rows.
    const perChunk = new Map<string, number>();
    for (const b of service.batches) perChunk.set(b.displayName, (perChunk.get(b.displayName) ?? 0) + 1);
    expect([...perChunk.values()].every((n) => n === 1)).toBe(true);
  });
});
