/**
 * CSV output: the input's delimiter, an optional UTF-8 BOM and Excel `sep=` line, cells quoted only when they must be
 * (delimiter, quote, CR or LF inside; quotes doubled), CRLF between records unless told otherwise — what Excel writes
 * and reads.
 */
import { stringify } from 'csv-stringify/sync';
import { UsageError } from '../errors.js';
import { escapeFormula } from './escape-formula.js';
import type { OutputSpec, OutputWriter } from './output-writer.js';
import { createTextWriter } from './text-writer.js';

/**
 * Writes `spec.target` as CSV with `spec.delimiter` (default `,`), `spec.lineBreak` (default CRLF), `spec.bom` and
 * `spec.sepLine` (a first line `sep=;` for delimiter `;`, as Excel writes it); neutralizes formulas
 * (./escape-formula.ts) in every cell, the header included, unless `spec.escapeFormulas` is false.
 * @throws UsageError code `OUTPUT_INVALID_OPTION` (exit 2) for a delimiter that is not one character other than
 *   `"`, CR or LF; `OUTPUT_UNWRITABLE` when the target cannot be created.
 */
export function createCsvWriter(spec: OutputSpec): Promise<OutputWriter> {
  return createDelimitedWriter(spec, 'csv', spec.delimiter ?? ',');
}

/** The CSV or TSV writer of `spec` with `delimiter` (see {@link createCsvWriter}); only CSV writes a `sep=` line. */
export function createDelimitedWriter(spec: OutputSpec, format: 'csv' | 'tsv', delimiter: string): Promise<OutputWriter> {
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\r' || delimiter === '\n') {
    throw new UsageError('OUTPUT_INVALID_OPTION', `the output delimiter must be one character other than a quote or a line break, got ${JSON.stringify(delimiter)}`);
  }
  const options = {
    delimiter,
    quote: '"',
    record_delimiter: spec.lineBreak ?? '\r\n',
    quote_record_delimiter: true, // quote a bare CR or LF even when the record delimiter is CRLF
    eof: true,
  };
  const escape = spec.escapeFormulas !== false;
  const encode = (cells: readonly string[]): string => stringify([escape ? cells.map(escapeFormula) : cells], options);
  const sepLine = format === 'csv' && spec.sepLine === true ? `sep=${delimiter}${options.record_delimiter}` : '';
  const preamble = (spec.bom ? '\ufeff' : '') + sepLine + encode(spec.columns);
  return createTextWriter(spec.target, format, spec.columns.length, preamble, encode, spec.stdout);
}
