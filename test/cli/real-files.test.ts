/**
 * Issue 6: every real spreadsheet in test/fixtures/data (byte-for-byte copies of public files, see its SOURCES.md)
 * classifies with --simulate, as a newcomer runs it: one output row per source record, in order, cells unchanged,
 * every row ok, and a CSV output in the input's own dialect. In-process (test/support/run-main.ts).
 *
 * All five (6,932 records) pack up to 100 rows a request (`--rows-per-request`, answers joined by row id; the 2,848
 * records of cip-2020-nces.csv take 29 requests): every record still goes through the whole run and back out. CPU of
 * the five classify runs, 2 cores: 6.1 s with 25 a request and the TSV one a request, 3.9–4.2 s with 100 (the first
 * run also loads the CLI and warms the tokenizer). One row a request on a real file: the first 300 records of
 * samples/topics.csv (this esco file) in test/cli/kill-resume.test.ts, its first 100 in test/cli/service-tier.test.ts.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realDataDir, realRecords } from '../support/real-records.js';
import { expectSameRows } from '../support/same-rows.js';
import { runMain } from '../support/run-main.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gb-real-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Rows packed into one request (`--rows-per-request`), every file. */
const PACK = 100;

interface Case {
  file: string;
  records: number;
  prompt: string;
  args?: string[];
  /**
   * How to read the source for comparison (csv-parse, test/support/real-records.ts): its delimiter, whether it starts
   * with a BOM, and the records above the header (the IAB file's title row).
   */
  read: { delimiter: string; bom?: boolean; aboveHeader?: number };
}

const cases: Case[] = [
  {
    file: 'esco-skills-hierarchy-en.csv',
    records: 656,
    prompt: 'Relevant to backend engineers? {{Level 1 preferred term}} / {{Level 2 preferred term}} / {{Level 3 preferred term}}: {{Description}} {{Scope note}}',
    read: { delimiter: ',' },
  },
  { file: 'cip-2020-nces.csv', records: 2848, prompt: 'Hiring target for a renewable-energy firm? {{CIPTitle}}: {{CIPDefinition}} {{Examples}}', read: { delimiter: ',' } },
  {
    file: 'naf-rev2-insee-fr-semicolon-bom.csv',
    records: 1728,
    prompt: 'Food supply chain? {{Intitulés de la  NAF rév. 2, version finale}}',
    read: { delimiter: ';', bom: true },
  },
  { file: 'nace-rev2-eurostat-excel-roundtrip.csv', records: 996, prompt: 'Cybersecurity customer? {{Description}} {{This item includes}} {{This item excludes}}', read: { delimiter: ',' } },
  {
    file: 'iab-content-taxonomy-3.1.tsv',
    records: 704,
    prompt: 'Ads for camping gear next to this? {{Name}} ({{Tier 1}} > {{Tier 2}} > {{Tier 3}} > {{Tier 4}})',
    args: ['--header-row', '2'],
    read: { delimiter: '\t', aboveHeader: 1 },
  },
];

describe.each(cases)('$file', (c) => {
  it(`classifies all ${c.records} records with --simulate, cells unchanged, in the input's dialect`, async () => {
    copyFileSync(path.join(realDataDir, c.file), path.join(dir, c.file));
    const result = await runMain(['classify', c.file, '--prompt', c.prompt, '--labels', 'yes,no', '--simulate', '--no-escape-formulas', '--rows-per-request', String(PACK), ...(c.args ?? [])], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`packs of up to ${PACK}`);
    const stem = path.parse(c.file).name;
    const outputBytes = readFileSync(path.join(dir, `${stem}.classified.csv`));
    // The source as csv-parse reads it (strict: every record as wide as the header), parsed once per process and shared
    // with test/output/real-data.test.ts; the file copied to `dir` is the same bytes.
    const source = realRecords(c.file, c.read.delimiter).slice(c.read.aboveHeader ?? 0);
    const output = parse(outputBytes, { delimiter: c.read.delimiter, bom: true });
    expect(output).toHaveLength(c.records + 1);
    expect(source).toHaveLength(c.records + 1);
    const width = source[0]!.length;
    expect(output[0]!.slice(-3)).toEqual(['label', 'status', 'error']);
    // Whole-table comparisons, cell by cell with === (one expect per row, or vitest's deep toEqual over thousands of
    // rows, would cost more than the run): cells unchanged and in order…
    expectSameRows(
      output.slice(1).map((row) => row.slice(0, width)),
      source.slice(1),
    );
    // …and every row ok with a valid label.
    expect(output.slice(1).filter((row) => row.at(-2) !== 'ok' || !['yes', 'no'].includes(row.at(-3) ?? ''))).toEqual([]);
    expect(outputBytes.includes(Buffer.from('\uFFFD'))).toBe(false);
    expect(outputBytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(c.read.bom ?? false);
  });
});
