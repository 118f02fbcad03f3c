/** Picks the writer of an output spec's format. */
import { UsageError } from '../errors.js';
import { createCsvWriter } from './csv-writer.js';
import { createJsonlWriter } from './jsonl-writer.js';
import { outputFormatFor } from './output-format.js';
import type { OutputSpec, OutputWriter } from './output-writer.js';
import { createTsvWriter } from './tsv-writer.js';

export { defaultOutputPath, outputFormatFor } from './output-format.js';

/**
 * Opens a writer for `spec`: the format is `spec.format`, else the one `spec.target`'s extension selects
 * ({@link outputFormatFor}); `-` writes to stdout, CSV unless `spec.format` says TSV or JSONL. Rows go to `.<name>.tmp-<pid>` beside the target, renamed
 * onto it by `commit()`.
 * @throws UsageError (exit 2), before anything is written: `OUTPUT_UNSUPPORTED_FORMAT` (unknown extension),
 *   `OUTPUT_UNWRITABLE` (missing folder, a directory, no permission), `OUTPUT_INVALID_OPTION`,
 *   `OUTPUT_DUPLICATE_COLUMN` (JSONL), `OUTPUT_XLSX_LIMIT` (XLSX).
 */
export async function createOutputWriter(spec: OutputSpec): Promise<OutputWriter> {
  const format = spec.format ?? (spec.target === '-' ? 'csv' : outputFormatFor(spec.target));
  if (spec.target === '-' && format === 'xlsx') {
    throw new UsageError('OUTPUT_INVALID_OPTION', 'XLSX cannot be written to stdout (-o -); name an .xlsx file');
  }
  switch (format) {
    case 'csv':
      return createCsvWriter(spec);
    case 'tsv':
      return createTsvWriter(spec);
    case 'jsonl':
      return createJsonlWriter(spec);
    case 'xlsx': {
      // exceljs takes ~0.3 s to load: only an XLSX output pays for it.
      const { createXlsxWriter } = await import('./xlsx-writer.js');
      return createXlsxWriter(spec);
    }
  }
}
