/**
 * Test helper: reads an output file back with the reader of its format, as rows of cells (header first; for JSON
 * Lines, the keys of the first object).
 */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { expect } from 'vitest';
import type { OutputFormat } from '../../src/output/output-writer.js';

export async function readBack(file: string, format: OutputFormat, delimiter = ','): Promise<string[][]> {
  switch (format) {
    case 'csv':
    case 'tsv':
      return parse(fs.readFileSync(file), { delimiter: format === 'tsv' ? '\t' : delimiter, bom: true, relax_column_count: false }) as string[][];
    case 'jsonl': {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      const objects = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      for (const o of objects) for (const v of Object.values(o)) expect(typeof v).toBe('string');
      // A header row from the keys (JSON Lines has none), so every format reads back alike.
      const header = objects.length > 0 ? Object.keys(objects[0]!) : [];
      for (const o of objects) expect(Object.keys(o)).toEqual(header);
      return objects.length > 0 ? [header, ...objects.map((o) => Object.values(o) as string[])] : [];
    }
    case 'xlsx': {
      const sheet = await readSheet(file);
      const rows: string[][] = [];
      const width = sheet.getRow(1).cellCount;
      sheet.eachRow({ includeEmpty: true }, (row) => {
        const cells: string[] = [];
        for (let c = 1; c <= width; c++) {
          const cell = row.getCell(c);
          expect([ExcelJS.ValueType.Null, ExcelJS.ValueType.String, ExcelJS.ValueType.RichText]).toContain(cell.type);
          cells.push(cell.text);
        }
        rows.push(cells);
      });
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
