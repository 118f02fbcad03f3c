/**
 * The real spreadsheets of test/fixtures/data (public files copied byte for byte, see SOURCES.md there) as csv-parse
 * reads them, independently of gemini-batch's own reader: the reference the tests compare outputs with.
 *
 * Each file is parsed once per process and the rows shared: with vitest's `isolate: false` a worker keeps this module
 * across test files, so test/output/real-data.test.ts and test/cli/real-files.test.ts parse a file once between them
 * when they share a worker (cip-2020-nces.csv alone is ~1 MB). Callers must not change the rows.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { repoRoot } from './fixtures.js';

/** The folder of the real files. */
export const realDataDir = path.join(repoRoot, 'test', 'fixtures', 'data');

const parsed = new Map<string, readonly string[][]>();

/**
 * Every record of a real file, physical line 1 first (so a title row above the header too), each as its cells (text),
 * with a BOM dropped. Strict: every record must have as many fields as the first.
 * @param name file name in test/fixtures/data, e.g. `cip-2020-nces.csv`.
 * @param delimiter the file's field delimiter (`,` `;` or TAB).
 * @throws CsvError from csv-parse when the file does not parse that way.
 */
export function realRecords(name: string, delimiter: string): readonly string[][] {
  const key = `${name}\u0000${delimiter}`;
  let rows = parsed.get(key);
  if (rows === undefined) {
    rows = parse(readFileSync(path.join(realDataDir, name)), { delimiter, bom: true });
    parsed.set(key, rows);
  }
  return rows;
}
