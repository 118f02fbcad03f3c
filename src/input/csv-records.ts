import { Readable } from 'node:stream';
import { CsvError, Parser, type Options } from 'csv-parse';
import { InputError } from '../errors.js';
import { decodeFile } from './decode-stream.js';
import { lineBreaksInCells, skipLines } from './line-breaks.js';

/** How to read a delimited text file, fixed when it is opened. */
export interface CsvPlan {
  path: string;
  /** The path as the user gave it, for messages. */
  displayPath: string;
  encoding: string;
  /** How the encoding was chosen (`BOM`, `valid UTF-8`, `chardet`, `--encoding`…). */
  encodingSource: string;
  /** Bytes of BOM at the start of the file. */
  bomLength: number;
  /** Physical lines dropped before parsing starts (Excel's `sep=` line, title rows above `--header-row`). */
  skipLines: number;
  delimiter: string;
  quote: string;
  /** Read size in bytes (tests use tiny ones). Default 256 KiB. */
  chunkBytes?: number;
}

/** One parsed record, header included, with the physical line it starts on. */
export interface RawRecord {
  /** 1-based physical line of the file where the record starts. */
  line: number;
  cells: string[];
}

/** A record longer than this (in bytes) is refused: almost always a quote that is never closed. */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/**
 * Streams every record of a delimited file after `plan.skipLines` lines, the header first, blank lines skipped,
 * in batches (arrays of records in file order).
 * Quoted cells may span lines; all cells are kept as text. Lines are counted here (CRLF, LF and lone CR each end one
 * physical line, inside quoted cells too), not taken from csv-parse, whose `info.lines` counts a CRLF inside a
 * quoted cell twice.
 * @throws InputError `INPUT_MALFORMED` (bad quoting, an unclosed quote, a record over 64 MB) naming the line where
 *   the record starts and the field; `INPUT_ENCODING` from decoding.
 */
export async function* streamCsvRecords(plan: CsvPlan): AsyncGenerator<RawRecord[]> {
  const parser = new LinedParser(plan.skipLines + 1, {
    delimiter: plan.delimiter,
    quote: plan.quote,
    escape: plan.quote,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_quotes: false,
    relax_column_count: true,
    skip_empty_lines: true,
    bom: false,
    max_record_size: MAX_RECORD_BYTES,
  });
  const source = Readable.from(skipLines(decodeFile({ ...plan, start: plan.bomLength }), plan.skipLines), {
    objectMode: false,
  });
  let sourceError: Error | undefined;
  source.once('error', (error) => {
    sourceError = error;
    parser.destroy(error);
  });
  source.pipe(parser);
  try {
    yield* drain(parser);
  } catch (error) {
    if (sourceError !== undefined) throw sourceError;
    if (error instanceof CsvError) {
      throw malformed(plan, error, parser.lineAfter(typeof error.empty_lines === 'number' ? error.empty_lines : undefined));
    }
    throw error;
  } finally {
    source.unpipe(parser);
    source.destroy();
    parser.destroy();
  }
}

/**
 * csv-parse's stream parser yielding {@link RawRecord}s: each record with the physical line it starts on. The line is
 * worked out as each record is pushed, from the parser's live `info.empty_lines` (blank lines skipped so far) and the
 * line breaks inside the record's cells. csv-parse's `on_record` hook would give the same counter, but builds a context
 * object of every counter for every record: the whole parse took twice the CPU with it (20,000 short records: 144–189 ms
 * against 63–72 ms, Node 20).
 */
class LinedParser extends Parser {
  /** The physical line the next record starts on when no blank line precedes it. */
  private nextLine: number;
  private emptyLinesSeen = 0;

  constructor(firstLine: number, options: Options) {
    super(options);
    this.nextLine = firstLine;
  }

  /**
   * The line of the record (or error) after the last one pushed, `emptyLines` being csv-parse's count of blank lines
   * skipped by then (without it: as if none followed the last record).
   */
  lineAfter(emptyLines: number = this.emptyLinesSeen): number {
    return this.nextLine + (emptyLines - this.emptyLinesSeen);
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) return super.push(null, encoding);
    const cells = chunk as string[];
    const emptyLines = this.info.empty_lines;
    const line = this.lineAfter(emptyLines);
    this.emptyLinesSeen = emptyLines;
    this.nextLine = line + 1 + lineBreaksInCells(cells);
    const record: RawRecord = { line, cells };
    return super.push(record, encoding);
  }
}

/**
 * Everything the parser has produced so far, as one batch per wake-up: one await per input chunk rather than one
 * per record, which keeps `records()` fast on files of short records.
 */
async function* drain(parser: Readable): AsyncGenerator<RawRecord[]> {
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: Error | undefined;
  const notify = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  parser.on('readable', notify);
  parser.once('end', () => {
    ended = true;
    notify();
  });
  parser.once('error', (error) => {
    failure = error;
    notify();
  });
  for (;;) {
    const batch: RawRecord[] = [];
    for (let record = parser.read() as RawRecord | null; record !== null; record = parser.read() as RawRecord | null) {
      batch.push(record);
    }
    if (batch.length !== 0) {
      yield batch;
      continue;
    }
    if (failure !== undefined) throw failure;
    if (ended) return;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
}

/** Maps a csv-parse error to `INPUT_MALFORMED` with a message that says what to do. */
function malformed(plan: CsvPlan, error: CsvError, line: number): InputError {
  const field = typeof error.column === 'number' ? error.column + 1 : undefined;
  const q = JSON.stringify(plan.quote);
  const where = field === undefined ? 'this record' : `field ${field} of the record starting on this line`;
  let what: string;
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      what = `a quoted field (${q}) opened in the record starting on this line is never closed before the end of the file.`;
      break;
    case 'CSV_INVALID_CLOSING_QUOTE':
      what = `in ${where}, a closing quote ${q} is followed by other text instead of the delimiter or a line break; a quote inside a quoted field must be doubled (${q}${q}).`;
      break;
    case 'INVALID_OPENING_QUOTE':
      what = `in ${where}, a quote ${q} appears inside a field that does not start with a quote; quote the whole field and double the quote, or pass --quote with a character the file does not use.`;
      break;
    case 'CSV_MAX_RECORD_SIZE':
      what = `the record starting on this line is longer than ${MAX_RECORD_BYTES / (1024 * 1024)} MB, which almost always means a quote ${q} that is never closed.`;
      break;
    default:
      what = `the record starting on this line cannot be parsed (${error.code}: ${error.message}).`;
  }
  return new InputError('INPUT_MALFORMED', { file: plan.displayPath, line, column: field }, what, { cause: error });
}
