/**
 * JSON Lines output (https://jsonlines.org): one object per row, its keys the columns in order, every value a string.
 * No BOM, LF line ends, and no formula neutralization (a JSON reader runs nothing).
 */
import { UsageError } from '../errors.js';
import type { OutputSpec, OutputWriter } from './output-writer.js';
import { createTextWriter } from './text-writer.js';

/**
 * Writes `spec.target` as JSON Lines. Keys are written in column order even when they look like numbers (which a
 * JavaScript object would reorder).
 * @throws UsageError code `OUTPUT_DUPLICATE_COLUMN` (exit 2) when two columns have the same name (a JSON object
 *   cannot hold both); `OUTPUT_UNWRITABLE` when the target cannot be created.
 */
export function createJsonlWriter(spec: OutputSpec): Promise<OutputWriter> {
  const seen = new Set<string>();
  for (const column of spec.columns) {
    if (seen.has(column)) {
      throw new UsageError('OUTPUT_DUPLICATE_COLUMN', `cannot write ${spec.target} as JSON Lines: two columns are named ${JSON.stringify(column)}`);
    }
    seen.add(column);
  }
  const keys = spec.columns.map((c) => `${JSON.stringify(c)}:`);
  const encode = (cells: readonly string[]): string => {
    let line = '{';
    for (let i = 0; i < keys.length; i++) line += (i === 0 ? '' : ',') + keys[i] + JSON.stringify(cells[i]);
    return `${line}}\n`;
  };
  return createTextWriter(spec.target, 'jsonl', spec.columns.length, '', encode, spec.stdout);
}
