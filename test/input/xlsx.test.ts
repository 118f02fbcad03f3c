/**
 * XLSX: sheet by name and by index, header row below a title block, numbers and dates as displayed, merged cells,
 * empty cells and rows, formulas, rich text. The workbook is written by exceljs in the test setup (make-xlsx.ts).
 */
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openInput } from '../../src/input/open-input.js';
import type { InputRecord, InputSource } from '../../src/input/input-source.js';
import { inputErrorOf, readAll, scratchDir } from './helpers.js';
import { DATA_SHEET, writeTestWorkbook } from './make-xlsx.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let workbookPath: string;
beforeAll(async () => {
  scratch = await scratchDir();
  workbookPath = `${scratch.dir}/prices.xlsx`;
  await writeTestWorkbook(workbookPath);
});
afterAll(async () => {
  await scratch.cleanup();
});

function byColumn(source: InputSource, record: InputRecord | undefined): Record<string, string> {
  return Object.fromEntries(source.columns.map((name, i) => [name, record?.cells[i] ?? '<missing>']));
}

describe('sheet choice', () => {
  test('the first sheet by default', async () => {
    const source = await openInput(workbookPath, {});
    expect(source.dialect).toMatchObject({ format: 'xlsx', sheet: 'Notes', encoding: 'utf-8', delimiter: ',' });
    expect(source.columns).toEqual(['note']);
    expect((await readAll(source)).map((r) => r.cells)).toEqual([['first sheet, read by default']]);
  });

  test.each(['Data', '2', 'data'])('--sheet %s', async (sheet) => {
    const source = await openInput(workbookPath, { sheet, headerRow: DATA_SHEET.headerRow });
    expect(source.dialect.sheet).toBe('Data');
    expect(source.describe()).toBe('XLSX, sheet "Data", header on row 3, 12 columns');
  });

  test('an unknown sheet is INPUT_SHEET_NOT_FOUND listing the sheets', async () => {
    const error = await inputErrorOf(openInput(workbookPath, { sheet: 'Prices' }));
    expect(error.code).toBe('INPUT_SHEET_NOT_FOUND');
    expect(error.message).toContain('1 "Notes", 2 "Data"');
    expect((await inputErrorOf(openInput(workbookPath, { sheet: '3' }))).code).toBe('INPUT_SHEET_NOT_FOUND');
  });
});

describe('the Data sheet', () => {
  let source: InputSource;
  let records: InputRecord[];
  beforeAll(async () => {
    source = await openInput(workbookPath, { sheet: 'Data', headerRow: DATA_SHEET.headerRow });
    records = await readAll(source);
  });

  test('header: the blank header cell becomes column_11', () => {
    expect(source.columns).toEqual(DATA_SHEET.header.map((name, i) => (name === '' ? `column_${i + 1}` : name)));
    expect(source.headerNotes).toContain('column 11 has no name; called it column_11');
  });

  test('empty rows are skipped; line is the sheet row', () => {
    expect(records.map((r) => [r.index, r.line])).toEqual([
      [0, 4],
      [1, 5],
      [2, 7],
    ]);
    for (const record of records) expect(record.cells).toHaveLength(12);
  });

  test('numbers, dates, formulas, rich text and booleans read as the sheet displays them', () => {
    expect(byColumn(source, records[0])).toEqual({
      Code: '007',
      Name: 'Widget',
      Price: '1,234.50',
      Share: '25.6%',
      Date: '2024-01-15',
      'Long date': 'Monday, January 15, 2024 2:30 PM',
      Formula: '2,469',
      Merged: 'spans two rows',
      Rich: 'bold and plain',
      Flag: 'TRUE',
      column_11: 'under a blank header',
      Phone: '(555) 123-4567',
    });
    expect(byColumn(source, records[1])).toMatchObject({
      Code: '042',
      Price: '(1,234.50)',
      Share: '0.3',
      Date: '31/12/2023',
      Formula: 'Gadget!',
      Flag: 'FALSE',
    });
  });

  test('a merged range keeps its value in the top-left cell only; empty cells are empty strings', () => {
    expect(byColumn(source, records[1]).Merged).toBe('');
    expect(records[2]?.cells).toEqual(['', 'Only a name', '12345678901234', '', '', '', '', '', '', '', '', '']);
  });

  test('records() can be called twice', async () => {
    expect(await readAll(source)).toEqual(records);
  });

  test('with the default --header-row 1, the title row is the header', async () => {
    const titled = await openInput(workbookPath, { sheet: 'Data' });
    expect(titled.columns[0]).toBe('Quarterly price list');
    expect(titled.columns[1]).toBe('column_2'); // the rest of the merged title range is empty
  });
});

test('a date-formatted cell written without an explicit format reads as an ISO date', async () => {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('S');
  sheet.addRow(['when', 'n']);
  sheet.addRow([new Date(Date.UTC(2022, 6, 4)), 3]);
  const path = `${scratch.dir}/dates.xlsx`;
  await workbook.xlsx.writeFile(path);
  const records = await readAll(await openInput(path, {}));
  expect(records[0]?.cells).toEqual(['2022-07-04', '3']);
});

test('the default sheet is the first visible one; --sheet 1 still names the first tab', async () => {
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet('Lookup', { state: 'hidden' }).addRow(['hidden']);
  workbook.addWorksheet('Visible').addRow(['shown']);
  const path = `${scratch.dir}/hidden.xlsx`;
  await workbook.xlsx.writeFile(path);
  expect((await openInput(path, {})).dialect.sheet).toBe('Visible');
  expect((await openInput(path, { sheet: '1' })).dialect.sheet).toBe('Lookup');
});

test('a corrupt .xlsx is INPUT_MALFORMED', async () => {
  const path = await scratch.file('broken.xlsx', Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(64, 7)]));
  expect((await inputErrorOf(openInput(path, {}))).code).toBe('INPUT_MALFORMED');
});
