/** Which output format a file name asks for, and the default output path. */
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { OutputFormat } from './output-writer.js';

/** Extensions (lowercase) and the format each one selects. */
const BY_EXTENSION: Record<string, OutputFormat> = { '': 'csv', '.csv': 'csv', '.tsv': 'tsv', '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.xlsx': 'xlsx' };

/**
 * The format a target's extension selects, case-insensitively: `.csv` (and no extension) → csv, `.tsv` → tsv,
 * `.jsonl`/`.ndjson` → jsonl, `.xlsx` → xlsx; `-` (stdout) → csv.
 * @throws UsageError code `OUTPUT_UNSUPPORTED_FORMAT` (exit 2) for any other extension.
 */
export function outputFormatFor(target: string): OutputFormat {
  if (target === '-') return 'csv';
  const ext = path.extname(target).toLowerCase();
  const format = BY_EXTENSION[ext];
  if (format === undefined) {
    throw new UsageError(
      'OUTPUT_UNSUPPORTED_FORMAT',
      `cannot write ${target}: the extension ${ext} is not an output format; use .csv, .tsv, .jsonl (or .ndjson) or .xlsx`,
    );
  }
  return format;
}

/** `<input dir>/<input name without its extension>.classified.csv`, e.g. `data/topics.xlsx` → `data/topics.classified.csv`. */
export function defaultOutputPath(input: string): string {
  const { dir, name } = path.parse(input);
  return path.join(dir, `${name}.classified.csv`);
}
