import { InputError } from '../errors.js';

/**
 * Fits a record's cells to the column count, by the rules of gemini-batch:
 * - extra fields that are all empty are dropped (Excel exports often end rows with empty cells): not an error;
 * - otherwise a record with more or fewer fields than `columns` is an error, unless `relax`, which pads a short
 *   record with '' (extra non-empty fields are then already covered by `columns`, which a pre-scan extended).
 * @param cells the record's cells (may be modified and returned).
 * @param columns the number of columns (header fields, or the extended count in relax mode).
 * @param headerFields the number of fields in the header, for the message.
 * @throws InputError `INPUT_COLUMN_COUNT` naming the file, the record's start line and both counts.
 */
export function fitColumnCount(
  cells: string[],
  columns: number,
  headerFields: number,
  relax: boolean,
  where: { file: string; line: number; headerLine: number },
): string[] {
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
  throw new InputError(
    'INPUT_COLUMN_COUNT',
    { file: where.file, line: where.line },
    `the record starting on this line has ${fieldCount(cells.length)}, but the header (line ${where.headerLine}) has ` +
      `${headerFields}. Check for a missing delimiter or an unquoted delimiter inside a cell, or pass ` +
      '--relax-column-count to pad short records and keep extra fields.',
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
