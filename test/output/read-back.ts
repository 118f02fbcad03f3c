/**
 * Test helper: reads an output file back with the reader of its format, as rows of cells (header first; for JSON
 * Lines, the keys of the first object).
 */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import JSZip from 'jszip'; // exceljs's own zip reader
import { expect } from 'vitest';
import type { OutputFormat } from '../../src/output/output-writer.js';

export async function readBack(file: string, format: OutputFormat, delimiter = ','): Promise<string[][]> {
  switch (format) {
    case 'csv':
    case 'tsv':
      return parse(fs.readFileSync(file), { delimiter: format === 'tsv' ? '\t' : delimiter, bom: true, relax_column_count: false });
    case 'jsonl': {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      const objects = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      // One assertion for all values (an expect per cell costs more than the reading): every value a string.
      expect(objects.flatMap((o) => Object.values(o).filter((v) => typeof v !== 'string'))).toEqual([]);
      // A header row from the keys (JSON Lines has none), so every format reads back alike.
      const header = objects.length > 0 ? Object.keys(objects[0]!) : [];
      expect(objects.map((o) => Object.keys(o)).filter((keys) => keys.join('\u0000') !== header.join('\u0000'))).toEqual([]);
      return objects.length > 0 ? [header, ...objects.map((o) => Object.values(o) as string[])] : [];
    }
    case 'xlsx': {
      const sheet = await readSheet(file);
      const rows: string[][] = [];
      const width = sheet.getRow(1).cellCount;
      const textTypes = new Set([ExcelJS.ValueType.Null, ExcelJS.ValueType.String, ExcelJS.ValueType.RichText]);
      const notText: string[] = [];
      sheet.eachRow({ includeEmpty: true }, (row) => {
        const cells: string[] = [];
        for (let c = 1; c <= width; c++) {
          const cell = row.getCell(c);
          if (!textTypes.has(cell.type)) notText.push(`${cell.address}: type ${cell.type}`);
          cells.push(cell.text);
        }
        rows.push(cells);
      });
      expect(notText).toEqual([]); // every cell is text (or empty): nothing was turned into a number or a date
      return rows;
    }
  }
}

/** The `classified` sheet of an XLSX file. */
export async function readSheet(file: string): Promise<ExcelJS.Worksheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  expect(workbook.worksheets.map((w) => w.name)).toEqual(['classified']);
  return workbook.getWorksheet('classified')!;
}

/** The XML of an XLSX file's first sheet and of its styles, as stored in the zip. */
export async function readXlsxXml(file: string): Promise<{ sheet: string; styles: string }> {
  const zip = await JSZip.loadAsync(fs.readFileSync(file));
  const text = async (name: string): Promise<string> => {
    const entry = zip.file(name);
    expect(entry, name).not.toBeNull();
    return entry!.async('string');
  };
  return { sheet: await text('xl/worksheets/sheet1.xml'), styles: await text('xl/styles.xml') };
}

/**
 * The addresses (`A2`…) of the cells whose style (`s`, an index into `cellXfs`) has `quotePrefix="1"`, read from
 * the XML itself: exceljs ignores that attribute when it reads a file.
 */
export async function quotePrefixedCells(file: string): Promise<string[]> {
  const { sheet, styles } = await readXlsxXml(file);
  const cellXfs = /<cellXfs\b[^>]*>(.*?)<\/cellXfs>/s.exec(styles)?.[1] ?? '';
  const xfs = [...cellXfs.matchAll(/<xf\b[^>]*?(?:\/>|>.*?<\/xf>)/gs)].map((m) => m[0]);
  const quoted = new Set(xfs.flatMap((xf, i) => (/\squotePrefix="(?:1|true)"/.test(xf) ? [i] : [])));
  return [...sheet.matchAll(/<c r="([A-Z]+\d+)"([^>]*)>/g)]
    .filter((m) => quoted.has(Number(/\ss="(\d+)"/.exec(m[2] ?? '')?.[1] ?? -1)))
    .map((m) => m[1]!);
}
