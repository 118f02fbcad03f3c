import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GeminiBatchError, InputError } from '../../src/errors.js';
import type { JournalEntry } from '../../src/journal/journal-entry.js';
import { Journal } from '../../src/journal/journal.js';
import { serializeEntry } from '../../src/journal/journal-line.js';
import { entry, tempDir } from './entries.js';

let dir: string;
let remove: () => void;
let file: string;
beforeEach(() => {
  ({ dir, remove } = tempDir());
  file = path.join(dir, 'journal.jsonl');
});
afterEach(() => {
  // Mocks first: a spy on a faked setTimeout restores the fake one, which useRealTimers then replaces.
  vi.restoreAllMocks();
  vi.useRealTimers();
  remove();
});

/** Writes a journal file from entries (plus raw trailing bytes), the way Journal.append writes it. */
function writeJournal(entries: JournalEntry[], tail: Buffer | string = ''): void {
  fs.writeFileSync(file, Buffer.concat([Buffer.from(entries.map(serializeEntry).join(''), 'utf8'), Buffer.from(tail)]));
}

/** The entry with `status` as its first key: valid JSON, in another key order than the journal writes. */
function statusFirst({ status, ...rest }: JournalEntry): Record<string, unknown> {
  return { status, ...rest };
}

function corruptError(fn: () => Promise<unknown>): Promise<InputError> {
  return fn().then(
    () => {
      throw new Error('expected JOURNAL_CORRUPT');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).code).toBe('JOURNAL_CORRUPT');
      expect((error as InputError).exitCode).toBe(2);
      return error as InputError;
    },
  );
}

describe('Journal', () => {
  it('creates the file, appends and reads entries back exactly', async () => {
    const j = await Journal.open(file);
    expect(fs.existsSync(file)).toBe(true);
    expect(j.repaired).toBeNull();
    expect(j.size).toBe(0);
    const odd = entry(3, {
      status: 'invalid_label',
      label: null,
      raw: 'Peut-être — « œuvre » 😀\n"quoted"\\',
      fields: { topic: 'sports', 'a"b': 'x\ny' },
      error: 'answer "Peut-être" is not one of yes, no',
      key: null,
      finishReason: null,
    });
    j.append(entry(0));
    j.append(odd);
    expect(j.has(3)).toBe(true);
    expect(j.has(1)).toBe(false);
    expect(j.has(-1)).toBe(false);
    expect(j.has(10_000_000)).toBe(false);
    expect(j.status(3)).toBe('invalid_label');
    expect(j.status(1)).toBeUndefined();
    expect(j.get(3)).toEqual(odd);
    expect(j.get(0)).toEqual(entry(0));
    expect(j.get(1)).toBeUndefined();
    expect(j.size).toBe(2);
    expect([...j.rows()]).toEqual([0, 3]);
    await j.close();
    await j.close(); // idempotent
    expect(fs.readFileSync(file, 'utf8').split('\n')).toHaveLength(3);
  });

  it('writes each line with row, status, attempts and tokens first', async () => {
    const j = await Journal.open(file);
    j.append(entry(12, { status: 'failed', attempts: 4, tokens: { input: 5, output: 0, thoughts: 2 } }));
    await j.close();
    const line = fs.readFileSync(file, 'utf8');
    expect(line.startsWith('{"row":12,"status":"failed","attempts":4,"tokens":{"input":5,"output":0,"thoughts":2},"fp":"')).toBe(true);
    expect(line.endsWith(',"time":"2025-06-01T12:00:00.000Z"}\n')).toBe(true);
  });

  it('keeps optional fields added beyond the contract', async () => {
    const j = await Journal.open(file);
    const e = { ...entry(1), latencyMs: 812 } as JournalEntry;
    j.append(e);
    await j.close();
    const again = await Journal.open(file);
    expect(again.get(1)).toEqual(e);
    await again.close();
  });

  it('writes a tier other than standard last before the time, and counts tokens by tier', async () => {
    const j = await Journal.open(file);
    j.append(entry(0, { tier: 'flex', tokens: { input: 10, output: 1, thoughts: 0 } }));
    j.append(entry(1, { tier: 'standard', tokens: { input: 7, output: 1, thoughts: 2 } }));
    j.append(entry(2, { tokens: { input: 5, output: 2, thoughts: 0 } }));
    const line = fs.readFileSync(file, 'utf8').split('\n')[0]!;
    expect(line).toMatch(/"key":"key-1 …x7Qa","tier":"flex","time":"2025-06-01T12:00:00.000Z"\}$/);
    expect(fs.readFileSync(file, 'utf8')).not.toContain('"tier":"standard"');
    const expected = {
      standard: { input: 12, output: 3, thoughts: 2, rows: 2 },
      flex: { input: 10, output: 1, thoughts: 0, rows: 1 },
      priority: { input: 0, output: 0, thoughts: 0, rows: 0 },
      batch: { input: 0, output: 0, thoughts: 0, rows: 0 },
    };
    expect(j.tierTotals()).toEqual(expected);
    // A row answered again at another tier moves its tokens there.
    j.append(entry(0, { tier: 'priority', tokens: { input: 11, output: 1, thoughts: 0 } }));
    expect(j.tierTotals().flex.rows).toBe(0);
    expect(j.tierTotals().priority).toEqual({ input: 11, output: 1, thoughts: 0, rows: 1 });
    await j.close();
    const again = await Journal.open(file);
    expect(again.get(0)?.tier).toBe('priority');
    expect(again.tierTotals()).toEqual({ ...expected, flex: expected.priority, priority: { input: 11, output: 1, thoughts: 0, rows: 1 } });
    await again.close();
  });

  it('writes which pack answered a row after the key, before the tier, and reads it back', async () => {
    const j = await Journal.open(file);
    const e = entry(0, { raw: '{"id":"bc","label":"yes"}', pack: { id: 'mx4l3q7m.17', item: 'bc', rows: 20 }, tier: 'flex' });
    j.append(e);
    expect(() => j.append(entry(1, { pack: { id: 'p', item: 'bc', rows: -1 } }))).toThrow(/pack must be/);
    await j.close();
    expect(fs.readFileSync(file, 'utf8')).toMatch(/"key":"key-1 …x7Qa","pack":\{"id":"mx4l3q7m\.17","item":"bc","rows":20\},"tier":"flex","time":/);
    const again = await Journal.open(file);
    expect(again.get(0)).toEqual(e);
    expect(again.tierTotals().flex.rows).toBe(1);
    await again.close();
  });

  it('refuses a tier it does not know', async () => {
    const j = await Journal.open(file);
    expect(() => j.append(entry(0, { tier: 'FLEX' as never }))).toThrow(/tier must be one of standard, flex, priority, batch/);
    await j.close();
  });

  it('lets a later entry of a row replace the earlier one, in counts and totals too', async () => {
    const j = await Journal.open(file);
    j.append(entry(0, { status: 'failed', label: null, error: '503', attempts: 3, tokens: { input: 10, output: 0, thoughts: 0 } }));
    j.append(entry(1, { tokens: { input: 7, output: 1, thoughts: 2 } }));
    j.append(entry(0, { attempts: 4, tokens: { input: 20, output: 1, thoughts: 5 } }));
    expect(j.size).toBe(2);
    expect(j.status(0)).toBe('ok');
    expect(j.get(0)?.attempts).toBe(4);
    expect(j.counts()).toEqual({ ok: 2, failed: 0, blocked: 0, invalid_label: 0, invalid_output: 0, skipped: 0 });
    expect(j.totals()).toEqual({ input: 27, output: 2, thoughts: 7, attempts: 5 });
    await j.close();
    const again = await Journal.open(file);
    expect(again.size).toBe(2);
    expect(again.get(0)?.attempts).toBe(4);
    expect(again.counts().ok).toBe(2);
    expect(again.counts().failed).toBe(0);
    expect(again.totals()).toEqual({ input: 27, output: 2, thoughts: 7, attempts: 5 });
    await again.close();
  });

  it('rebuilds the same index on reopen as it had when appending (property)', async () => {
    const statuses = ['ok', 'failed', 'blocked', 'invalid_label', 'invalid_output', 'skipped'] as const;
    const op = fc.record({
      row: fc.nat({ max: 40 }),
      status: fc.constantFrom(...statuses),
      attempts: fc.nat({ max: 9 }),
      input: fc.nat({ max: 100_000 }),
      thoughts: fc.nat({ max: 3000 }),
      // Raw answers that quote a journal line's own tail must not be read as the entry's tier.
      raw: fc.option(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(',"tier":"flex"', '","tier":"batch","time":"x"}', 'a","tier":"priority"')), { nil: null }),
      tier: fc.constantFrom(undefined, 'standard', 'flex', 'priority', 'batch'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        fs.rmSync(file, { force: true });
        const model = new Map<number, JournalEntry>();
        const j = await Journal.open(file);
        for (const o of ops) {
          const e = entry(o.row, { status: o.status, attempts: o.attempts, raw: o.raw, tokens: { input: o.input, output: 1, thoughts: o.thoughts }, ...(o.tier ? { tier: o.tier } : {}) });
          j.append(e);
          // `standard` is what an entry without a tier means: it is not written.
          const { tier, ...rest } = e;
          model.set(o.row, tier === 'standard' ? rest : e);
        }
        const live = { counts: j.counts(), totals: j.totals(), tiers: j.tierTotals(), rows: [...j.rows()], size: j.size };
        await j.close();
        const again = await Journal.open(file);
        expect({ counts: again.counts(), totals: again.totals(), tiers: again.tierTotals(), rows: [...again.rows()], size: again.size }).toEqual(live);
        expect(again.size).toBe(model.size);
        expect([...again.rows()]).toEqual([...model.keys()].sort((a, b) => a - b));
        const sum = { input: 0, output: 0, thoughts: 0, attempts: 0 };
        const tiers: Record<string, { input: number; output: number; thoughts: number; rows: number }> = {};
        for (const t of ['standard', 'flex', 'priority', 'batch']) tiers[t] = { input: 0, output: 0, thoughts: 0, rows: 0 };
        for (const e of model.values()) {
          expect(again.get(e.row)).toEqual(e);
          sum.input += e.tokens.input;
          sum.output += e.tokens.output;
          sum.thoughts += e.tokens.thoughts;
          sum.attempts += e.attempts;
          const t = tiers[e.tier ?? 'standard']!;
          t.input += e.tokens.input;
          t.output += e.tokens.output;
          t.thoughts += e.tokens.thoughts;
          t.rows++;
          expect(again.status(e.row)).toBe(e.status);
        }
        expect(again.totals()).toEqual(sum);
        expect(again.tierTotals()).toEqual(tiers);
        await again.close();
      }),
      { numRuns: 40 },
    );
  });

  it('counts every status', async () => {
    const j = await Journal.open(file);
    const statuses = ['ok', 'ok', 'failed', 'blocked', 'invalid_label', 'invalid_output', 'skipped', 'skipped', 'skipped'] as const;
    statuses.forEach((status, row) => j.append(entry(row, { status })));
    expect(j.counts()).toEqual({ ok: 2, failed: 1, blocked: 1, invalid_label: 1, invalid_output: 1, skipped: 3 });
    await j.close();
  });

  it('indexes rows far apart and returns them ascending', async () => {
    const j = await Journal.open(file);
    for (const row of [70_000, 5, 1_500_000, 0, 1023, 1024]) j.append(entry(row));
    expect([...j.rows()]).toEqual([0, 5, 1023, 1024, 70_000, 1_500_000]);
    await j.close();
    const again = await Journal.open(file);
    expect([...again.rows()]).toEqual([0, 5, 1023, 1024, 70_000, 1_500_000]);
    expect(again.get(1_500_000)?.row).toBe(1_500_000);
    await again.close();
  });

  it('refuses entries that break the contract, without writing them', async () => {
    const j = await Journal.open(file);
    const bad: Partial<JournalEntry>[] = [
      { row: -1 },
      { row: 1.5 },
      { status: 'pending' as JournalEntry['status'] },
      { status: 'done' as JournalEntry['status'] },
      { attempts: -1 },
      { tokens: { input: 1, output: Number.NaN, thoughts: 0 } },
      { time: 'yesterday' },
      { label: 3 as unknown as string },
      { fields: { a: 1 as unknown as string } },
    ];
    for (const over of bad) {
      let caught: unknown;
      try {
        j.append(entry(1, over));
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(over)).toBeInstanceOf(GeminiBatchError);
      expect((caught as GeminiBatchError).code).toBe('JOURNAL_INVALID_ENTRY');
      expect((caught as GeminiBatchError).exitCode).toBe(4);
    }
    expect(j.size).toBe(0);
    await j.close();
    expect(fs.statSync(file).size).toBe(0);
  });

  it('refuses to be used after close', async () => {
    const j = await Journal.open(file);
    await j.close();
    expect(() => j.append(entry(0))).toThrow(expect.objectContaining({ code: 'JOURNAL_CLOSED' }));
  });

  it('opens 50,000 lines with every row, count and total right', async () => {
    const rows = 50_000;
    // Written 5,000 lines at a time as they are made: 50,000 entries held at once cost more (in garbage collection)
    // than the open.
    let input = 0;
    const fd = fs.openSync(file, 'w');
    for (let from = 0; from < rows; from += 5_000) {
      let text = '';
      for (let row = from; row < from + 5_000; row++) {
        const e = entry(row, { status: row % 10 === 0 ? 'failed' : 'ok', raw: `answer ${row}` });
        input += e.tokens.input;
        text += serializeEntry(e);
      }
      fs.writeSync(fd, text);
    }
    fs.closeSync(fd);
    const t = performance.now();
    const j = await Journal.open(file);
    const ms = performance.now() - t;
    expect(j.size).toBe(rows);
    expect(j.counts().failed).toBe(rows / 10);
    expect(j.totals().attempts).toBe(rows);
    expect(j.totals().input).toBe(input);
    expect(j.get(49_999)?.raw).toBe('answer 49999');
    console.log(`opened ${rows} lines in ${ms.toFixed(0)} ms`);
    await j.close();
  });

  it('reads lines longer than its read buffer', async () => {
    const long = 'é'.repeat(3_000_000); // 6 MB of UTF-8, more than one 4 MiB chunk
    writeJournal([entry(0), entry(1, { raw: long }), entry(2)]);
    const j = await Journal.open(file);
    expect(j.size).toBe(3);
    expect(j.get(1)?.raw).toBe(long);
    expect(j.get(2)).toEqual(entry(2));
    await j.close();
  });
});

describe('Journal repair of a torn last line', () => {
  const last = entry(2, { raw: 'Ça dépend 😀 — œ', label: 'peut-être' });
  const lastBytes = Buffer.from(serializeEntry(last), 'utf8');

  it('drops the last line cut at any byte, including inside a multi-byte character', async () => {
    const good = [entry(0), entry(1)];
    const goodSize = Buffer.byteLength(good.map(serializeEntry).join(''));
    // Every cut point inside the line, and the line whole but without its newline.
    const cuts = Array.from({ length: lastBytes.length - 1 }, (_, i) => i + 1);
    const emoji = lastBytes.indexOf(Buffer.from('😀'));
    expect(cuts).toContain(emoji + 2); // the middle of the 4-byte emoji
    // After the repair and an append, the file holds exactly the two good lines and the appended one.
    const whole = Buffer.concat([Buffer.from(good.map(serializeEntry).join(''), 'utf8'), lastBytes]);
    for (const cut of cuts) {
      writeJournal(good, lastBytes.subarray(0, cut));
      const j = await Journal.open(file);
      expect(j.repaired, `cut ${cut}`).toEqual({ line: 3, bytes: cut });
      expect(j.size).toBe(2);
      expect(fs.statSync(file).size).toBe(goodSize);
      j.append(last);
      await j.close();
      expect(fs.readFileSync(file).equals(whole), `cut ${cut}`).toBe(true);
      if (cut !== emoji + 2) continue;
      // Those bytes open clean (read back once: every cut leaves the same bytes).
      const again = await Journal.open(file);
      expect(again.repaired).toBeNull();
      expect(again.get(2)).toEqual(last);
      expect(again.get(1)).toEqual(entry(1));
      await again.close();
    }
  }, 180_000); // an open, a repair, an append and fsyncs for every byte of the last line: past 60 s at load average 17 on 2 cores

  it('drops a last line that ends with a newline but is not a valid entry', async () => {
    const good = [entry(0), entry(1)];
    for (const tail of [
      '{"row":2,"status":"ok","attempts":1,"tokens":{"input":1,"output":1,"thoughts":0},"fp":"x","label":"a\n',
      'garbage\n',
      '\n',
      `${'\0'.repeat(100)}\n`,
      serializeEntry({ ...last, tokens: { input: 1, output: 1, thoughts: -1 } }),
      `${JSON.stringify(statusFirst(last))}\n`, // valid JSON, but not as the journal writes it
    ]) {
      writeJournal(good, tail);
      const j = await Journal.open(file);
      expect(j.repaired, JSON.stringify(tail)).toEqual({ line: 3, bytes: Buffer.byteLength(tail) });
      expect(j.size).toBe(2);
      await j.close();
    }
  });

  it('drops a NUL-filled tail left by a power failure', async () => {
    writeJournal([entry(0)], Buffer.alloc(4096));
    const j = await Journal.open(file);
    expect(j.repaired).toEqual({ line: 2, bytes: 4096 });
    expect(j.size).toBe(1);
    await j.close();
  });

  it('treats a file holding only a torn line as empty', async () => {
    writeJournal([], lastBytes.subarray(0, 10));
    const j = await Journal.open(file);
    expect(j.repaired).toEqual({ line: 1, bytes: 10 });
    expect(j.size).toBe(0);
    expect(fs.statSync(file).size).toBe(0);
    await j.close();
  });
});

describe('Journal corruption before the last line', () => {
  const damaged: [string, string][] = [
    ['not JSON at all', 'hello world'],
    ['an empty line', ''],
    ['an unknown status', serializeEntry(entry(1)).trim().replace('"status":"ok"', '"status":"done"')],
    ['a line cut in the middle and joined to the next', serializeEntry(entry(1)).slice(0, 60)],
    ['keys in another order', JSON.stringify(statusFirst(entry(1)))],
    ['a Windows line end', `${serializeEntry(entry(1)).trim()}\r`],
  ];
  it.each(damaged)('names the file and line of %s', async (_what, line) => {
    fs.writeFileSync(file, serializeEntry(entry(0)) + line + '\n' + serializeEntry(entry(2)) + serializeEntry(entry(3)));
    const error = await corruptError(() => Journal.open(file));
    expect(error.file).toBe(file);
    expect(error.line).toBe(2);
    expect(error.message.startsWith(`${file}:2:`)).toBe(true);
    expect(error.message).toContain('--restart');
  });

  it('finds the damaged line deep in a large file', async () => {
    // 3,000 lines of about 4.2 KB: the damaged one starts past two 4 MiB read chunks (journal-scan.ts's CHUNK_BYTES).
    const lines: string[] = [];
    for (let row = 0; row < 3_000; row++) lines.push(serializeEntry(entry(row, { raw: 'x'.repeat(4_000) })));
    lines[2_500] = '{"row":2500,"status":"ok"}\n';
    expect(Buffer.byteLength(lines.slice(0, 2_500).join(''))).toBeGreaterThan(2 * 4 * 1024 * 1024);
    fs.writeFileSync(file, lines.join(''));
    const error = await corruptError(() => Journal.open(file));
    expect(error.line).toBe(2_501);
  });
});

describe('Journal fsync pacing', () => {
  it('fdatasyncs appended lines within fsyncIntervalMs, and not when idle', async () => {
    vi.useFakeTimers();
    const sync = vi.spyOn(fs, 'fdatasyncSync');
    const j = await Journal.open(file, { fsyncIntervalMs: 1000 });
    sync.mockClear();
    for (let row = 0; row < 100; row++) j.append(entry(row));
    expect(sync).not.toHaveBeenCalled();
    // The lines are already in the file (written to the OS) before any fsync.
    expect(fs.readFileSync(file, 'utf8').split('\n')).toHaveLength(101);
    vi.advanceTimersByTime(999);
    expect(sync).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(sync).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000); // idle: nothing to sync
    expect(sync).toHaveBeenCalledTimes(1);
    j.append(entry(100));
    vi.advanceTimersByTime(500);
    j.append(entry(101));
    vi.advanceTimersByTime(499);
    expect(sync).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(sync).toHaveBeenCalledTimes(2);
    j.append(entry(102));
    j.flush();
    expect(sync).toHaveBeenCalledTimes(3);
    vi.advanceTimersByTime(5000);
    expect(sync).toHaveBeenCalledTimes(3);
    j.append(entry(103));
    await j.close();
    expect(sync).toHaveBeenCalledTimes(4);
  });

  it('syncs every append when fsyncIntervalMs is 0', async () => {
    const sync = vi.spyOn(fs, 'fdatasyncSync');
    const j = await Journal.open(file, { fsyncIntervalMs: 0 });
    sync.mockClear();
    j.append(entry(0));
    j.append(entry(1));
    expect(sync).toHaveBeenCalledTimes(2);
    await j.close();
  });

  it('keeps the error of a failed timer fdatasync and fails every later append, flush and close with it (issue 11 item 9)', async () => {
    vi.useFakeTimers();
    const j = await Journal.open(file, { fsyncIntervalMs: 1000 });
    j.append(entry(0));
    const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    // The kernel reports a failed writeback once; the next fdatasync succeeds although the pages are gone.
    vi.spyOn(fs, 'fdatasyncSync').mockImplementationOnce(() => {
      throw eio;
    });
    vi.advanceTimersByTime(1000);
    const failed = { code: 'JOURNAL_SYNC_FAILED', exitCode: 3, cause: eio };
    expect(() => j.append(entry(1))).toThrow(expect.objectContaining(failed));
    expect(() => j.flush()).toThrow(expect.objectContaining(failed));
    await expect(j.close()).rejects.toMatchObject(failed);
    // Nothing was appended after the failure.
    expect(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('does not keep the process alive with its timer', async () => {
    vi.useFakeTimers();
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const j = await Journal.open(file);
    j.append(entry(0));
    const timer = spy.mock.results[0]?.value as { hasRef?: () => boolean } | undefined;
    expect(timer?.hasRef?.()).toBe(false);
    await j.close();
  });
});

describe('Journal.open errors', () => {
  it('reports a journal path that is a directory', async () => {
    fs.mkdirSync(file);
    await expect(Journal.open(file)).rejects.toMatchObject({ code: 'JOURNAL_UNREADABLE', exitCode: 2 });
  });
});

describe('Journal and symbolic links (issue 11 item 8)', () => {
  it('refuses a journal planted as a symbolic link, and appends nothing through it', async () => {
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    fs.symlinkSync(victim, file);
    await expect(Journal.open(file)).rejects.toMatchObject({ code: 'JOURNAL_UNREADABLE', exitCode: 2, message: expect.stringContaining('symbolic link') });
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
  });
});
