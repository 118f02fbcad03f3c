/**
 * The contract between spreadsheet reading (src/input) and the rest of gemini-batch.
 * Implemented by `openInput` in ./open-input.ts.
 */

/** Options that override what is detected; each maps to a CLI flag of `classify`. */
export interface InputOptions {
  /** `--encoding`: an iconv-lite encoding name (utf-8, utf-16le, utf-16be, windows-1252, latin1…). Default: detected. */
  encoding?: string;
  /** `--delimiter`: one character; `\t` and the word `tab` mean TAB. Default: detected among `,` `;` TAB `|`. */
  delimiter?: string;
  /** `--quote`: one character. Default: `"`. */
  quote?: string;
  /** `--header-row`: 1-based number of the line (CSV) or sheet row (XLSX) that holds the header. Default 1. */
  headerRow?: number;
  /** `--sheet`: XLSX sheet name, or its 1-based index as a string. Default: the first sheet. */
  sheet?: string;
  /** `--relax-column-count`: pad short records with empty cells and keep extra fields instead of refusing them. */
  relaxColumnCount?: boolean;
}

/** How the file was read; a CSV output written back keeps delimiter and BOM. */
export interface InputDialect {
  format: 'csv' | 'xlsx';
  /** iconv-lite name of the decoding used, e.g. `utf-8`, `utf-16le`, `windows-1252`. (`utf-8` for XLSX.) */
  encoding: string;
  /** The file starts with a byte-order mark. */
  bom: boolean;
  /** Field delimiter (`,` for XLSX). */
  delimiter: string;
  /** Quote character. */
  quote: string;
  /** The file's first line was Excel's `sep=X`. */
  sepLine: boolean;
  /** The record separator seen first: CRLF or LF. */
  lineBreak: '\r\n' | '\n';
  /** XLSX only: the sheet read. */
  sheet?: string;
}

/** One data record, never the header. */
export interface InputRecord {
  /** 0-based index among data records: the row id, stable across runs of the same file. */
  index: number;
  /** 1-based physical line of the file where the record starts (sheet row for XLSX). */
  line: number;
  /** Every cell as text, one per entry of `InputSource.columns` (padded when relaxed). Leading zeros are kept. */
  cells: string[];
  /** Hash of the record's cells (stable across runs; identical records have identical fingerprints), computed on first read. */
  readonly fingerprint: string;
}

/** An opened spreadsheet. Opening reads only the head of the file; `records()` streams it. */
export interface InputSource {
  /** The path as the user gave it (used in messages). */
  path: string;
  dialect: InputDialect;
  /**
   * Column names after cleaning, what `{{Column}}` templates use: outer whitespace trimmed, blank names →
   * `column_N` (N = 1-based position), repeats → `name_2`, `name_3`.
   */
  columns: string[];
  /**
   * The header cells for the output, one per entry of `columns`: the text exactly as in the file for a column whose
   * name was kept or only trimmed (` Intitulés ` stays ` Intitulés `), the name in `columns` for a blank or repeated
   * one (`column_N`, `name_2`) and for the extra columns of `--relax-column-count` (`column_N`).
   */
  headerCells: string[];
  /** One line per renamed column, e.g. `column 8 has no name; called it column_8`. */
  headerNotes: string[];
  /**
   * Header names that stood for more than one column before suffixes were added (`Name`, `Name` → `Name`, `Name_2`):
   * a `{{Name}}` placeholder is ambiguous. Empty when every name was unique.
   */
  ambiguousColumns: string[];
  /** One line for the run's header, e.g. `UTF-8 with BOM, ';' delimited, CRLF, header on line 1, 2 columns`. */
  describe(): string;
  /** Size of the file in bytes. */
  size: number;
  /**
   * Streams the data records in file order, from the first record after the header — or from `from`, a record
   * whose index and starting line an earlier pass reported (a resumed job skips what is done without parsing it).
   * Can be called again (each call re-reads the file). Blank lines are skipped. Holds only a bounded window of the file
   * in memory.
   * @throws InputError (code `INPUT_COLUMN_COUNT`, `INPUT_MALFORMED`…) naming the line, while iterating.
   */
  records(options?: { from?: RecordPosition }): AsyncIterable<InputRecord>;
  /**
   * The first `count` non-blank records after the header as they are in the file: line and cells, not fitted to the
   * columns (a record may have more or fewer cells than there are columns, without error). For messages, e.g. to find
   * the real header under a title row. Absent where `records()` never refuses a record for its field count (XLSX):
   * use `records()` there.
   * @throws InputError `INPUT_MALFORMED`, `INPUT_ENCODING` while reading.
   */
  sampleRecords?(count: number): Promise<SampledRecord[]>;
}

/** A record as read, for messages (`InputSource.sampleRecords`). */
export interface SampledRecord {
  /** 1-based physical line where it starts (sheet row for XLSX). */
  line: number;
  cells: string[];
}

/** Where a record starts: its index and the 1-based physical line of its first character (InputRecord.line). */
export interface RecordPosition {
  index: number;
  line: number;
}
