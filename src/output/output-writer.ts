/**
 * The contract between output writing (src/output) and the job. Implemented by `createOutputWriter` in
 * ./create-output-writer.ts.
 */

/** Output formats, chosen by the output file's extension (`.csv` default, `.tsv`, `.jsonl`, `.xlsx`). */
export type OutputFormat = 'csv' | 'tsv' | 'jsonl' | 'xlsx';

export interface OutputSpec {
  /** A file path, or `-` for CSV on stdout. */
  target: string;
  /** Where `-` writes: the command's stdout (`Io.stdout`). Default `process.stdout`. */
  stdout?: NodeJS.WritableStream;
  /** Header cells, in order: every input column, then the result columns (`label`…), `status`, `error`. */
  columns: string[];
  /** Overrides the format the extension implies. */
  format?: OutputFormat;
  /** CSV only: the input's delimiter, so the file opens the way the input did. Default `,`. */
  delimiter?: string;
  /** CSV/TSV only: start with a UTF-8 BOM (when the input had one). Default false. */
  bom?: boolean;
  /**
   * CSV only (a `.csv` target or `-o -`): start with Excel's `sep=X` line, X the delimiter, as the input did
   * (`InputDialect.sepLine`), so Excel splits the columns whatever the reader's locale. After the BOM, before the
   * header. Ignored for TSV, JSONL and XLSX. Default false.
   */
  sepLine?: boolean;
  /** Prefix cells that begin with = + - @ TAB CR with `'` (CSV, TSV, XLSX). Default true. */
  escapeFormulas?: boolean;
  /** CSV/TSV only: the record separator, e.g. the input's (`InputDialect.lineBreak`). Default `\r\n`, as Excel writes. */
  lineBreak?: '\r\n' | '\n';
  /**
   * Called with a sentence for each change the format forces on the data, e.g. an XLSX cell cut to Excel's
   * 32,767 characters. Default: ignored.
   */
  onWarning?: (message: string) => void;
}

/**
 * Writes rows in the order given to a temporary file beside the target; `commit()` renames it over the target,
 * so a reader never sees a half-written file.
 */
export interface OutputWriter {
  /** The format being written. */
  readonly format: OutputFormat;
  /** Appends one row; `cells.length` equals `columns.length`. Resolves when the row is accepted (backpressure). */
  write(cells: readonly string[]): Promise<void>;
  /** Flushes, fsyncs and renames the temporary file onto the target. */
  commit(): Promise<void>;
  /** Removes the temporary file; the target is left as it was. */
  abort(): Promise<void>;
}
