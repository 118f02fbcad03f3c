/** Reads a job's journal from outside the process that writes it, as the kill tests watch it grow. */
import { readFileSync } from 'node:fs';

/**
 * The rows with a whole journal line in `file` (`<job dir>/journal.jsonl`): a torn last line is not a result, and a
 * journal not created yet holds no row.
 */
export function journaledRows(file: string): Set<number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return new Set();
  }
  const rows = new Set<number>();
  for (const line of text.split('\n')) {
    try {
      rows.add((JSON.parse(line) as { row: number }).row);
    } catch {
      // a torn last line, or the empty string after the last newline
    }
  }
  return rows;
}

/**
 * The whole lines in `file` (0 when it does not exist yet): cheaper than {@link journaledRows} for a test that polls
 * while the journal grows, and the same count while each row is journaled once.
 */
export function journalLineCount(file: string): number {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return 0;
  }
  let lines = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines++;
  return lines;
}
