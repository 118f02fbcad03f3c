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

/** Base class of every deliberate gemini-batch error. */
export class GeminiBatchError extends Error {
  /** Stable machine-readable code, e.g. `USAGE_UNKNOWN_COLUMN`. */
  readonly code: string;
  /** The exit code the CLI ends with when this error stops it. */
  readonly exitCode: ExitCode;

  constructor(code: string, message: string, exitCode: ExitCode, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** A bad command line, option value, keys file or template: exit 2, before any API call. */
export class UsageError extends GeminiBatchError {
  constructor(code: string, message: string, options?: ErrorOptions) {
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

  constructor(code: string, position: FilePosition, message: string, options?: ErrorOptions) {
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
