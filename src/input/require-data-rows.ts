import { InputError } from '../errors.js';
import type { InputSource } from './input-source.js';

/**
 * Checks that the input has at least one data record under its header: a file with a header and nothing else is an
 * input error (exit 2), not a job that ends "every row ok" having classified nothing. Reads only up to the first
 * record (a CSV's head, or the loaded sheet).
 * @throws InputError `INPUT_NO_ROWS` naming the file; the errors of `records()` (a first record with a wrong field
 *   count, bad quoting…).
 */
export async function requireDataRows(source: InputSource): Promise<void> {
  for await (const _record of source.records()) return;
  throw new InputError(
    'INPUT_NO_ROWS',
    { file: source.path },
    `the file has a header (${source.describe()}) but no data rows under it: there is nothing to classify. ` +
      'If the rows are further down or on another sheet, see --header-row and --sheet.',
  );
}
