/** Header cleaning: blank names, repeats, outer whitespace, and what the notes say. */
import { describe, expect, test } from 'vitest';
import { cleanHeader } from '../../src/input/header.js';
import { openInput } from '../../src/input/open-input.js';
import ExcelJS from 'exceljs';
import { fixture, readAll, scratchDir } from './helpers.js';

describe('cleanHeader', () => {
  test('blank names become column_N with N the 1-based position', () => {
    const { columns, notes } = cleanHeader(['id', '', 'text', '   ']);
    expect(columns).toEqual(['id', 'column_2', 'text', 'column_4']);
    expect(notes).toEqual(['column 2 has no name; called it column_2', 'column 4 has no name; called it column_4']);
  });

  test('repeated names become name_2, name_3 in order, skipping suffixes already used', () => {
    expect(cleanHeader(['a', 'a', 'a']).columns).toEqual(['a', 'a_2', 'a_3']);
    expect(cleanHeader(['a', 'a', 'a_2']).columns).toEqual(['a', 'a_3', 'a_2']);
    expect(cleanHeader(['column_2', '']).columns).toEqual(['column_2', 'column_2_2']);
    expect(cleanHeader(['Name', 'name']).columns).toEqual(['Name', 'name']);
    expect(cleanHeader(['x', 'x']).notes).toEqual(['column 2 repeats the name "x"; called it "x_2"']);
  });

  test('outer whitespace is trimmed and reported; inner whitespace is kept and pointed out', () => {
    const { columns, notes } = cleanHeader(['Code', ' Intitulés de la  NAF ', 'Two\nlines', '\u00a0nbsp']);
    expect(columns).toEqual(['Code', 'Intitulés de la  NAF', 'Two\nlines', 'nbsp']);
    expect(notes).toContain('column 2 name " Intitulés de la  NAF " has spaces around it; called it "Intitulés de la  NAF"');
    expect(notes.some((n) => n.startsWith('column 2 name "Intitulés de la  NAF" contains'))).toBe(true);
    expect(notes.some((n) => n.startsWith('column 3 name "Two\\nlines" contains'))).toBe(true);
    expect(notes.some((n) => n.startsWith('column 4'))).toBe(true);
  });

  test('headerCells keep the cells as in the file, except blank and repeated ones, which take the new name', () => {
    const cells = [' Code ', '', '\u00a0Label\t', 'Label', ' Label', 'x', 'two  spaces', '   '];
    const { columns, headerCells } = cleanHeader(cells);
    expect(columns).toEqual(['Code', 'column_2', 'Label', 'Label_2', 'Label_3', 'x', 'two  spaces', 'column_8']);
    expect(headerCells).toEqual([' Code ', 'column_2', '\u00a0Label\t', 'Label_2', 'Label_3', 'x', 'two  spaces', 'column_8']);
    expect(cleanHeader(['a', 'b']).headerCells).toEqual(['a', 'b']);
  });

  test('names that are already clean give no notes; names are always unique and non-blank', () => {
    expect(cleanHeader(['a', 'b']).notes).toEqual([]);
    const { columns } = cleanHeader(['', 'x', ' x', 'x ', '', 'column_1']);
    expect(new Set(columns).size).toBe(columns.length);
    for (const name of columns) expect(name).not.toBe('');
  });
});

test('a CSV with duplicate and blank header names reads under the cleaned names', async () => {
  const scratch = await scratchDir();
  try {
    const source = await openInput(await scratch.file('dup.csv', 'name,,name, score \nA,1,B,2\n'), {});
    expect(source.columns).toEqual(['name', 'column_2', 'name_2', 'score']);
    expect(source.headerCells).toEqual(['name', 'column_2', 'name_2', ' score ']);
    expect(source.headerNotes).toHaveLength(3);
    expect((await readAll(source))[0]?.cells).toEqual(['A', '1', 'B', '2']);
  } finally {
    await scratch.cleanup();
  }
});

test('NAF: the output header keeps " Intitulés de la  NAF rév. 2, version finale " with its spaces; templates use the trimmed name', async () => {
  const source = await openInput(fixture('naf-rev2-insee-fr-semicolon-bom.csv'), {});
  expect(source.headerCells).toEqual(['Code', ' Intitulés de la  NAF rév. 2, version finale ']);
  expect(source.columns).toEqual(['Code', 'Intitulés de la  NAF rév. 2, version finale']);
});

test('--relax-column-count: extra columns are column_N in headerCells too', async () => {
  const scratch = await scratchDir();
  try {
    const source = await openInput(await scratch.file('relax.csv', ' a ,b\n1,2,3\n'), { relaxColumnCount: true });
    expect(source.columns).toEqual(['a', 'b', 'column_3']);
    expect(source.headerCells).toEqual([' a ', 'b', 'column_3']);
  } finally {
    await scratch.cleanup();
  }
});

test('XLSX: headerCells keep the header cells as the sheet shows them, blank and repeated ones renamed', async () => {
  const scratch = await scratchDir();
  try {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Data');
    sheet.addRow([' Code ', 'Name', undefined, 'Name', 'x']);
    sheet.addRow(['1', 'a', 'b', 'c', 'd', 'beyond the header']);
    const path = `${scratch.dir}/header.xlsx`;
    await workbook.xlsx.writeFile(path);
    const source = await openInput(path, {});
    expect(source.columns).toEqual(['Code', 'Name', 'column_3', 'Name_2', 'x', 'column_6']);
    expect(source.headerCells).toEqual([' Code ', 'Name', 'column_3', 'Name_2', 'x', 'column_6']);
    expect(source.headerNotes).toContain("cells to the right of the header's last cell (column 5) are in a column named column_6");
  } finally {
    await scratch.cleanup();
  }
});
