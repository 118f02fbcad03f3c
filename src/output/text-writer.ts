/** An {@link OutputWriter} for text formats: each row encoded to a string and written to a {@link TextOutput}. */
import { ExitCode, GeminiBatchError } from '../errors.js';
import type { OutputFormat, OutputWriter } from './output-writer.js';
import { openTextOutput } from './text-output.js';

/**
 * Opens `target` and writes `preamble` (BOM, header line…) first.
 * @param encode turns one row into its text, line break included.
 * @param stdout where a `-` target writes (default `process.stdout`).
 * @throws UsageError code `OUTPUT_UNWRITABLE` (exit 2) when the target cannot be created.
 */
export async function createTextWriter(
  target: string,
  format: OutputFormat,
  columnCount: number,
  preamble: string,
  encode: (cells: readonly string[]) => string,
  stdout?: NodeJS.WritableStream,
): Promise<OutputWriter> {
  const out = await openTextOutput(target, stdout);
  if (preamble !== '') await out.write(preamble);
  return {
    format,
    write(cells: readonly string[]): Promise<void> {
      checkCellCount(cells, columnCount);
      return out.write(encode(cells));
    },
    commit: () => out.commit(),
    abort: () => out.abort(),
  };
}

/**
 * @throws GeminiBatchError code `OUTPUT_CELL_COUNT` (exit 4, a bug in the caller) when a row does not have one cell
 *   per column.
 */
export function checkCellCount(cells: readonly string[], columnCount: number): void {
  if (cells.length !== columnCount) {
    throw new GeminiBatchError('OUTPUT_CELL_COUNT', `an output row has ${cells.length} cell${cells.length === 1 ? '' : 's'} for ${columnCount} column${columnCount === 1 ? '' : 's'}`, ExitCode.Internal);
  }
}
