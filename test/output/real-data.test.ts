/**
 * The five real spreadsheets of test/fixtures/data (copies of public files; see SOURCES.md there) written back
 * through every writer. With the input's dialect and no formula neutralization, the CSV/TSV writer reproduces each
 * file byte for byte: the output opens exactly the way the input did.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeFormula, needsFormulaEscape } from '../../src/output/escape-formula.js';
import { createOutputWriter } from '../../src/output/create-output-writer.js';
import type { OutputFormat, OutputSpec } from '../../src/output/output-writer.js';
import { realDataDir, realRecords } from '../support/real-records.js';
import { expectSameRows } from '../support/same-rows.js';
import { quotePrefixedCells, readBack } from './read-back.js';

interface RealFile {
  name: string;
  delimiter: string;
  bom: boolean;
  lineBreak: '\r\n' | '\n';
}
const FILES: RealFile[] = [
  { name: 'naf-rev2-insee-fr-semicolon-bom.csv', delimiter: ';', bom: true, lineBreak: '\r\n' },
  { name: 'cip-2020-nces.csv', delimiter: ',', bom: false, lineBreak: '\n' },
  { name: 'esco-skills-hierarchy-en.csv', delimiter: ',', bom: false, lineBreak: '\r\n' },
  { name: 'nace-rev2-eurostat-excel-roundtrip.csv', delimiter: ',', bom: false, lineBreak: '\n' },
  { name: 'iab-content-taxonomy-3.1.tsv', delimiter: '\t', bom: false, lineBreak: '\r\n' },
];

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-real-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The file's records, parsed once for its five tests and shared with test/cli/real-files.test.ts (read only). */
const records = (file: RealFile): readonly string[][] => realRecords(file.name, file.delimiter);

async function write(spec: OutputSpec, rows: readonly string[][]): Promise<void> {
  const writer = await createOutputWriter(spec);
  for (const row of rows) await writer.write(row);
  await writer.commit();
}

describe.each(FILES)('$name', (file) => {
  const format: OutputFormat = file.delimiter === '\t' ? 'tsv' : 'csv';

  it('is written back byte for byte in its own dialect', async () => {
    const [header, ...rows] = records(file);
    const target = path.join(dir, file.name);
    await write({ target, columns: header!, delimiter: file.delimiter, bom: file.bom, lineBreak: file.lineBreak, escapeFormulas: false }, rows);
    expect(fs.readFileSync(target).equals(fs.readFileSync(path.join(realDataDir, file.name)))).toBe(true);
  });

  it.each(['csv', 'jsonl', 'xlsx'] as const)('reads back from %s with every cell, formulas neutralized', async (out) => {
    const [header, ...rows] = records(file);
    const columns = out === 'jsonl' ? header!.map((c, i) => c || `column_${i + 1}`) : header!;
    const target = path.join(dir, `${file.name}.${out}`);
    await write({ target, columns, delimiter: file.delimiter, bom: file.bom }, rows);
    // CSV gets a leading `'`; XLSX keeps the text and marks the cell with the quotePrefix style; JSONL neither.
    const escape = (row: string[]) => (out === 'csv' ? row.map(escapeFormula) : row);
    expectSameRows(await readBack(target, out, file.delimiter), [escape(columns), ...rows.map(escape)]);
    if (out === 'xlsx') {
      const needing = [columns, ...rows].flat().filter(needsFormulaEscape).length;
      expect(await quotePrefixedCells(target)).toHaveLength(needing);
      if (file.name.startsWith('nace')) expect(needing).toBeGreaterThan(0);
    }
  });

  it(`neutralizes only cells that start like a formula (${format})`, () => {
    const cells = records(file).flat();
    const changed = cells.filter((c) => escapeFormula(c) !== c);
    for (const c of changed) expect(/^[=+\-@\t\r]/.test(c)).toBe(true);
    if (file.name.startsWith('nace')) {
      // The Excel round-trip turned `- …` bullet cells into #NAME?; the ones left would be damaged the same way.
      expect(changed.length).toBeGreaterThan(0);
      expect(cells).toContain('#NAME?');
      expect(escapeFormula('#NAME?')).toBe('#NAME?');
    }
  });
});
