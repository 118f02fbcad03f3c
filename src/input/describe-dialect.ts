import type { InputDialect } from './input-source.js';

const ENCODING_NAMES: Record<string, string> = {
  'utf-8': 'UTF-8',
  'utf-16le': 'UTF-16 LE',
  'utf-16be': 'UTF-16 BE',
  latin1: 'ISO-8859-1',
};

/** A user-facing encoding name: `UTF-8`, `UTF-16 LE`, `Windows-1252`… */
export function encodingLabel(encoding: string): string {
  const known = ENCODING_NAMES[encoding];
  if (known !== undefined) return known;
  return encoding.startsWith('windows-') ? `Windows-${encoding.slice('windows-'.length)}` : encoding.toUpperCase();
}

/** A delimiter as shown to users: `';'`, `TAB`. */
export function delimiterLabel(delimiter: string): string {
  return delimiter === '\t' ? 'TAB' : `'${delimiter}'`;
}

/**
 * The one-line summary of how a file is read, e.g.
 * `UTF-8 with BOM, ';' delimited, CRLF, header on line 1, 2 columns` or
 * `XLSX, sheet "Data", header on row 1, 5 columns`.
 * @param headerLine the 1-based line (CSV) or row (XLSX) of the header.
 */
export function describeDialect(dialect: InputDialect, headerLine: number, columns: number): string {
  const count = `${columns} column${columns === 1 ? '' : 's'}`;
  if (dialect.format === 'xlsx') {
    return `XLSX, sheet ${JSON.stringify(dialect.sheet ?? '')}, header on row ${headerLine}, ${count}`;
  }
  const parts = [
    `${encodingLabel(dialect.encoding)}${dialect.bom ? ' with BOM' : ''}`,
    `${delimiterLabel(dialect.delimiter)} delimited${dialect.sepLine ? ' (sep= line)' : ''}`,
    dialect.lineBreak === '\r\n' ? 'CRLF' : 'LF',
  ];
  if (dialect.quote !== '"') parts.push(`quote ${JSON.stringify(dialect.quote)}`);
  parts.push(`header on line ${headerLine}`, count);
  return parts.join(', ');
}
