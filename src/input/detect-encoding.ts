import { isUtf8 } from 'node:buffer';
import chardet from 'chardet';
import iconv from 'iconv-lite';

/** The encoding of a text file, as found from its first bytes. */
export interface DetectedEncoding {
  /** Canonical iconv-lite name: `utf-8`, `utf-16le`, `utf-16be`, `windows-1252`… */
  encoding: string;
  /** Length in bytes of the byte-order mark at the start of the file (0 when none). */
  bomLength: number;
  /** How it was found, for messages: `BOM`, `valid UTF-8`, `chardet`, `--encoding`. */
  source: 'BOM' | 'valid UTF-8' | 'chardet' | 'UTF-16 without BOM' | '--encoding';
}

const BOMS: ReadonlyArray<{ encoding: string; bytes: readonly number[] }> = [
  { encoding: 'utf-8', bytes: [0xef, 0xbb, 0xbf] },
  { encoding: 'utf-16le', bytes: [0xff, 0xfe] },
  { encoding: 'utf-16be', bytes: [0xfe, 0xff] },
];

/**
 * ISO-8859 guesses and their Windows supersets: in a spreadsheet export, bytes 0x80–0x9F are Windows characters
 * (€ “ ” – …), never the C1 control characters ISO-8859 gives them.
 */
const WINDOWS_SUPERSET: Record<string, string> = {
  'iso-8859-1': 'windows-1252',
  'iso-8859-15': 'windows-1252',
  'iso-8859-2': 'windows-1250',
  'iso-8859-5': 'windows-1251',
  'iso-8859-7': 'windows-1253',
  'iso-8859-9': 'windows-1254',
  'iso-8859-8': 'windows-1255',
  'iso-8859-6': 'windows-1256',
};

/** Below this chardet confidence (0–100) the guess is not trusted and Windows-1252 is used. */
const MIN_CHARDET_CONFIDENCE = 20;

/**
 * The byte-order mark at the start of `head`, if any.
 * @returns the encoding and BOM length, or undefined.
 */
export function detectBom(head: Uint8Array): { encoding: string; bomLength: number } | undefined {
  for (const bom of BOMS) {
    if (bom.bytes.every((byte, i) => head[i] === byte)) return { encoding: bom.encoding, bomLength: bom.bytes.length };
  }
  return undefined;
}

/**
 * Detects the encoding of a text file from its first bytes (up to 64 KB), in this order:
 * 1. a byte-order mark (UTF-8, UTF-16 LE, UTF-16 BE);
 * 2. UTF-16 without BOM, when one byte of each pair is nearly always 0;
 * 3. valid UTF-8 (ASCII included), ignoring a sequence cut at the end of `head`;
 * 4. otherwise chardet's best guess that iconv-lite can decode, with ISO-8859-x turned into its Windows superset;
 *    a weak or unusable guess falls back to Windows-1252, the usual encoding of Excel's "CSV" in Western locales.
 * @param head the first bytes of the file.
 * @param wholeFile true when `head` is the entire file (a cut multi-byte sequence at its end is then invalid).
 */
export function detectEncoding(head: Uint8Array, wholeFile: boolean): DetectedEncoding {
  const bom = detectBom(head);
  if (bom) return { ...bom, source: 'BOM' };

  const utf16 = detectUtf16WithoutBom(head);
  if (utf16) return { encoding: utf16, bomLength: 0, source: 'UTF-16 without BOM' };

  const checked = wholeFile ? head : head.subarray(0, completeUtf8Length(head));
  if (isUtf8(checked)) return { encoding: 'utf-8', bomLength: 0, source: 'valid UTF-8' };

  return { encoding: guessLegacyEncoding(head), bomLength: 0, source: 'chardet' };
}

/** chardet's best usable guess for bytes that are not UTF-8, mapped as described in `detectEncoding`. */
function guessLegacyEncoding(head: Uint8Array): string {
  const hasC1Bytes = head.some((byte) => byte >= 0x80 && byte <= 0x9f);
  for (const candidate of chardet.analyse(head)) {
    if (candidate.confidence < MIN_CHARDET_CONFIDENCE) break;
    const name = candidate.name.toLowerCase();
    if (name === 'utf-8' || name === 'ascii' || name.startsWith('utf-16') || name.startsWith('utf-32')) continue;
    const superset = WINDOWS_SUPERSET[name];
    if (superset !== undefined && (hasC1Bytes || name === 'iso-8859-1' || name === 'iso-8859-15')) return superset;
    if (iconv.encodingExists(name)) return name;
  }
  return 'windows-1252';
}

/**
 * UTF-16 LE or BE for text without a BOM: among the first 1,000 byte pairs, at least 90% have a 0 in the same place
 * and almost none in the other (ASCII-range text in UTF-16).
 */
function detectUtf16WithoutBom(head: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const pairs = Math.min(1000, Math.floor(head.length / 2));
  if (pairs < 8) return undefined;
  let zeroEven = 0;
  let zeroOdd = 0;
  for (let i = 0; i < pairs; i += 1) {
    if (head[2 * i] === 0) zeroEven += 1;
    if (head[2 * i + 1] === 0) zeroOdd += 1;
  }
  if (zeroOdd >= pairs * 0.9 && zeroEven <= pairs * 0.05) return 'utf-16le';
  if (zeroEven >= pairs * 0.9 && zeroOdd <= pairs * 0.05) return 'utf-16be';
  return undefined;
}

/** Length of `bytes` without a trailing UTF-8 sequence that was cut short (0 to 3 bytes removed). */
export function completeUtf8Length(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= 3 && back <= end; back += 1) {
    const byte = bytes[end - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: look further back for the lead byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? end - back : end;
  }
  return end;
}
