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
 * 2. UTF-16 without BOM, when NUL bytes sit on one side of the byte pairs (see `detectUtf16WithoutBom`);
 * 3. valid UTF-8 (ASCII included), ignoring a sequence cut at the end of `head`;
 * 4. otherwise chardet's best guess that iconv-lite can decode, with ISO-8859-x turned into its Windows superset;
 *    a weak or unusable guess falls back to Windows-1252, the usual encoding of Excel's "CSV" in Western locales.
 * @param head the first bytes of the file.
 * @param wholeFile true when `head` is the entire file (a cut multi-byte sequence at its end is then invalid).
 */
export function detectEncoding(head: Uint8Array, wholeFile: boolean): DetectedEncoding {
  const bom = detectBom(head);
  if (bom) return { ...bom, source: 'BOM' };

  const utf16 = detectUtf16WithoutBom(head, wholeFile);
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

/** Byte pairs of the head examined for UTF-16 without BOM (8 KB). */
const UTF16_SAMPLE_PAIRS = 4096;
/** Without line breaks to go by: at least this many pairs (and this share of the sample) with a NUL on one side… */
const UTF16_MIN_NUL_PAIRS = 2;
const UTF16_MIN_NUL_SHARE = 0.01;
/** …and at most this many on the other side for each of them. */
const UTF16_MAX_OTHER_SIDE = 0.25;

/**
 * UTF-16 LE or BE for text without a BOM. Text in UTF-8 or a Windows code page holds no NUL byte, while UTF-16 puts
 * one in every code unit below U+0100: the delimiters, line breaks, digits and Latin letters of a spreadsheet. Among
 * the first 4,096 byte pairs, NUL bytes mostly at odd offsets (`N\0a\0`) mean UTF-16 LE, mostly at even offsets
 * (`\0N\0a`) UTF-16 BE:
 * 1. TAB, CR and LF decide when present: `\r\0\n\0` is a line break in LE, while in BE the same bytes would be
 *    U+0D00 U+0A00, which no text holds. Two such pairs on one side and none on the other are enough, however few
 *    other NULs there are (text with many CJK characters or emoji has NULs only in its delimiters and line breaks).
 * 2. Otherwise the NUL pairs must be at least 2 and 1% of the sample, with at most one on the other side for four
 *    on the main side: characters such as U+4E00 一, U+3000 (ideographic space) or U+AC00 가 put their NUL on the
 *    other side, and a stray NUL or two in UTF-8 text is not enough.
 * The pairs must also form valid UTF-16 in that byte order (surrogates paired).
 * @returns the encoding, or undefined when the head does not look like UTF-16.
 */
function detectUtf16WithoutBom(head: Uint8Array, wholeFile: boolean): 'utf-16le' | 'utf-16be' | undefined {
  const pairs = Math.min(UTF16_SAMPLE_PAIRS, Math.floor(head.length / 2));
  const le = { nul: 0, control: 0 }; // `x\0`: U+00xx as UTF-16 LE writes it
  const be = { nul: 0, control: 0 }; // `\0x`: U+00xx as UTF-16 BE writes it
  for (let i = 0; i < pairs; i += 1) {
    const even = head[2 * i] ?? 0;
    const odd = head[2 * i + 1] ?? 0;
    if ((even === 0) === (odd === 0)) continue;
    const side = odd === 0 ? le : be;
    side.nul += 1;
    if (isTabOrLineBreak(even | odd)) side.control += 1;
  }
  let encoding: 'utf-16le' | 'utf-16be' | undefined;
  if (le.control >= 2 && be.control === 0) encoding = 'utf-16le';
  else if (be.control >= 2 && le.control === 0) encoding = 'utf-16be';
  else {
    const [main, other] = le.nul >= be.nul ? [le.nul, be.nul] : [be.nul, le.nul];
    if (main < UTF16_MIN_NUL_PAIRS || main < pairs * UTF16_MIN_NUL_SHARE || other > main * UTF16_MAX_OTHER_SIDE) return undefined;
    encoding = le.nul > be.nul ? 'utf-16le' : 'utf-16be';
  }
  const sampleIsWholeFile = wholeFile && pairs === Math.floor(head.length / 2);
  return surrogatesPaired(head, pairs, encoding === 'utf-16le', !sampleIsWholeFile) ? encoding : undefined;
}

/** TAB, LF or CR. */
function isTabOrLineBreak(byte: number): boolean {
  return byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * True when every high surrogate among the first `pairs` code units is followed by a low one and no low surrogate
 * stands alone. A high surrogate in the last unit is accepted when `mayContinue` (its partner lies beyond the sample).
 */
function surrogatesPaired(bytes: Uint8Array, pairs: number, littleEndian: boolean, mayContinue: boolean): boolean {
  const unit = (i: number): number => {
    const a = bytes[2 * i] ?? 0;
    const b = bytes[2 * i + 1] ?? 0;
    return littleEndian ? a | (b << 8) : (a << 8) | b;
  };
  for (let i = 0; i < pairs; i += 1) {
    const u = unit(i);
    if (u >= 0xdc00 && u <= 0xdfff) return false;
    if (u >= 0xd800 && u <= 0xdbff) {
      if (i + 1 >= pairs) return mayContinue;
      const next = unit(i + 1);
      if (next < 0xdc00 || next > 0xdfff) return false;
      i += 1;
    }
  }
  return true;
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
