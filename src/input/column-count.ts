import { InputError } from '../errors.js';

/** At most this many records with a wrong field count are named in one error, so that one edit fixes them all. */
export const MAX_BAD_RECORDS_NAMED = 10;

/** A record whose number of fields does not fit the header: where it starts and how many fields it has. */
export interface BadFieldCount {
  /** 1-based physical line where the record starts. */
  line: number;
  fields: number;
}

/**
 * Fits a record's cells to the column count, by the rules of gemini-batch:
 * - extra fields that are all empty are dropped (Excel exports often end rows with empty cells): not an error;
 * - otherwise a record with more or fewer fields than `columns` does not fit, unless `relax`, which pads a short
 *   record with '' (extra non-empty fields are then already covered by `columns`, which a pre-scan extended).
 * @param cells the record's cells (may be modified and returned).
 * @param columns the number of columns (header fields, or the extended count in relax mode).
 * @returns the fitted cells, or undefined when the record does not fit (see {@link columnCountError}).
 */
export function fitColumnCount(cells: string[], columns: number, relax: boolean): string[] | undefined {
  if (cells.length === columns) return cells;
  if (cells.length > columns) {
    let last = cells.length;
    while (last > columns && cells[last - 1] === '') last -= 1;
    if (last === columns) {
      cells.length = columns;
      return cells;
    }
  } else if (relax) {
    while (cells.length < columns) cells.push('');
    return cells;
  }
  return undefined;
}

/**
 * The error for records that do not fit the header, naming each one's line and field count.
 * @param bad the records found, in file order (at least one, at most {@link MAX_BAD_RECORDS_NAMED}).
 * @param complete true when the whole file was read (`bad` is every such record), false when the search stopped.
 * @returns InputError `INPUT_COLUMN_COUNT` positioned at the first bad record's line.
 */
export function columnCountError(bad: readonly BadFieldCount[], complete: boolean, headerFields: number, where: { file: string; headerLine: number }): InputError {
  const first = bad[0] ?? { line: where.headerLine + 1, fields: 0 };
  const advice =
    'Check for a missing delimiter or an unquoted delimiter inside a cell, or pass --relax-column-count to pad short ' +
    'records and keep extra fields.';
  if (bad.length === 1 && complete) {
    return new InputError(
      'INPUT_COLUMN_COUNT',
      { file: where.file, line: first.line },
      `the record starting on this line has ${fieldCount(first.fields)}, but the header (line ${where.headerLine}) has ${headerFields}. ${advice}`,
    );
  }
  const list = bad.map((b) => `line ${b.line} has ${b.fields}`).join(', ');
  const how = complete ? `${bad.length} records have` : `the first ${bad.length} records with`;
  const more = complete ? '' : ` (the file was read up to line ${bad.at(-1)?.line ?? first.line}; there may be more)`;
  return new InputError(
    'INPUT_COLUMN_COUNT',
    { file: where.file, line: first.line },
    `${how} another number of fields than the header (line ${where.headerLine}, ${fieldCount(headerFields)}): ${list}${more}. ${advice}`,
  );
}

/** `1 field`, `3 fields`. */
function fieldCount(n: number): string {
  return `${n} field${n === 1 ? '' : 's'}`;
}

/** The number of fields of a record once empty trailing fields beyond `headerFields` are ignored. */
export function effectiveFieldCount(cells: readonly string[], headerFields: number): number {
  let last = cells.length;
  while (last > headerFields && cells[last - 1] === '') last -= 1;
  return last;
}
