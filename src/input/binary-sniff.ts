/**
 * Telling a binary file (an image, an archive, a PDF, an executable) named `.csv` from text, so that the message says
 * what is wrong ("this looks binary") instead of suggesting another `--encoding`, which cannot help.
 *
 * Text in UTF-8 or a Windows code page holds TAB, LF and CR among the C0 control characters and almost nothing else;
 * compressed or binary data holds all 256 byte values about equally, so about 1 byte in 10 is another C0 control
 * (27 of 256 values, NUL included). UTF-16 text, whose NUL bytes are expected, is detected before this runs.
 */

/** Bytes of the head examined. */
const SAMPLE_BYTES = 8192;
/** Binary when at least this share of the sample is a C0 control other than TAB, LF, VT, FF, CR (or DEL)… */
const MIN_CONTROL_SHARE = 0.02;
/** …and at least this many of them (a short text with one stray control is still text). */
const MIN_CONTROL_BYTES = 4;

/** File signatures worth naming in the message. */
const SIGNATURES: ReadonlyArray<{ bytes: readonly number[]; what: string }> = [
  { bytes: [0x1f, 0x8b], what: 'a gzip archive' },
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], what: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: 'a GIF image' },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: 'a PDF document' },
  { bytes: [0x42, 0x5a, 0x68], what: 'a bzip2 archive' },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: 'an xz archive' },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], what: 'a zstd archive' },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], what: 'a 7-Zip archive' },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], what: 'an ELF executable' },
  { bytes: [0x50, 0x41, 0x52, 0x31], what: 'a Parquet file' },
  { bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], what: 'an SQLite database' },
];

/** What the head of a binary file showed: its kind when a signature names it, and the control bytes counted. */
export interface BinaryEvidence {
  /** e.g. `a gzip archive`; undefined when no known signature matched. */
  kind: string | undefined;
  /** C0 control bytes other than TAB, LF, VT, FF, CR (and DEL) among the first `sampled` bytes. */
  controlBytes: number;
  sampled: number;
}

/**
 * Whether the head of a file looks binary rather than text.
 * @param head the first bytes of the file, after any BOM; call only for text not detected as UTF-16.
 * @returns the evidence when it looks binary, else undefined.
 */
export function binaryEvidence(head: Uint8Array): BinaryEvidence | undefined {
  const signature = SIGNATURES.find((s) => s.bytes.every((byte, i) => head[i] === byte));
  const sample = head.subarray(0, SAMPLE_BYTES);
  let controlBytes = 0;
  for (const byte of sample) if ((byte < 0x20 && !(byte >= 0x09 && byte <= 0x0d)) || byte === 0x7f) controlBytes += 1;
  const looksBinary = controlBytes >= MIN_CONTROL_BYTES && controlBytes >= sample.length * MIN_CONTROL_SHARE;
  if (!looksBinary && signature === undefined) return undefined;
  if (!looksBinary && signature !== undefined && controlBytes === 0) return undefined; // e.g. a text file starting "%PDF"
  return { kind: signature?.what, controlBytes, sampled: sample.length };
}
