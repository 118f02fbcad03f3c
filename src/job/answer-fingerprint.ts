/**
 * What ties an answer in the journal to its row: the fingerprint of the row's prompt inputs — the cells of the columns
 * the prompt template uses, looked up by name, in the template's order (../input/row-identity.ts's hash of them). Two
 * rows with the same prompt inputs get the same request, so an answer computed for one is the answer of the other.
 * An edit to a column the prompt does not use, a column added, or columns moved keep a row's answer; an edited prompt
 * input makes the row new. The settings that also shape the request (prompt, model, labels…) are the manifest's.
 */
import { rowFingerprint } from '../input/row-identity.js';
import type { CompiledTemplate } from '../prompt/template.js';

/** The name of this way of fingerprinting, recorded in the manifest (`input.rowFingerprint`). */
export const ROW_FINGERPRINT = 'prompt-columns';

/** A function giving the fingerprint of a row's cells (22 base64url characters) for `template`. */
export function answerFingerprint(template: CompiledTemplate): (cells: readonly string[]) => string {
  const positions = template.columns.map((column) => template.columnIndex(column));
  return (cells) => rowFingerprint(positions.map((i) => cells[i] ?? ''));
}
