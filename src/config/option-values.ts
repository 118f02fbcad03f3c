/**
 * Parsing of option values, once, up front, with messages that name the option (node-csv's normalize_options style).
 */
import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { InputError, UsageError } from '../errors.js';
import { binaryEvidence } from '../input/binary-sniff.js';
import { firstInvalidUtf8 } from '../input/decode-stream.js';
import { positionOf } from '../prompt/template.js';

/** A positive integer option, or undefined when absent. @throws UsageError `OPTION_INVALID`. */
export function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+(_\d+)*$/.test(value.trim()) ? Number(value.trim().replace(/_/g, '')) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError('OPTION_INVALID', `${name} must be a positive whole number such as 1000, got ${JSON.stringify(value)}.`);
  return n;
}

/** A non-negative number option (e.g. seconds), or undefined. @throws UsageError `OPTION_INVALID`. */
export function nonNegativeNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new UsageError('OPTION_INVALID', `${name} must be a number ≥ 0, got ${JSON.stringify(value)}.`);
  return n;
}

/** An integer option that may be 0 or −1 (e.g. --thinking-budget), or undefined. @throws UsageError `OPTION_INVALID`. */
export function integer(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError('OPTION_INVALID', `${name} must be a whole number ≥ ${min}, got ${JSON.stringify(value)}.`);
  return n;
}

/** A fraction in [0, 1), or undefined. @throws UsageError `OPTION_INVALID`. */
export function fraction(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.endsWith('%') ? Number(value.slice(0, -1)) / 100 : value);
  if (!Number.isFinite(n) || n < 0 || n >= 1) throw new UsageError('OPTION_INVALID', `${name} must be a fraction such as 0.02 or 2%, got ${JSON.stringify(value)}.`);
  return n;
}

/** At most one of two exclusive options. @throws UsageError `OPTION_CONFLICT`. */
export function oneOf<T>(a: [string, T | undefined], b: [string, T | undefined]): void {
  if (a[1] !== undefined && b[1] !== undefined) throw new UsageError('OPTION_CONFLICT', `Give ${a[0]} or ${b[0]}, not both.`);
}

/**
 * Reads a UTF-8 text file given by an option (BOM stripped).
 * @throws InputError naming the file: `OPTION_FILE_UNREADABLE` (missing, a directory, no permission), `INPUT_BINARY`
 *   (it looks like an image, archive or other binary data: ../input/binary-sniff.ts), `INPUT_ENCODING` (not UTF-8, with
 *   the line and column of the first byte that is not).
 */
export async function readTextOption(option: string, file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new InputError('OPTION_FILE_UNREADABLE', { file }, `cannot read the file given to ${option} (${code})`, { cause: error });
  }
  const binary = binaryEvidence(bytes);
  if (binary) {
    const what = binary.kind ? `looks like ${binary.kind}` : 'looks binary';
    throw new InputError('INPUT_BINARY', { file }, `the file given to ${option} ${what}, not text (${binary.controlBytes} of its first ${binary.sampled} bytes are control bytes). Give a UTF-8 text file.`);
  }
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes);
    const before = bytes.subarray(0, at).toString('utf8');
    throw new InputError('INPUT_ENCODING', { file, ...positionOf(before, before.length) }, `the file given to ${option} is not UTF-8 text (byte 0x${(bytes[at] ?? 0).toString(16)}). Save it as UTF-8.`);
  }
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}
