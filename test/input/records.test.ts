/**
 * Record structure: column-count errors naming the right line, relax mode, trailing empty fields, blank lines,
 * malformed quoting, header-only files, and line numbers that survive any chunking of the file.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import { streamCsvRecords, type RawRecord } from '../../src/input/csv-records.js';
import { openInput } from '../../src/input/open-input.js';
import { fixture, inputErrorOf, readAll, scratchDir } from './helpers.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => {
  await scratch.cleanup();
});

// Line 1 header; lines 2–3 a record with LF inside a cell; lines 4–6 one with CRLF inside a cell; line 7 short.
const SHORT_ON_LINE_7 = 'id,text,n\r\n1,"two\nlines",a\r\n2,"three\r\nline\r\ncell",b\r\n3,x\r\n4,y,z\r\n';

describe('column count', () => {
  test('a short record is INPUT_COLUMN_COUNT naming the line where it starts, after multi-line records', async () => {
    const source = await openInput(await scratch.file('short.csv', SHORT_ON_LINE_7), {});
    const error = await inputErrorOf(readAll(source));
    expect(error.code).toBe('INPUT_COLUMN_COUNT');
    expect(error.line).toBe(7);
    expect(error.file).toContain('short.csv');
    expect(error.message).toMatch(/short\.csv:7: .*2 fields.*header \(line 1\) has 3/);
    expect(error.exitCode).toBe(2);
  });

  test('records before the bad one are delivered first', async () => {
    const source = await openInput(await scratch.file('short2.csv', SHORT_ON_LINE_7), {});
    const seen: number[] = [];
    await inputErrorOf(
      (async () => {
        for await (const record of source.records()) seen.push(record.line);
      })(),
    );
    expect(seen).toEqual([2, 4]);
  });

  test('a record with a non-empty extra field is an error; extra fields that are all empty are dropped', async () => {
    const path = await scratch.file('extra.csv', 'a,b\n1,2,,\n3,4,\n5,6,x\n');
    const error = await inputErrorOf(readAll(await openInput(path, {})));
    expect(error).toMatchObject({ code: 'INPUT_COLUMN_COUNT', line: 4 });
    const ok = await readAll(await openInput(await scratch.file('extra-ok.csv', 'a,b\n1,2,,\n3,4,\n'), {}));
    expect(ok.map((r) => r.cells)).toEqual([
      ['1', '2'],
      ['3', '4'],
    ]);
  });

  test('messages count in the singular for one: "has 1 field", "the extra column is named"', async () => {
    const error = await inputErrorOf(readAll(await openInput(await scratch.file('one-field.csv', 'a;b;c\n1;2;3\nonly\n'), {})));
    expect(error.message).toContain('has 1 field, but the header (line 1) has 3');
    const two = await inputErrorOf(readAll(await openInput(await scratch.file('two-fields.csv', 'a;b;c\n1;2\n'), {})));
    expect(two.message).toContain('has 2 fields, but');
    const relaxed = await openInput(await scratch.file('one-extra.csv', 'a,b\n1,2,3\n'), { relaxColumnCount: true });
    expect(relaxed.headerNotes.join('\n')).toContain('the extra column is named column_3 (--relax-column-count)');
  });

  test('--relax-column-count pads short records and names extra columns column_N', async () => {
    const path = await scratch.file('relax.csv', 'a,b,c\n1\n2,3,4,5,6\n7,8,9,,\n');
    const source = await openInput(path, { relaxColumnCount: true });
    expect(source.columns).toEqual(['a', 'b', 'c', 'column_4', 'column_5']);
    expect(source.headerNotes.join('\n')).toContain('the extra columns are named column_4, column_5');
    expect((await readAll(source)).map((r) => r.cells)).toEqual([
      ['1', '', '', '', ''],
      ['2', '3', '4', '5', '6'],
      ['7', '8', '9', '', ''],
    ]);
    const strict = await openInput(path, {});
    expect(strict.columns).toEqual(['a', 'b', 'c']);
    expect((await inputErrorOf(readAll(strict))).line).toBe(2);
  });
});

describe('blank lines and empty files', () => {
  test('blank lines are skipped and do not shift line numbers', async () => {
    const path = await scratch.file('blank.csv', '\r\n\r\nid,v\r\n\r\n1,a\r\n\r\n\r\n2,b\r\n\r\n');
    const source = await openInput(path, {});
    expect(source.describe()).toContain('header on line 3');
    const records = await readAll(source);
    expect(records.map((r) => [r.index, r.line, r.cells])).toEqual([
      [0, 5, ['1', 'a']],
      [1, 8, ['2', 'b']],
    ]);
  });

  test('a header without records is valid and has 0 records', async () => {
    const source = await openInput(await scratch.file('header-only.csv', 'id,text\r\n'), {});
    expect(source.columns).toEqual(['id', 'text']);
    expect(await readAll(source)).toEqual([]);
  });

  test('an empty file, or one with only blank lines, is INPUT_EMPTY', async () => {
    for (const content of ['', '\n\n\r\n']) {
      const error = await inputErrorOf(openInput(await scratch.file('empty.csv', content), {}));
      expect(error.code).toBe('INPUT_EMPTY');
    }
  });

  test('a --header-row beyond the end is INPUT_EMPTY', async () => {
    const error = await inputErrorOf(openInput(await scratch.file('short-file.csv', 'a,b\n1,2\n'), { headerRow: 5 }));
    expect(error.code).toBe('INPUT_EMPTY');
    expect(error.message).toContain('line 5');
  });

  test('old Mac files (lone CR line breaks) count lines like any other', async () => {
    const source = await openInput(await scratch.file('mac.csv', 'a,b\r1,"x\ry"\r\r2,z\r'), {});
    expect((await readAll(source)).map((r) => [r.line, ...r.cells])).toEqual([
      [2, '1', 'x\ry'],
      [5, '2', 'z'],
    ]);
  });

  test('the last record needs no final line break; a row of empty cells is a record', async () => {
    const records = await readAll(await openInput(await scratch.file('no-eol.csv', 'a,b\n,\n1,2'), {}));
    expect(records.map((r) => r.cells)).toEqual([
      ['', ''],
      ['1', '2'],
    ]);
  });
});

describe('malformed quoting', () => {
  test('text after a closing quote is INPUT_MALFORMED with the line and field', async () => {
    const path = await scratch.file('bad-close.csv', 'a,b,c\n1,2,3\n4,"five"x,6\n');
    const error = await inputErrorOf(readAll(await openInput(path, {})));
    expect(error).toMatchObject({ code: 'INPUT_MALFORMED', line: 3, column: 2 });
    expect(error.message).toContain('bad-close.csv:3:2:');
  });

  test('a quote inside an unquoted field is INPUT_MALFORMED', async () => {
    const path = await scratch.file('bad-open.csv', 'a,b\n1,2\n3,12" pizza\n');
    const error = await inputErrorOf(readAll(await openInput(path, {})));
    expect(error).toMatchObject({ code: 'INPUT_MALFORMED', line: 3, column: 2 });
  });

  test('a quote never closed is INPUT_MALFORMED naming the record where it opens', async () => {
    const path = await scratch.file('unclosed.csv', 'a,b\r\n1,2\r\n3,"never closed\r\n4,5\r\n6,7\r\n');
    const error = await inputErrorOf(readAll(await openInput(path, {})));
    expect(error).toMatchObject({ code: 'INPUT_MALFORMED', line: 3 });
    expect(error.message).toContain('never closed');
  });

  test('--quote changes the quote character', async () => {
    const path = await scratch.file('single-quote.csv', "a,b\n1,'x, y'\n2,\"z\n");
    const records = await readAll(await openInput(path, { quote: "'" }));
    expect(records.map((r) => r.cells)).toEqual([
      ['1', 'x, y'],
      ['2', '"z'],
    ]);
  });
});

describe('streaming', () => {
  test('records() can be called twice and gives the same records', async () => {
    const source = await openInput(fixture('naf-rev2-insee-fr-semicolon-bom.csv'), {});
    const first = await readAll(source);
    const second = await readAll(source);
    // Record by record as JSON (a deep toEqual of the 1,728 records costs more than reading them); the first record that
    // differs, if any, fails with toEqual's diff.
    expect(second.length).toBe(first.length);
    const differs = second.findIndex((record, i) => JSON.stringify(record) !== JSON.stringify(first[i]));
    expect(second[differs], `record ${differs}`).toEqual(first[differs]);
  });

  test('stopping early releases the file and a new iteration starts over', async () => {
    const source = await openInput(fixture('cip-2020-nces.csv'), {});
    for await (const record of source.records()) {
      expect(record.index).toBe(0);
      break;
    }
    const again = source.records()[Symbol.asyncIterator]();
    expect((await again.next()).value).toMatchObject({ index: 0, line: 2 });
    await again.return?.(undefined);
  });

  test('records and their lines do not depend on where the file is cut into chunks', async () => {
    const cellArbitrary = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('', 'a,b', 'say "hi"', 'x\ny', 'x\r\ny', '\r', 'é€😀', ' lead', 'trail '),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cellArbitrary, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
        fc.constantFrom('\n', '\r\n'),
        fc.integer({ min: 1, max: 9 }),
        async (rows, eol, chunkBytes) => {
          // A row of three empty cells is written `,,` so it is a record, not a blank line.
          const text = stringify([['h1', 'h2', 'h3'], ...rows], { record_delimiter: eol === '\n' ? 'unix' : 'windows', quoted_match: /[\r\n"]/ });
          // Written synchronously: the same bytes as scratch.file, without its thread-pool round trips (150 runs).
          const path = join(scratch.dir, 'chunks.csv');
          writeFileSync(path, text);
          const plan = { path, displayPath: path, encoding: 'utf-8', encodingSource: 'test', bomLength: 0, skipLines: 0, delimiter: ',', quote: '"', chunkBytes };
          const got: RawRecord[] = [];
          for await (const batch of streamCsvRecords(plan)) got.push(...batch);
          expect(got.map((r) => r.cells)).toEqual([['h1', 'h2', 'h3'], ...rows]);
          // Each record starts on the line after the last line of the one before (one assertion for all of them).
          const lines: number[] = [];
          let line = 1;
          for (const record of got) {
            lines.push(line);
            line += 1 + record.cells.join(',').split(/\r\n|\n|\r/).length - 1;
          }
          expect(got.map((r) => r.line)).toEqual(lines);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('several records with a wrong field count', () => {
  test('one error names each bad line with its field count, so that one edit fixes them all', async () => {
    const path = await scratch.file('ragged.csv', 'a,b,c\n1,2,3\n1,2\n1,2,3,4\n5,6,7\n1\n8,9,10\n');
    const seen: number[] = [];
    const error = await inputErrorOf(
      (async () => {
        for await (const record of (await openInput(path, {})).records()) seen.push(record.line);
      })(),
    );
    expect(seen).toEqual([2]); // nothing after the first bad record is delivered
    expect(error).toMatchObject({ code: 'INPUT_COLUMN_COUNT', line: 3 });
    expect(error.message).toContain('3 records have another number of fields than the header (line 1, 3 fields): line 3 has 2, line 4 has 4, line 6 has 1.');
    expect(error.message).toContain('--relax-column-count');
  });

  test('the search stops at 10 and says there may be more', async () => {
    const lines = ['a,b', ...Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? `${i}` : `${i},x`))];
    const error = await inputErrorOf(readAll(await openInput(await scratch.file('many-bad.csv', `${lines.join('\n')}\n`), {})));
    const named = [...error.message.matchAll(/line (\d+) has 1/g)].map((m) => Number(m[1]));
    expect(named).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
    expect(error.message).toContain('the first 10 records with another number of fields');
    expect(error.message).toContain('there may be more');
  });

  test('a malformed record after bad ones still reports the field counts found', async () => {
    const error = await inputErrorOf(readAll(await openInput(await scratch.file('bad-then-quote.csv', 'a,b\n1\n2\n3,"x\n'), {})));
    expect(error).toMatchObject({ code: 'INPUT_COLUMN_COUNT', line: 2 });
    expect(error.message).toContain('line 2 has 1, line 3 has 1');
  });
});

describe('sampleRecords', () => {
  test('gives the records after the header as read, short and long ones included, without error', async () => {
    const source = await openInput(await scratch.file('titled.csv', 'Report of 2024\n\nid,topic,notes\n1,a,x\n2,b\n'), {});
    expect(source.columns).toEqual(['Report of 2024']);
    expect(await source.sampleRecords?.(2)).toEqual([
      { line: 3, cells: ['id', 'topic', 'notes'] },
      { line: 4, cells: ['1', 'a', 'x'] },
    ]);
  });
});
