/** The first records of a CSV file as a smaller input of the same kind, for tests that need its variety, not its size. */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, type Info } from 'csv-parse/sync';

/**
 * Writes to `to` the header line and the first `records` records of the CSV file `from`, byte for byte: quoted line
 * breaks, CRLF and the encoding as they are in `from`.
 * @throws Error when `from` holds fewer than `records` records.
 */
export function writeCsvHead(from: string, to: string, records: number): void {
  const bytes = readFileSync(from);
  // With `info`, each record comes with the bytes read up to its end (the types of csv-parse/sync do not say so).
  const all = parse(bytes, { info: true }) as unknown as Array<{ info: Info }>;
  const last = all[records];
  if (last === undefined) throw new Error(`${from} has ${all.length - 1} records, not ${records}`);
  writeFileSync(to, bytes.subarray(0, last.info.bytes));
}
