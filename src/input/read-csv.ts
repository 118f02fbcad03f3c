import { open } from 'node:fs/promises';
import iconv from 'iconv-lite';
import { InputError } from '../errors.js';
import { streamCsvRecords, type CsvPlan, type RawRecord } from './csv-records.js';
import { columnCountError, effectiveFieldCount, fitColumnCount, MAX_BAD_RECORDS_NAMED, type BadFieldCount } from './column-count.js';
import { binaryEvidence, type BinaryEvidence } from './binary-sniff.js';
import { describeDialect } from './describe-dialect.js';
import { detectBom, detectEncoding, type DetectedEncoding } from './detect-encoding.js';
import { cleanHeader } from './header.js';
import type { InputDialect, InputRecord, InputSource, RecordPosition, SampledRecord } from './input-source.js';
import { detectLineBreak, offsetAfterLines } from './line-breaks.js';
import type { NormalizedInputOptions } from './normalize-options.js';
import { LazyRecord } from './row-identity.js';
import { readSepLine } from './sep-line.js';
import { sniffDelimiter } from './sniff-delimiter.js';

/** Bytes read at open to detect encoding, `sep=` line, delimiter and line breaks. */
export const HEAD_BYTES = 64 * 1024;

/** What `openCsv` needs besides the options. */
export interface CsvFile {
  path: string;
  displayPath: string;
  size: number;
  /** The file name ends in `.tsv` (TAB preferred when sniffing ties). */
  tsv: boolean;
}

/**
 * Opens a delimited text file (CSV, TSV, TXT): reads its first 64 KB to detect the encoding, Excel's `sep=` line,
 * the delimiter and the line breaks, then streams up to the header (the first non-blank record at or after
 * `--header-row`). In relax mode only, the whole file is pre-scanned once for its widest record, so that extra
 * fields get `column_N` names.
 * @throws InputError `INPUT_BINARY` (the head looks like an image, archive or other binary data, not text; unless
 *   `--encoding` is given), `INPUT_EMPTY` (no header), `INPUT_ENCODING`, `INPUT_MALFORMED`, and `INPUT_COLUMN_COUNT`
 *   (from `records()`, while iterating).
 */
export async function openCsv(file: CsvFile, options: NormalizedInputOptions): Promise<InputSource> {
  const head = await readHead(file.path);
  const wholeFile = head.length >= file.size;
  const encoding = chooseEncoding(head, wholeFile, options.encoding);
  if (encoding.source === 'valid UTF-8' || encoding.source === 'chardet') {
    const binary = binaryEvidence(head);
    if (binary) throw binaryFile(file.displayPath, binary);
  }
  const headText = decodeHead(head.subarray(encoding.bomLength), encoding.encoding);

  const sepDelimiter = readSepLine(headText);
  const skip = Math.max(options.headerRow - 1, sepDelimiter !== undefined ? 1 : 0);
  const afterSkip = headText.slice(offsetAfterLines(headText, skip) ?? headText.length);
  const delimiter =
    options.delimiter ?? sepDelimiter ?? sniffDelimiter(afterSkip, options.quote, wholeFile, file.tsv);

  const plan: CsvPlan = {
    path: file.path,
    displayPath: file.displayPath,
    encoding: encoding.encoding,
    encodingSource: encoding.source,
    bomLength: encoding.bomLength,
    skipLines: skip,
    delimiter,
    quote: options.quote,
  };
  const header = await readFirstRecord(plan);
  if (header === undefined) {
    throw new InputError(
      'INPUT_EMPTY',
      { file: file.displayPath },
      skip === 0
        ? 'the file has no header line: it is empty or blank.'
        : `the file has no header line at or after line ${skip + 1} (--header-row ${options.headerRow}).`,
    );
  }
  const headerFields = header.cells.length;
  const width = options.relaxColumnCount ? await widestRecord(plan, headerFields) : headerFields;
  const rawHeader = [...header.cells];
  while (rawHeader.length < width) rawHeader.push('');
  const { columns, headerCells, notes, ambiguous } = cleanHeader(rawHeader);
  if (width > headerFields) {
    const extra = columns.slice(headerFields);
    notes.push(
      `some records have up to ${width} fields, the header ${headerFields}: ` +
        `${extra.length === 1 ? 'the extra column is named' : 'the extra columns are named'} ${extra.join(', ')} (--relax-column-count)`,
    );
  }

  const dialect: InputDialect = {
    format: 'csv',
    encoding: encoding.encoding,
    bom: encoding.bomLength > 0,
    delimiter,
    quote: options.quote,
    sepLine: sepDelimiter !== undefined,
    lineBreak: detectLineBreak(afterSkip, options.quote) ?? '\n',
  };
  const relax = options.relaxColumnCount;
  return {
    path: file.displayPath,
    dialect,
    columns,
    headerCells,
    headerNotes: notes,
    ambiguousColumns: ambiguous,
    size: file.size,
    describe: () => describeDialect(dialect, header.line, columns.length),
    records: (options) => csvRecords(plan, header, width, headerFields, relax, options?.from),
    sampleRecords: (count) => sampleRecords(plan, count),
  };
}

/** The first `count` records after the header, as parsed (see `InputSource.sampleRecords`). */
async function sampleRecords(plan: CsvPlan, count: number): Promise<SampledRecord[]> {
  const out: SampledRecord[] = [];
  let header = true;
  for await (const batch of streamCsvRecords({ ...plan, chunkBytes: HEAD_BYTES })) {
    for (const record of batch) {
      if (header) header = false;
      else out.push({ line: record.line, cells: record.cells });
      if (out.length >= count) return out;
    }
  }
  return out;
}

/**
 * The data records after the header, fitted to the columns, with index and (lazy) fingerprint. With `from`, parsing
 * starts at that record's line: the lines before it are skipped as text, not parsed.
 */
async function* csvRecords(
  plan: CsvPlan,
  header: RawRecord,
  width: number,
  headerFields: number,
  relax: boolean,
  from: RecordPosition | undefined,
): AsyncGenerator<InputRecord> {
  let index = from ? from.index : -1;
  const readPlan = from ? { ...plan, skipLines: from.line - 1 } : plan;
  // After the first record that does not fit, read on for more (up to MAX_BAD_RECORDS_NAMED) so that the error names
  // them all and one edit fixes the file; nothing after the first bad record is yielded.
  const bad: BadFieldCount[] = [];
  const where = { file: plan.displayPath, headerLine: header.line };
  try {
    for await (const batch of streamCsvRecords(readPlan)) {
      for (const record of batch) {
        if (index === -1) {
          index = 0; // the header
          continue;
        }
        const cells = fitColumnCount(record.cells, width, relax);
        if (cells === undefined) {
          bad.push({ line: record.line, fields: effectiveFieldCount(record.cells, headerFields) });
          if (bad.length === MAX_BAD_RECORDS_NAMED) throw columnCountError(bad, false, headerFields, where);
          continue;
        }
        if (bad.length > 0) continue;
        yield new LazyRecord(index, record.line, cells);
        index += 1;
      }
    }
  } catch (error) {
    // A malformed record further on does not hide the field counts already found.
    if (bad.length > 0 && !(error instanceof InputError && error.code === 'INPUT_COLUMN_COUNT')) throw columnCountError(bad, false, headerFields, where);
    throw error;
  }
  if (bad.length > 0) throw columnCountError(bad, true, headerFields, where);
}

/** The first record (the header), reading in 64 KB chunks so that opening reads little more than the head. */
async function readFirstRecord(plan: CsvPlan): Promise<RawRecord | undefined> {
  for await (const batch of streamCsvRecords({ ...plan, chunkBytes: HEAD_BYTES })) if (batch[0] !== undefined) return batch[0];
  return undefined;
}

/** Relax mode: the largest field count of any record, trailing empty extra fields ignored. */
async function widestRecord(plan: CsvPlan, headerFields: number): Promise<number> {
  let widest = headerFields;
  for await (const batch of streamCsvRecords(plan)) {
    for (const record of batch) widest = Math.max(widest, effectiveFieldCount(record.cells, headerFields));
  }
  return widest;
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The encoding to read with: `--encoding` when given (its own BOM, if the file has one, is skipped; `utf-16`
 * means the BOM's byte order, else little-endian), otherwise detected.
 */
function chooseEncoding(head: Buffer, wholeFile: boolean, forced: string | undefined): DetectedEncoding {
  if (forced === undefined) return detectEncoding(head, wholeFile);
  const bom = detectBom(head);
  if (forced === 'utf-16' || forced === 'utf16') {
    const encoding = bom?.encoding.startsWith('utf-16') ? bom.encoding : 'utf-16le';
    return { encoding, bomLength: bom?.encoding === encoding ? bom.bomLength : 0, source: '--encoding' };
  }
  return { encoding: forced, bomLength: bom?.encoding === forced ? bom.bomLength : 0, source: '--encoding' };
}

/** The head as text, for detection only (a character cut at the end is dropped). */
function decodeHead(bytes: Buffer, encoding: string): string {
  const decoder = iconv.getDecoder(encoding, { stripBOM: false });
  return decoder.write(bytes);
}

/** `INPUT_BINARY`: no `--encoding` can make text of it; say what it looks like and what to do. */
function binaryFile(displayPath: string, evidence: BinaryEvidence): InputError {
  const what = evidence.kind ? `it looks like ${evidence.kind}, not text` : 'it looks binary, not text';
  return new InputError(
    'INPUT_BINARY',
    { file: displayPath },
    `${what} (${evidence.controlBytes} of its first ${evidence.sampled} bytes are control bytes that a CSV or TSV file does not hold). ` +
      'Check that this is the file you meant; a spreadsheet has to be saved as CSV (UTF-8) or Excel Workbook (.xlsx) first.',
  );
}
