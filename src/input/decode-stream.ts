import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import iconv from 'iconv-lite';
import { InputError } from '../errors.js';
import { completeUtf8Length } from './detect-encoding.js';
import { countLineBreaks } from './line-breaks.js';

/** What `decodeFile` needs to know. */
export interface DecodeSpec {
  /** File to read. */
  path: string;
  /** The path as the user gave it, for messages. */
  displayPath: string;
  /** Canonical iconv-lite name. */
  encoding: string;
  /** How the encoding was chosen, for messages (`--encoding`, `BOM`, `valid UTF-8`, `chardet`…). */
  encodingSource: string;
  /** Byte offset to start at (the length of the BOM). */
  start: number;
  /** Largest read size in bytes. Default 256 KiB. */
  chunkBytes?: number;
}

const DEFAULT_CHUNK_BYTES = 256 * 1024;
/**
 * The first read's size in bytes; each next read is 4 times the last, up to `chunkBytes`. A reader that wants only the
 * head (the header, the first data record, a sample) then parses a few KiB, not a whole 256 KiB chunk: on a 1 MB CSV
 * an open plus a first-record read took 14–18 ms of CPU with 256 KiB reads.
 */
const FIRST_CHUNK_BYTES = 16 * 1024;

/**
 * Streams a text file as decoded chunks, strictly: UTF-8 is yielded as validated Buffers (csv-parse works on bytes;
 * no needless string round trip), every other encoding as strings decoded by iconv-lite (UTF-16 by the WHATWG
 * decoder in fatal mode). Holds one chunk in memory at a time.
 * @throws InputError `INPUT_ENCODING` naming the line of the first byte sequence that is not valid in the encoding
 *   (it would otherwise become U+FFFD), with advice to pass `--encoding`.
 */
export async function* decodeFile(spec: DecodeSpec): AsyncGenerator<Buffer | string> {
  const chunks = readChunks(spec.path, spec.start, spec.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  if (spec.encoding === 'utf-8') yield* decodeUtf8(chunks, spec);
  else yield* decodeOther(chunks, spec);
}

/**
 * The bytes of `path` from byte `start` to its end, in reads of {@link FIRST_CHUNK_BYTES}, then 4 times more each time up
 * to `maxBytes`. The file is closed when the reader stops early too.
 */
async function* readChunks(path: string, start: number, maxBytes: number): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r');
  try {
    let size = Math.min(FIRST_CHUNK_BYTES, maxBytes);
    let position = start;
    for (;;) {
      const buffer = Buffer.allocUnsafe(size);
      const { bytesRead } = await handle.read(buffer, 0, size, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      yield bytesRead === size ? buffer : buffer.subarray(0, bytesRead);
      size = Math.min(size * 4, maxBytes);
    }
  } finally {
    await handle.close();
  }
}

async function* decodeUtf8(stream: AsyncIterable<Buffer>, spec: DecodeSpec): AsyncGenerator<Buffer> {
  let carry: Buffer = Buffer.alloc(0);
  let offset = spec.start; // file offset of carry[0]
  for await (const chunk of stream) {
    const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    const complete = completeUtf8Length(bytes);
    if (!isUtf8(bytes.subarray(0, complete))) {
      throw await encodingError(spec, offset + firstInvalidUtf8(bytes.subarray(0, complete)));
    }
    carry = Buffer.from(bytes.subarray(complete));
    offset += complete;
    yield chunk;
  }
  if (carry.length !== 0) throw await encodingError(spec, offset);
}

async function* decodeOther(stream: AsyncIterable<Buffer>, spec: DecodeSpec): AsyncGenerator<string> {
  const utf16 = spec.encoding === 'utf-16le' || spec.encoding === 'utf-16be';
  const decoder = utf16
    ? new TextDecoder(spec.encoding, { fatal: true, ignoreBOM: true })
    : iconv.getDecoder(spec.encoding, { stripBOM: false });
  const bytesPerUnit = utf16 ? 2 : 1;
  let linesBefore = 0;
  let afterCr = false;
  let offset = spec.start;
  for await (const chunk of stream) {
    let text: string;
    try {
      text = decoder instanceof TextDecoder ? decoder.decode(chunk, { stream: true }) : decoder.write(chunk);
    } catch {
      text = new TextDecoder(spec.encoding, { ignoreBOM: true }).decode(chunk);
    }
    const bad = text.indexOf('\uFFFD');
    if (bad !== -1) {
      const line = 1 + linesBefore + countLineBreaks(text.slice(0, bad), afterCr).breaks;
      throw encodingErrorAt(spec, line, offset + bad * bytesPerUnit);
    }
    const counted = countLineBreaks(text, afterCr);
    linesBefore += counted.breaks;
    afterCr = counted.endsWithCr;
    offset += chunk.length;
    if (text.length !== 0) yield text;
  }
  const rest = decoder instanceof TextDecoder ? safeEnd(decoder) : (decoder.end() ?? '');
  if (rest === undefined || rest.includes('\uFFFD')) throw encodingErrorAt(spec, 1 + linesBefore, offset);
  if (rest.length !== 0) yield rest;
}

function safeEnd(decoder: TextDecoder): string | undefined {
  try {
    return decoder.decode();
  } catch {
    return undefined;
  }
}

/** Index of the first byte of `bytes` that does not start or continue a valid UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    const size = lead < 0x80 ? 1 : lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
    if (size === 0 || i + size > bytes.length) return i;
    if (!isUtf8(bytes.subarray(i, i + size))) return i;
    i += size;
  }
  return bytes.length;
}

/** The InputError for invalid bytes at a file offset: counts the lines before it (ASCII-compatible encodings). */
async function encodingError(spec: DecodeSpec, byteOffset: number): Promise<InputError> {
  let breaks = 0;
  let afterCr = false;
  if (byteOffset > 0) {
    for await (const chunk of createReadStream(spec.path, { start: 0, end: byteOffset - 1 }) as AsyncIterable<Buffer>) {
      const counted = countLineBreaks(chunk, afterCr);
      breaks += counted.breaks;
      afterCr = counted.endsWithCr;
    }
  }
  return encodingErrorAt(spec, 1 + breaks, byteOffset);
}

function encodingErrorAt(spec: DecodeSpec, line: number, byteOffset: number): InputError {
  const how =
    spec.encodingSource === '--encoding'
      ? `it is not valid ${spec.encoding} as --encoding says`
      : `it is not valid ${spec.encoding}, the encoding detected from the start of the file (${spec.encodingSource})`;
  return new InputError(
    'INPUT_ENCODING',
    { file: spec.displayPath, line },
    `the bytes near byte offset ${byteOffset} cannot be decoded: ${how}. ` +
      'Pass --encoding with the file\'s real encoding (e.g. utf-8, windows-1252, utf-16le), or re-save the file as "CSV UTF-8".',
  );
}
