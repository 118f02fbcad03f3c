import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GeminiBatchError, UsageError } from '../../src/errors.js';
import { escapeFormula, needsFormulaEscape } from '../../src/output/escape-formula.js';
import { createOutputWriter, defaultOutputPath, outputFormatFor } from '../../src/output/create-output-writer.js';
import type { OutputFormat, OutputSpec } from '../../src/output/output-writer.js';
import { quotePrefixStyle } from '../../src/output/exceljs-internals.js';
import { XLSX_MAX_CELL_CHARS } from '../../src/output/xlsx-writer.js';
import { openInput } from '../../src/input/open-input.js';
import { expectSameRows } from '../support/same-rows.js';
import { quotePrefixedCells, readBack, readSheet, readXlsxXml } from './read-back.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-output-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const COLUMNS = ['CIPCode', 'Title, with comma', 'Définition', 'label', 'status', 'error'];
const TRICKY: string[][] = [
  ['01.0101', 'plain', 'A program that focuses on agriculture.', 'yes', 'ok', ''],
  ['007', 'a,b;c|d', 'say "hi" and "bye"', 'no', 'ok', ''],
  ['1e5', 'line one\nline two\nline three', 'crlf\r\ninside', 'maybe', 'ok', ''],
  ['-0.5', 'lone\rCR', 'tab\there', '', 'failed', 'HTTP 503: model is overloaded'],
  ['=SUM(A1)', '@cmd', '- This class includes:\n- growing of rice', '+1', 'ok', ''],
  ['#NAME?', '  leading and trailing  ', 'Ça dépend 😀 — œuvre « ok » 中文', 'peut-être', 'ok', ''],
  ['', '', '', '', 'pending', ''],
  ['x_x000D_y', 'ctl\u0001\u001f', '\u009d C1 and \u00a0 NBSP', 'yes', 'ok', ''],
  ['-21.419,06', '\t=cmd', '"', "'", 'ok', ''],
];

async function writeAll(spec: OutputSpec, rows: string[][] = TRICKY): Promise<void> {
  const writer = await createOutputWriter(spec);
  for (const row of rows) await writer.write(row);
  await writer.commit();
}

const FORMATS: [OutputFormat, string][] = [
  ['csv', 'out.csv'],
  ['tsv', 'out.tsv'],
  ['jsonl', 'out.jsonl'],
  ['xlsx', 'out.xlsx'],
];

describe.each(FORMATS)('%s output read back with its own reader', (format, name) => {
  // XLSX neutralizes with the quotePrefix style, its text unchanged (tested in 'XLSX' below); JSONL does not.
  const escapes = format === 'csv' || format === 'tsv';

  it('gives back every cell: multi-line, quotes, delimiters, leading zeros, unicode, formulas neutralized', async () => {
    const target = path.join(dir, name);
    const writer = await createOutputWriter({ target, columns: COLUMNS });
    expect(writer.format).toBe(format);
    for (const row of TRICKY) await writer.write(row);
    await writer.commit();
    const expected = [COLUMNS, ...TRICKY].map((row) => (escapes ? row.map(escapeFormula) : row));
    expect(await readBack(target, format)).toEqual(expected);
    expect(fs.readdirSync(dir)).toEqual([name]); // no temporary left
  });

  it('keeps cells as they are with escapeFormulas false', async () => {
    const target = path.join(dir, name);
    await writeAll({ target, columns: COLUMNS, escapeFormulas: false });
    expect(await readBack(target, format)).toEqual([COLUMNS, ...TRICKY]);
  });

  it('writes a header-only file when there are no rows', async () => {
    const target = path.join(dir, name);
    await writeAll({ target, columns: COLUMNS }, []);
    expect(await readBack(target, format)).toEqual(format === 'jsonl' ? [] : [COLUMNS]);
  });

  it('leaves the target as it was until commit, then replaces it whole', async () => {
    const target = path.join(dir, name);
    fs.writeFileSync(target, 'previous results');
    const writer = await createOutputWriter({ target, columns: COLUMNS });
    for (const row of TRICKY) await writer.write(row);
    expect(fs.readFileSync(target, 'utf8')).toBe('previous results');
    await writer.commit();
    await writer.commit(); // idempotent
    await writer.abort(); // no effect after commit
    expect(fs.readFileSync(target, 'utf8')).not.toBe('previous results');
    expect(fs.readdirSync(dir)).toEqual([name]);
  });

  it('abort() removes the temporary file and leaves the target', async () => {
    const target = path.join(dir, name);
    fs.writeFileSync(target, 'previous results');
    const writer = await createOutputWriter({ target, columns: COLUMNS });
    const names = fs.readdirSync(dir).sort();
    expect(names).toHaveLength(2);
    expect(names).toContain(name);
    expect(names.find((n) => n !== name)).toMatch(new RegExp(`^\\.${name.replace(/\./g, '\\.')}\\.tmp-${process.pid}-[0-9a-f]{16}$`));
    for (const row of TRICKY) await writer.write(row);
    await writer.abort();
    await writer.abort();
    expect(fs.readdirSync(dir)).toEqual([name]);
    expect(fs.readFileSync(target, 'utf8')).toBe('previous results');
    await expect(writer.write(TRICKY[0]!)).rejects.toBeInstanceOf(GeminiBatchError);
  });

  it('refuses a row without one cell per column (a bug)', async () => {
    const writer = await createOutputWriter({ target: path.join(dir, name), columns: COLUMNS });
    await expect(async () => writer.write(['only one'])).rejects.toMatchObject({
      code: 'OUTPUT_CELL_COUNT',
      exitCode: 4,
      message: 'an output row has 1 cell for 6 columns',
    });
    await writer.abort();
  });
});

describe('CSV dialect', () => {
  it('uses the given delimiter, quotes only the cells that need it, CRLF by default', async () => {
    const target = path.join(dir, 'out.csv');
    await writeAll({ target, columns: ['a', 'b'], delimiter: ';' }, [
      ['1,5', 'x;y'],
      ['plain', 'two\nlines'],
      ['"q"', ''],
    ]);
    expect(fs.readFileSync(target, 'utf8')).toBe('a;b\r\n1,5;"x;y"\r\nplain;"two\nlines"\r\n"""q""";\r\n');
    expect(await readBack(target, 'csv', ';')).toEqual([['a', 'b'], ['1,5', 'x;y'], ['plain', 'two\nlines'], ['"q"', '']]);
  });

  it('writes LF line breaks when asked, and still quotes a CR inside a cell', async () => {
    const target = path.join(dir, 'out.csv');
    await writeAll({ target, columns: ['a'], lineBreak: '\n' }, [['x\ry'], ['z']]);
    expect(fs.readFileSync(target, 'utf8')).toBe('a\n"x\ry"\nz\n');
  });

  it('starts with a UTF-8 BOM only when asked', async () => {
    const withBom = path.join(dir, 'bom.csv');
    const without = path.join(dir, 'plain.csv');
    await writeAll({ target: withBom, columns: ['Code'], bom: true }, [['é']]);
    await writeAll({ target: without, columns: ['Code'] }, [['é']]);
    expect([...fs.readFileSync(withBom).subarray(0, 4)]).toEqual([0xef, 0xbb, 0xbf, 0x43]);
    expect(fs.readFileSync(without, 'utf8')).toBe('Code\r\né\r\n');
    expect(await readBack(withBom, 'csv')).toEqual([['Code'], ['é']]);
  });

  it("starts with Excel's sep= line when asked, after the BOM: read back, it opens as the input did", async () => {
    const target = path.join(dir, 'sep.csv');
    await writeAll({ target, columns: ['Code', 'Libellé', 'label'], delimiter: ';', bom: true, sepLine: true }, [
      ['01.1', 'Cultures; non permanentes', 'oui'],
      ['01.2', 'ligne\ndeux', 'non'],
    ]);
    const bytes = fs.readFileSync(target);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString('utf8')).toBe('sep=;\r\nCode;Libellé;label\r\n01.1;"Cultures; non permanentes";oui\r\n01.2;"ligne\ndeux";non\r\n');
    const source = await openInput(target, {});
    expect(source.dialect).toMatchObject({ sepLine: true, delimiter: ';', bom: true, lineBreak: '\r\n' });
    expect(source.columns).toEqual(['Code', 'Libellé', 'label']);
    const cells: string[][] = [];
    for await (const record of source.records()) cells.push(record.cells);
    expect(cells).toEqual([
      ['01.1', 'Cultures; non permanentes', 'oui'],
      ['01.2', 'ligne\ndeux', 'non'],
    ]);
  });

  it('writes the sep= line with the line break asked for, and none unless asked', async () => {
    const lf = path.join(dir, 'lf.csv');
    await writeAll({ target: lf, columns: ['a', 'b'], delimiter: '|', lineBreak: '\n', sepLine: true }, [['1', '2']]);
    expect(fs.readFileSync(lf, 'utf8')).toBe('sep=|\na|b\n1|2\n');
    const plain = path.join(dir, 'plain.csv');
    await writeAll({ target: plain, columns: ['a', 'b'], delimiter: ';', sepLine: false }, [['1', '2']]);
    expect(fs.readFileSync(plain, 'utf8')).toBe('a;b\r\n1;2\r\n');
  });

  it('writes no sep= line in TSV, JSONL or XLSX', async () => {
    const tsv = path.join(dir, 'out.tsv');
    await writeAll({ target: tsv, columns: ['a', 'b'], delimiter: ';', sepLine: true }, [['1', '2']]);
    expect(fs.readFileSync(tsv, 'utf8')).toBe('a\tb\r\n1\t2\r\n');
    const jsonl = path.join(dir, 'out.jsonl');
    await writeAll({ target: jsonl, columns: ['a', 'b'], sepLine: true }, [['1', '2']]);
    expect(fs.readFileSync(jsonl, 'utf8')).toBe('{"a":"1","b":"2"}\n');
    const xlsx = path.join(dir, 'out.xlsx');
    await writeAll({ target: xlsx, columns: ['a', 'b'], delimiter: ';', sepLine: true }, [['1', '2']]);
    expect(await readBack(xlsx, 'xlsx')).toEqual([['a', 'b'], ['1', '2']]);
  });

  it('neutralizes formulas in the header too', async () => {
    const target = path.join(dir, 'out.csv');
    await writeAll({ target, columns: ['=cmd', '-note'] }, [['1', '2']]);
    expect(fs.readFileSync(target, 'utf8')).toBe("'=cmd,'-note\r\n1,2\r\n");
  });

  it('quotes TSV cells holding TAB, CR, LF or a quote, as Excel does', async () => {
    const target = path.join(dir, 'out.tsv');
    await writeAll({ target, columns: ['a', 'b'], delimiter: ';' }, [['x\ty', 'say "hi"'], ['a;b,c', 'l1\nl2']]);
    expect(fs.readFileSync(target, 'utf8')).toBe('a\tb\r\n"x\ty"\t"say ""hi"""\r\na;b,c\t"l1\nl2"\r\n');
  });

  it('refuses a delimiter that is not one character', async () => {
    await expect(createOutputWriter({ target: path.join(dir, 'x.csv'), columns: ['a'], delimiter: ';;' })).rejects.toMatchObject({ code: 'OUTPUT_INVALID_OPTION' });
    await expect(createOutputWriter({ target: path.join(dir, 'x.csv'), columns: ['a'], delimiter: '"' })).rejects.toMatchObject({ code: 'OUTPUT_INVALID_OPTION' });
  });
});

describe('JSONL', () => {
  it('writes keys in column order, even number-like ones, and no BOM', async () => {
    const target = path.join(dir, 'out.jsonl');
    await writeAll({ target, columns: ['z', '2', 'a', '1'], bom: true }, [['=1', 'b', 'c\u2028d', 'e']]);
    expect(fs.readFileSync(target, 'utf8')).toBe('{"z":"=1","2":"b","a":"c\u2028d","1":"e"}\n');
  });

  it('refuses two columns with one name', async () => {
    await expect(createOutputWriter({ target: path.join(dir, 'x.jsonl'), columns: ['a', 'a'] })).rejects.toMatchObject({ code: 'OUTPUT_DUPLICATE_COLUMN', exitCode: 2 });
  });
});

describe('XLSX', () => {
  it('has a bold, frozen header, text cells only and reasonable widths', async () => {
    const target = path.join(dir, 'out.xlsx');
    const long = 'x'.repeat(500);
    await writeAll({ target, columns: ['Code', 'Long', 'Lines'] }, [
      ['01.0101', long, 'short\na much longer second line here'],
      ['1e5', 'y', 'z'],
    ]);
    const sheet = await readSheet(target);
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sheet.getRow(2).getCell(1).text).toBe('01.0101');
    expect(typeof sheet.getRow(3).getCell(1).value).not.toBe('number');
    const widths = sheet.columns.map((c) => c.width ?? 0);
    expect(widths[0]).toBeGreaterThanOrEqual(8);
    expect(widths[1]).toBe(60);
    expect(widths[2]).toBeGreaterThanOrEqual('a much longer second line here'.length);
    expect(widths[2]).toBeLessThan(60);
  });

  it('marks cells that could run as formulas with the quotePrefix style, their text unchanged', async () => {
    const target = path.join(dir, 'out.xlsx');
    await writeAll({ target, columns: COLUMNS });
    // exceljs reads back every cell exactly as given: no visible `'`, and text, never a formula.
    expect(await readBack(target, 'xlsx')).toEqual([COLUMNS, ...TRICKY]);
    const expected = [COLUMNS, ...TRICKY].flatMap((row, r) =>
      row.flatMap((cell, c) => (needsFormulaEscape(cell) ? [`${String.fromCharCode(65 + c)}${r + 1}`] : [])),
    );
    expect(expected).toEqual(['A6', 'B6', 'C6', 'B10']); // =SUM(A1) @cmd "- This class…" "\t=cmd" (not +1, -0.5)
    expect(await quotePrefixedCells(target)).toEqual(expected);
    const { styles, sheet } = await readXlsxXml(target);
    expect(styles).toMatch(/<xf [^>]*quotePrefix="1"\/>/);
    expect(sheet).toContain('<t>=SUM(A1)</t>');
    expect(sheet).not.toContain("<t>'");
    expect(sheet).not.toContain('<f>');
  });

  it('quotePrefix in the bold header too; none at all with escapeFormulas false', async () => {
    const target = path.join(dir, 'out.xlsx');
    await writeAll({ target, columns: ['=cmd', 'ok', '-note'] }, [['-1', '- a', '@x']]);
    expect(await quotePrefixedCells(target)).toEqual(['A1', 'C1', 'B2', 'C2']);
    const sheet = await readSheet(target);
    expect(sheet.getRow(1).getCell(1).text).toBe('=cmd');
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sheet.getRow(1).getCell(2).font?.bold).toBe(true);
    expect(sheet.getRow(2).getCell(2).font?.bold).not.toBe(true);

    const plain = path.join(dir, 'plain.xlsx');
    await writeAll({ target: plain, columns: ['=cmd', 'ok', '-note'], escapeFormulas: false }, [['-1', '- a', '@x']]);
    expect(await quotePrefixedCells(plain)).toEqual([]);
    expect((await readXlsxXml(plain)).styles).not.toContain('quotePrefix');
    expect(await readBack(plain, 'xlsx')).toEqual([['=cmd', 'ok', '-note'], ['-1', '- a', '@x']]);
  });

  it('quotePrefixStyle gives up (the writer then adds a `\'`) when exceljs has no style manager as expected', () => {
    expect(quotePrefixStyle({} as ExcelJS.stream.xlsx.WorkbookWriter, {})).toBeUndefined();
    const broken = { styles: { addStyleModel: () => 0, model: { styles: ['<xf numFmtId="0"><alignment/></xf>'] }, weakMap: new WeakMap() } };
    expect(quotePrefixStyle(broken as unknown as ExcelJS.stream.xlsx.WorkbookWriter, {})).toBeUndefined();
  });

  it('cuts cells over 32,767 characters and says so once, at commit, with the count', async () => {
    const target = path.join(dir, 'out.xlsx');
    const warnings: string[] = [];
    const writer = await createOutputWriter({ target, columns: ['id', 'text'], onWarning: (m) => warnings.push(m) });
    await writer.write(['1', 'short']);
    await writer.write(['2', 'é'.repeat(40_000)]);
    await writer.write(['x'.repeat(32_768), '😀'.repeat(20_000)]);
    expect(warnings).toEqual([]);
    await writer.commit();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toBe(
      `${target}: 3 cells were longer than Excel's 32,767 characters and cut to that length ` +
        '(the first: column "text" in row 3, 40,000 characters); write .csv or .jsonl to keep every character',
    );
    const rows = await readBack(target, 'xlsx');
    expect(rows[2]).toEqual(['2', 'é'.repeat(XLSX_MAX_CELL_CHARS)]);
    // An emoji is two UTF-16 units: the cut does not split one.
    expect(rows[3]).toEqual(['x'.repeat(XLSX_MAX_CELL_CHARS), '😀'.repeat(16_383)]);
  });

  it('says nothing when no cell is cut, and "1 cell" for one', async () => {
    const warnings: string[] = [];
    await writeAll({ target: path.join(dir, 'a.xlsx'), columns: ['a'], onWarning: (m) => warnings.push(m) }, [['x'.repeat(XLSX_MAX_CELL_CHARS)]]);
    expect(warnings).toEqual([]);
    await writeAll({ target: path.join(dir, 'b.xlsx'), columns: ['a'], onWarning: (m) => warnings.push(m) }, [['x'.repeat(XLSX_MAX_CELL_CHARS + 1)]]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(': 1 cell was longer than');
  });

  it('refuses more columns than a sheet holds', async () => {
    const columns = Array.from({ length: 16_385 }, (_, i) => `c${i}`);
    await expect(createOutputWriter({ target: path.join(dir, 'x.xlsx'), columns })).rejects.toMatchObject({ code: 'OUTPUT_XLSX_LIMIT', exitCode: 2 });
  });

  it('writes more rows than it samples for widths, in order', async () => {
    const target = path.join(dir, 'out.xlsx');
    // 800 rows (was 2,000): past the 100 the writer holds to fix the widths, and past its backlog check every 256 rows
    // three times, which is all that more rows would go through.
    const rows = Array.from({ length: 800 }, (_, i) => [String(i).padStart(5, '0'), `row ${i}`]);
    await writeAll({ target, columns: ['id', 'text'] }, rows);
    expectSameRows(await readBack(target, 'xlsx'), [['id', 'text'], ...rows]);
  });
});

describe('stdout', () => {
  it('writes CSV to stdout, waiting for drain when stdout is full', async () => {
    const chunks: string[] = [];
    let full = false;
    vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string) => {
      chunks.push(chunk);
      return !full;
    }) as typeof process.stdout.write);
    const writer = await createOutputWriter({ target: '-', columns: ['a', 'b'] });
    expect(writer.format).toBe('csv');
    await writer.write(['1', 'x,y']);
    full = true;
    let accepted = false;
    const pending = writer.write(['2', 'z']).then(() => (accepted = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(accepted).toBe(false);
    full = false;
    process.stdout.emit('drain');
    await pending;
    expect(accepted).toBe(true);
    await writer.commit();
    expect(chunks.join('')).toBe('a,b\r\n1,"x,y"\r\n2,z\r\n');
  });

  it('refuses XLSX on stdout', async () => {
    await expect(createOutputWriter({ target: '-', columns: ['a'], format: 'xlsx' })).rejects.toMatchObject({ code: 'OUTPUT_INVALID_OPTION' });
  });
});

describe('output targets', () => {
  it('picks the format by extension', () => {
    expect(outputFormatFor('a.csv')).toBe('csv');
    expect(outputFormatFor('A.CSV')).toBe('csv');
    expect(outputFormatFor('results')).toBe('csv');
    expect(outputFormatFor('-')).toBe('csv');
    expect(outputFormatFor('a.tsv')).toBe('tsv');
    expect(outputFormatFor('a.jsonl')).toBe('jsonl');
    expect(outputFormatFor('a.ndjson')).toBe('jsonl');
    expect(outputFormatFor('dir.v2/a.xlsx')).toBe('xlsx');
    for (const bad of ['a.xls', 'a.json', 'a.txt', 'a.ods']) {
      expect(() => outputFormatFor(bad)).toThrow(UsageError);
      expect(() => outputFormatFor(bad)).toThrow(expect.objectContaining({ code: 'OUTPUT_UNSUPPORTED_FORMAT' }));
    }
  });

  it('defaults to <input name>.classified.csv beside the input', () => {
    expect(defaultOutputPath(path.join('data', 'topics.csv'))).toBe(path.join('data', 'topics.classified.csv'));
    expect(defaultOutputPath('topics.xlsx')).toBe('topics.classified.csv');
    expect(defaultOutputPath('/x/archive.2024.tsv')).toBe('/x/archive.2024.classified.csv');
  });

  it('refuses a target in a missing folder or that is a directory, before writing', async () => {
    await expect(createOutputWriter({ target: path.join(dir, 'missing', 'out.csv'), columns: ['a'] })).rejects.toMatchObject({ code: 'OUTPUT_UNWRITABLE', exitCode: 2 });
    fs.mkdirSync(path.join(dir, 'out.csv'));
    await expect(createOutputWriter({ target: path.join(dir, 'out.csv'), columns: ['a'] })).rejects.toMatchObject({ code: 'OUTPUT_UNWRITABLE' });
    await expect(createOutputWriter({ target: path.join(dir, 'out.pdf'), columns: ['a'] })).rejects.toMatchObject({ code: 'OUTPUT_UNSUPPORTED_FORMAT' });
  });

  it('honours an explicit format over the extension', async () => {
    const target = path.join(dir, 'out.txt');
    await writeAll({ target, columns: ['a'], format: 'tsv' }, [['x\ty']]);
    expect(fs.readFileSync(target, 'utf8')).toBe('a\r\n"x\ty"\r\n');
  });
});
