/**
 * The errors gemini-batch raises on purpose. Each has a stable `code`; callers branch on the class
 * (or the code), never on the message text. Style after node-csv's `CsvError` and openai-node's
 * error hierarchy (docs/design.md "Style to follow").
 */

/** Exit codes of the CLI contract (docs/design.md "Exit codes"), plus 4 for a bug. */
export const ExitCode = {
  /** Every row ended `ok`. */
  Ok: 0,
  /** The job finished and some rows are not `ok`. */
  SomeRowsNotOk: 1,
  /** Usage or input error, found before any API call. */
  Usage: 2,
  /** Stopped early and resumable: interrupted, daily quota exhausted, every key parked. */
  Stopped: 3,
  /** An unexpected internal error (a bug in gemini-batch); the journal is still consistent. */
  Internal: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The stable `code` of every {@link GeminiBatchError}: what scripts and tests may rely on (the message may change).
 * The prefix names where the error was found; a code not listed here does not compile.
 */
export type ErrorCode =
  /** The command line and its options (src/config/). */
  | 'OPTION_CONFLICT'
  | 'OPTION_FILE_UNREADABLE'
  | 'OPTION_INVALID'
  | 'OPTION_MISSING'
  | 'BASE_URL_CREDENTIALS'
  | 'PRICE_UNKNOWN'
  | 'THINKING_CANNOT_BE_OFF'
  | 'BATCH_UNSUPPORTED'
  | 'BATCH_NOT_REACHABLE'
  | 'COUNT_TOKENS_FAILED'
  | 'COUNT_TOKENS_UNAVAILABLE'
  /** Keys and the keys file. */
  | 'KEYS_ALL_REFUSED'
  | 'KEYS_DUPLICATE'
  | 'KEYS_FILE_INVALID'
  | 'KEYS_FILE_UNREADABLE'
  | 'KEYS_MISSING'
  /** The spreadsheet and the options that say how to read it (src/input/). */
  | 'INPUT_BINARY'
  | 'INPUT_COLUMN_COUNT'
  | 'INPUT_EMPTY'
  | 'INPUT_ENCODING'
  | 'INPUT_MALFORMED'
  | 'INPUT_NOT_A_FILE'
  | 'INPUT_NOT_FOUND'
  | 'INPUT_NO_ROWS'
  | 'INPUT_SHEET_NOT_FOUND'
  | 'INPUT_UNREADABLE'
  | 'INPUT_UNSUPPORTED_FORMAT'
  | 'USAGE_INVALID_DELIMITER'
  | 'USAGE_INVALID_ENCODING'
  | 'USAGE_INVALID_HEADER_ROW'
  | 'USAGE_INVALID_QUOTE'
  | 'USAGE_SHEET_NOT_XLSX'
  /** The prompt: template, labels, schema, examples (src/prompt/). */
  | 'TEMPLATE_AMBIGUOUS_COLUMN'
  | 'TEMPLATE_NO_PLACEHOLDER'
  | 'TEMPLATE_UNCLOSED_PLACEHOLDER'
  | 'TEMPLATE_UNKNOWN_COLUMN'
  | 'LABELS_INVALID'
  | 'SCHEMA_INVALID'
  | 'EXAMPLES_INVALID'
  /** The job directory, its manifest and journal (src/journal/). */
  | 'JOB_DIR_FOREIGN_FILES'
  | 'JOB_DIR_NOT_A_DIRECTORY'
  | 'JOB_DIR_SYMLINK'
  | 'JOB_DIR_UNWRITABLE'
  | 'JOB_LOCKED'
  | 'JOB_MANIFEST_MISMATCH'
  | 'JOURNAL_CLOSED'
  | 'JOURNAL_CORRUPT'
  | 'JOURNAL_INVALID_ENTRY'
  | 'JOURNAL_INVALID_OPTION'
  | 'JOURNAL_MANIFEST_INVALID'
  | 'JOURNAL_SYNC_FAILED'
  | 'JOURNAL_UNREADABLE'
  | 'JOURNAL_WRITE_FAILED'
  | 'BATCH_LOG_CORRUPT'
  | 'BATCH_LOG_UNREADABLE'
  | 'BATCH_LOG_WRITE_FAILED'
  /** The output file (src/output/). */
  | 'OUTPUT_CELL_COUNT'
  | 'OUTPUT_DUPLICATE_COLUMN'
  | 'OUTPUT_INVALID_OPTION'
  | 'OUTPUT_IS_INPUT'
  | 'OUTPUT_UNSUPPORTED_FORMAT'
  | 'OUTPUT_UNWRITABLE'
  | 'OUTPUT_WRITE_FAILED'
  | 'OUTPUT_XLSX_LIMIT'
  /** status, report and cancel without a job. */
  | 'STATUS_NO_JOB'
  | 'REPORT_NO_JOB'
  | 'REPORT_UNWRITABLE'
  | 'CANCEL_NO_JOB'
  /** The simulator command and its scenario file. */
  | 'SIM_OPTION_INVALID'
  | 'SIM_PORT_IN_USE'
  | 'SIM_SCENARIO_INVALID'
  | 'SIM_SCENARIO_UNREADABLE';

/** Base class of every deliberate gemini-batch error. */
export class GeminiBatchError extends Error {
  /** Stable machine-readable code, e.g. `USAGE_UNKNOWN_COLUMN`. */
  readonly code: ErrorCode;
  /** The exit code the CLI ends with when this error stops it. */
  readonly exitCode: ExitCode;

  constructor(code: ErrorCode, message: string, exitCode: ExitCode, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** A bad command line, option value, keys file or template: exit 2, before any API call. */
export class UsageError extends GeminiBatchError {
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, ExitCode.Usage, options);
  }
}

/** Where in a file an input error was found. Lines and columns are 1-based. */
export interface FilePosition {
  /** The file as the user named it. */
  file: string;
  /** 1-based physical line in the file (a record with line breaks inside cells spans several). */
  line?: number;
  /** 1-based column: the field number for CSV records, the character for text lines. */
  column?: number;
}

/**
 * An input file (spreadsheet, prompt, labels, keys, scenario) that cannot be read as asked: exit 2.
 * The message starts with `file:line:column:` as compilers print it.
 */
export class InputError extends GeminiBatchError {
  readonly file: string;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(code: ErrorCode, position: FilePosition, message: string, options?: ErrorOptions) {
    const where = [position.file, position.line, position.line !== undefined ? position.column : undefined]
      .filter((part) => part !== undefined)
      .join(':');
    super(code, `${where}: ${message}`, ExitCode.Usage, options);
    this.file = position.file;
    this.line = position.line;
    this.column = position.column;
  }
}

/**
 * The job directory holds another job's results (a different input, prompt, model or labels): exit 2.
 * `differences` lists each differing setting; `--restart` discards the directory.
 */
export class JobMismatchError extends GeminiBatchError {
  readonly differences: readonly string[];

  constructor(jobDir: string, differences: readonly string[]) {
    super(
      'JOB_MANIFEST_MISMATCH',
      `${jobDir} belongs to another job:\n${differences.map((d) => `  - ${d}`).join('\n')}\n` +
        'Run with --restart to discard its results and start over, or choose another --job-dir.',
      ExitCode.Usage,
    );
    this.differences = differences;
  }
}
