/** openInput: file errors, format refusal, option validation, describe(), and row fingerprints. */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { openInput } from '../../src/input/open-input.js';
import { rowFingerprint } from '../../src/input/row-identity.js';
import { fixture, inputErrorOf, readAll, scratchDir } from './helpers.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => {
  await scratch.cleanup();
});

describe('files that cannot be read', () => {
  test('a missing file is INPUT_NOT_FOUND with exit code 2', async () => {
    const error = await inputErrorOf(openInput(join(scratch.dir, 'nope.csv'), {}));
    expect(error.code).toBe('INPUT_NOT_FOUND');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('nope.csv');
  });

  test('a directory is INPUT_NOT_A_FILE', async () => {
    const dir = join(scratch.dir, 'folder.csv');
    await mkdir(dir);
    expect((await inputErrorOf(openInput(dir, {}))).code).toBe('INPUT_NOT_A_FILE');
  });

  test.each(['book.xls', 'book.ods', 'book.numbers'])('%s is INPUT_UNSUPPORTED_FORMAT saying to save as CSV or XLSX', async (name) => {
    const error = await inputErrorOf(openInput(await scratch.file(name, 'whatever'), {}));
    expect(error.code).toBe('INPUT_UNSUPPORTED_FORMAT');
    expect(error.message).toMatch(/CSV.*\.xlsx/);
  });

  test('the messages say "an Excel 97-2003 workbook", with the right article', async () => {
    const xls = await inputErrorOf(openInput(await scratch.file('book2.xls', 'whatever'), {}));
    expect(xls.message).toContain('cannot read an Excel 97-2003 workbook (.xls)');
    const ole = await inputErrorOf(openInput(await scratch.file('old.csv', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1])), {}));
    expect(ole.message).toContain('cannot read an Excel 97-2003 (.xls) workbook');
    const ods = await inputErrorOf(openInput(await scratch.file('sheet.ods', 'whatever'), {}));
    expect(ods.message).toContain('cannot read an OpenDocument spreadsheet (.ods)');
    const numbers = await inputErrorOf(openInput(await scratch.file('doc.numbers', 'whatever'), {}));
    expect(numbers.message).toContain('cannot read an Apple Numbers document (.numbers)');
    const xlsb = await inputErrorOf(openInput(await scratch.file('b.xlsb', 'whatever'), {}));
    expect(xlsb.message).toContain('cannot read an Excel binary workbook (.xlsb)');
    const json = await inputErrorOf(openInput(await scratch.file('j.json', '{}'), {}));
    expect(json.message).toContain('cannot read a JSON file (.json)');
  });

  test('a workbook saved under a .csv name is refused, not read as garbage text', async () => {
    const zip = await scratch.file('really-a-workbook.csv', Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]));
    expect((await inputErrorOf(openInput(zip, {}))).code).toBe('INPUT_UNSUPPORTED_FORMAT');
    const ole = await scratch.file('old-excel.csv', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1]));
    expect((await inputErrorOf(openInput(ole, {}))).code).toBe('INPUT_UNSUPPORTED_FORMAT');
  });

  test('a .xlsx that is not a zip is INPUT_UNSUPPORTED_FORMAT', async () => {
    const error = await inputErrorOf(openInput(await scratch.file('fake.xlsx', 'a,b\n1,2\n'), {}));
    expect(error.code).toBe('INPUT_UNSUPPORTED_FORMAT');
  });
});

describe('options', () => {
  test.each([
    [{ encoding: 'klingon-8' }, 'USAGE_INVALID_ENCODING'],
    [{ delimiter: ';;' }, 'USAGE_INVALID_DELIMITER'],
    [{ delimiter: '\n' }, 'USAGE_INVALID_DELIMITER'],
    [{ quote: 'ab' }, 'USAGE_INVALID_QUOTE'],
    [{ delimiter: ';', quote: ';' }, 'USAGE_INVALID_QUOTE'],
    [{ headerRow: 0 }, 'USAGE_INVALID_HEADER_ROW'],
    [{ headerRow: 1.5 }, 'USAGE_INVALID_HEADER_ROW'],
  ])('%j is a UsageError %s', async (options, code) => {
    const error = await openInput(fixture('synthetic-pipe.txt'), options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe(code);
  });

  test.each(['synthetic-pipe.txt', 'cip-2020-nces.csv', 'iab-content-taxonomy-3.1.tsv'])('--sheet with %s (delimited text) is a UsageError USAGE_SHEET_NOT_XLSX', async (name) => {
    const error = await openInput(fixture(name), { sheet: 'Data' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ code: 'USAGE_SHEET_NOT_XLSX', exitCode: 2 });
    expect((error as UsageError).message).toMatch(/^--sheet applies to XLSX input only/);
    // An empty --sheet is no --sheet.
    await expect(openInput(fixture(name), { sheet: '' })).resolves.toBeDefined();
  });

  test('--header-row skips title lines above the header, and lines count from the top of the file', async () => {
    const path = await scratch.file('titled.csv', 'Report of 2024\r\n"a title, with ""quotes\r\n\r\nid;v\r\n1;x\r\n');
    const source = await openInput(path, { headerRow: 4 });
    expect(source.columns).toEqual(['id', 'v']);
    expect(source.describe()).toBe("UTF-8, ';' delimited, CRLF, header on line 4, 2 columns");
    expect((await readAll(source)).map((r) => r.line)).toEqual([5]);
  });
});

describe('row fingerprints', () => {
  test('are 22 base64url characters, equal for equal rows, different for different rows', () => {
    const a = rowFingerprint(['1', 'hello']);
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(rowFingerprint(['1', 'hello'])).toBe(a);
    expect(rowFingerprint(['1', 'hello '])).not.toBe(a);
    expect(rowFingerprint(['1,hello'])).not.toBe(rowFingerprint(['1', 'hello']));
    expect(rowFingerprint(['a', ''])).not.toBe(rowFingerprint(['a']));
    expect(rowFingerprint(['ab', 'c'])).not.toBe(rowFingerprint(['a', 'bc']));
  });

  test('are stable across runs (pinned value) and across opens of the same file', async () => {
    // sha256 of "2:01" + "7:01.0101", base64url, first 22 characters: a change here breaks resume of old jobs.
    expect(rowFingerprint(['01', '01.0101'])).toBe('zQCm-snejKUpoiMl0WJJKl');
    expect(rowFingerprint([])).toBe('47DEQpj8HBSa-_TImW-5JC');
    const first = (await readAll(await openInput(fixture('cip-2020-nces.csv'), {}))).map((r) => r.fingerprint);
    const second = (await readAll(await openInput(fixture('cip-2020-nces.csv'), {}))).map((r) => r.fingerprint);
    expect(second).toEqual(first);
  });

  test('identical records have identical fingerprints; the index tells them apart', async () => {
    const records = await readAll(await openInput(await scratch.file('twins.csv', 'a,b\n1,x\n1,x\n2,x\n'), {}));
    expect(records[0]?.fingerprint).toBe(records[1]?.fingerprint);
    expect(records[2]?.fingerprint).not.toBe(records[0]?.fingerprint);
    expect(records.map((r) => r.index)).toEqual([0, 1, 2]);
  });
});
