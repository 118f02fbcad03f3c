/**
 * The five real files of test/fixtures/data (public files copied byte for byte, see SOURCES.md there): record counts from
 * SOURCES.md, clean headers, text without U+FFFD, known cells exact, and record lines that point at the record.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { openInput } from '../../src/input/open-input.js';
import type { InputOptions, InputRecord, InputSource } from '../../src/input/input-source.js';
import { fixture, readAll } from './helpers.js';

interface RealFile {
  name: string;
  options: InputOptions;
  records: number;
  columns: number;
  describe: string;
}

const FILES: RealFile[] = [
  { name: 'iab-content-taxonomy-3.1.tsv', options: { headerRow: 2 }, records: 704, columns: 8, describe: 'UTF-8, TAB delimited, CRLF, header on line 2, 8 columns' },
  { name: 'esco-skills-hierarchy-en.csv', options: {}, records: 656, columns: 10, describe: "UTF-8, ',' delimited, CRLF, header on line 1, 10 columns" },
  { name: 'cip-2020-nces.csv', options: {}, records: 2848, columns: 8, describe: "UTF-8, ',' delimited, LF, header on line 1, 8 columns" },
  { name: 'naf-rev2-insee-fr-semicolon-bom.csv', options: {}, records: 1728, columns: 2, describe: "UTF-8 with BOM, ';' delimited, CRLF, header on line 1, 2 columns" },
  { name: 'nace-rev2-eurostat-excel-roundtrip.csv', options: {}, records: 996, columns: 10, describe: "UTF-8, ',' delimited, LF, header on line 1, 10 columns" },
];

const opened = new Map<string, { source: InputSource; records: InputRecord[] }>();
async function load(file: RealFile): Promise<{ source: InputSource; records: InputRecord[] }> {
  let entry = opened.get(file.name);
  if (!entry) {
    const source = await openInput(fixture(file.name), file.options);
    entry = { source, records: await readAll(source) };
    opened.set(file.name, entry);
  }
  return entry;
}

function cell(source: InputSource, record: InputRecord | undefined, column: string): string | undefined {
  const i = source.columns.indexOf(column);
  expect(i, `column ${column}`).toBeGreaterThanOrEqual(0);
  return record?.cells[i];
}

describe.each(FILES)('$name', (file) => {
  test('has the record count of SOURCES.md, every record as wide as the header', async () => {
    const { source, records } = await load(file);
    expect(records).toHaveLength(file.records);
    expect(source.columns).toHaveLength(file.columns);
    // One assertion over all records (an expect per record cost more than reading the file): the lines of those of
    // another width, and the first record whose index is not its position.
    expect(records.filter((r) => r.cells.length !== file.columns).map((r) => `line ${r.line}: ${r.cells.length} cells`)).toEqual([]);
    expect(records.findIndex((r, i) => r.index !== i)).toBe(-1);
  });

  test('is described as detected', async () => {
    const { source } = await load(file);
    expect(source.describe()).toBe(file.describe);
    expect(source.dialect.format).toBe('csv');
  });

  test('decodes without U+FFFD and keeps header names unique and non-blank', async () => {
    const { source, records } = await load(file);
    expect(records.filter((record) => record.cells.some((text) => text.includes('\uFFFD'))).map((r) => r.line)).toEqual([]);
    expect(new Set(source.columns).size).toBe(source.columns.length);
    expect(source.columns.filter((name) => name.trim() !== name)).toEqual([]);
    expect(source.columns.some((name) => name.includes('\uFEFF'))).toBe(false);
  });

  test('gives each record the physical line it starts on', async () => {
    const { records } = await load(file);
    const lines = readFileSync(fixture(file.name), 'utf8').replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
    const wrong = records.filter((record) => {
      const text = lines[record.line - 1] ?? '';
      const first = (record.cells[0] ?? '').split(/\r\n|\n|\r/)[0] ?? '';
      return !(text.startsWith(first) || text.startsWith(`"${first.replaceAll('"', '""')}`));
    });
    expect(wrong.map((r) => `line ${r.line}`)).toEqual([]);
    const ordered = records.every((r, i) => i === 0 || r.line > (records[i - 1]?.line ?? 0));
    expect(ordered).toBe(true);
  });
});

describe('quirks of each real file', () => {
  test('IAB: --header-row 2 takes the real header; its blank 8th cell becomes column_8', async () => {
    const file = FILES[0] as RealFile;
    const { source, records } = await load(file);
    expect(source.columns).toEqual(['Unique ID', 'Parent', 'Name', 'Tier 1', 'Tier 2', 'Tier 3', 'Tier 4', 'column_8']);
    expect(source.headerNotes).toContain('column 8 has no name; called it column_8');
    expect(records[0]?.line).toBe(3);
    expect(records.filter((r) => cell(source, r, 'column_8') === 'SCD')).toHaveLength(63);
  });

  test('IAB without --header-row: the group-title row is the header (and still 704 + 1 records)', async () => {
    const source = await openInput(fixture('iab-content-taxonomy-3.1.tsv'), {});
    expect(source.columns[0]).toBe('Relational ID System');
    expect(await readAll(source)).toHaveLength(705);
  });

  test('ESCO: a multi-line cell keeps its LF; the stray U+009D and NBSPs are kept', async () => {
    const { source, records } = await load(FILES[1] as RealFile);
    expect(cell(source, records[1], 'Scope note')).toBe('Excludes:\n- Communication or interaction with animals');
    expect(cell(source, records[1], 'Level 1 preferred term')).toBe('communication, collaboration and creativity');
    expect(records.filter((r) => r.cells.some((c) => c.includes('\n')))).toHaveLength(426);
    expect(records.some((r) => r.cells.some((c) => c.includes('\u009d')))).toBe(true);
    expect(records.some((r) => r.cells.some((c) => c.includes('\u00a0')))).toBe(true);
    expect(records.filter((r) => cell(source, r, 'Description') !== '')).toHaveLength(524);
  });

  test('CIP: codes keep their leading zeros as text', async () => {
    const { source, records } = await load(FILES[2] as RealFile);
    expect(cell(source, records[0], 'CIPFamily')).toBe('01');
    const program = records.find((r) => cell(source, r, 'CIPCode') === '01.0101');
    expect(cell(source, program, 'CIPTitle')).toBe('Agricultural Business and Management, General.');
    expect(cell(source, program, 'CIPDefinition')).toContain('A  general program');
    expect(records.filter((r) => cell(source, r, 'Action') === 'Deleted')).toHaveLength(12);
  });

  test('NAF: BOM stripped from the first header, outer spaces of the second trimmed and reported, ";" inside quotes kept', async () => {
    const { source, records } = await load(FILES[3] as RealFile);
    expect(source.dialect).toMatchObject({ encoding: 'utf-8', bom: true, delimiter: ';', lineBreak: '\r\n', sepLine: false });
    expect(source.columns).toEqual(['Code', 'Intitulés de la  NAF rév. 2, version finale']);
    expect(source.headerNotes.join('\n')).toContain('" Intitulés de la  NAF rév. 2, version finale "');
    const label = 'Intitulés de la  NAF rév. 2, version finale';
    expect(cell(source, records.find((r) => r.cells[0] === '10.6'), label)).toBe('Travail des grains ; fabrication de produits amylacés');
    expect(records.filter((r) => (r.cells[1] ?? '').includes(';'))).toHaveLength(21);
    expect(cell(source, records.find((r) => r.cells[0] === '88.99A'), label)).toBe('Autre accueil ou accompagnement sans hébergement d’enfants\n et d’adolescents\n');
    expect(records[0]?.cells).toEqual(['SECTION A', 'AGRICULTURE, SYLVICULTURE ET PÊCHE']);
  });

  test('NACE: #NAME? cells and numeric-looking codes are kept as text', async () => {
    const { source, records } = await load(FILES[4] as RealFile);
    expect(records.filter((r) => cell(source, r, 'Rulings') === '#NAME?')).toHaveLength(132);
    const plant = records.find((r) => cell(source, r, 'Order') === '398502');
    expect(cell(source, plant, 'Code')).toBe('1.3');
    expect(cell(source, plant, 'Description')).toBe('Plant propagation');
    expect(records.filter((r) => r.cells.some((c) => c.includes('\n')))).toHaveLength(647);
    expect(Math.max(...records.flatMap((r) => r.cells.map((c) => c.length)))).toBeGreaterThan(5000);
  });
});
