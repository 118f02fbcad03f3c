import iconv from 'iconv-lite';
import { UsageError } from '../errors.js';
import type { InputOptions } from './input-source.js';

/** `InputOptions` checked once, up front, with names in canonical form. */
export interface NormalizedInputOptions {
  /** Canonical lower-case iconv-lite name (`utf-8`, `utf-16le`, `windows-1252`…), or undefined to detect. */
  encoding: string | undefined;
  /** One character, or undefined to sniff. */
  delimiter: string | undefined;
  /** One character. */
  quote: string;
  /** 1-based line (CSV) or sheet row (XLSX) of the header. */
  headerRow: number;
  /** Sheet name or 1-based index as text, or undefined for the first sheet. */
  sheet: string | undefined;
  relaxColumnCount: boolean;
}

/** Spellings of encodings users type, mapped to the canonical iconv-lite name. */
const ENCODING_ALIASES: Record<string, string> = {
  utf8: 'utf-8',
  'utf-8-sig': 'utf-8',
  utf16le: 'utf-16le',
  'utf-16-le': 'utf-16le',
  utf16be: 'utf-16be',
  'utf-16-be': 'utf-16be',
  cp1252: 'windows-1252',
  'win-1252': 'windows-1252',
  ansi: 'windows-1252',
  'iso-8859-1': 'latin1',
  'iso8859-1': 'latin1',
};

/**
 * Validates and normalizes the reading options of `classify`.
 * @throws UsageError `USAGE_INVALID_ENCODING` (unknown to iconv-lite), `USAGE_INVALID_DELIMITER`,
 *   `USAGE_INVALID_QUOTE` (not exactly one character, or equal to the delimiter), `USAGE_INVALID_HEADER_ROW`
 *   (not an integer >= 1).
 */
export function normalizeInputOptions(options: InputOptions): NormalizedInputOptions {
  const delimiter = normalizeDelimiter(options.delimiter);
  return {
    encoding: normalizeEncoding(options.encoding),
    delimiter,
    quote: normalizeQuote(options.quote, delimiter),
    headerRow: normalizeHeaderRow(options.headerRow),
    sheet: options.sheet === undefined || options.sheet === '' ? undefined : options.sheet,
    relaxColumnCount: options.relaxColumnCount === true,
  };
}

function normalizeEncoding(encoding: string | undefined): string | undefined {
  if (encoding === undefined || encoding === '') return undefined;
  const lower = encoding.trim().toLowerCase();
  const canonical = ENCODING_ALIASES[lower] ?? lower;
  if (!iconv.encodingExists(canonical)) {
    throw new UsageError(
      'USAGE_INVALID_ENCODING',
      `--encoding ${JSON.stringify(encoding)} is not an encoding gemini-batch knows; ` +
        'use e.g. utf-8, utf-16le, utf-16be, windows-1252, latin1.',
    );
  }
  return canonical;
}

function normalizeDelimiter(delimiter: string | undefined): string | undefined {
  if (delimiter === undefined || delimiter === '') return undefined;
  const value = delimiter === '\\t' || delimiter.toLowerCase() === 'tab' ? '\t' : delimiter;
  if ([...value].length !== 1 || value === '\r' || value === '\n' || value === '"') {
    throw new UsageError(
      'USAGE_INVALID_DELIMITER',
      `--delimiter ${JSON.stringify(delimiter)} must be one character (e.g. ',' ';' '|', or 'tab'), not a quote or line break.`,
    );
  }
  return value;
}

function normalizeQuote(quote: string | undefined, delimiter: string | undefined): string {
  if (quote === undefined || quote === '') return '"';
  if ([...quote].length !== 1 || quote === '\r' || quote === '\n' || quote === delimiter) {
    throw new UsageError(
      'USAGE_INVALID_QUOTE',
      `--quote ${JSON.stringify(quote)} must be one character, other than the delimiter and a line break.`,
    );
  }
  return quote;
}

function normalizeHeaderRow(headerRow: number | undefined): number {
  if (headerRow === undefined) return 1;
  if (!Number.isInteger(headerRow) || headerRow < 1) {
    throw new UsageError('USAGE_INVALID_HEADER_ROW', `--header-row ${String(headerRow)} must be a whole number >= 1.`);
  }
  return headerRow;
}
