/**
 * TSV output: TAB-delimited, as Excel saves "Text (Tab delimited)": a cell holding a TAB, CR, LF or `"` is quoted,
 * its quotes doubled; others are written as they are.
 */
import { createDelimitedWriter } from './csv-writer.js';
import type { OutputSpec, OutputWriter } from './output-writer.js';

/**
 * Writes `spec.target` as TSV (`spec.delimiter` is ignored); line breaks, BOM and formula neutralization as for CSV.
 * @throws UsageError code `OUTPUT_UNWRITABLE` (exit 2) when the target cannot be created.
 */
export function createTsvWriter(spec: OutputSpec): Promise<OutputWriter> {
  return createDelimitedWriter(spec, 'tsv', '\t');
}
