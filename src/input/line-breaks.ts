/**
 * Physical lines: a line ends at CRLF, LF or a lone CR, as text editors and spreadsheet programs count them.
 * Works on decoded text (strings) and on ASCII-compatible bytes (Buffers) alike: only the codes 13 and 10 matter.
 */

const CR = 13;
const LF = 10;

/** Text or bytes, indexed by code unit. */
type Chunk = string | Uint8Array;

function codeAt(chunk: Chunk, i: number): number {
  return typeof chunk === 'string' ? chunk.charCodeAt(i) : (chunk[i] ?? 0);
}

/**
 * Counts the line breaks in `chunk`. A CR at the end of a chunk followed by LF at the start of the next counts once:
 * pass the `endsWithCr` returned for the previous chunk as `afterCr`.
 * @returns the number of breaks, and whether the chunk ended with CR.
 */
export function countLineBreaks(chunk: Chunk, afterCr = false): { breaks: number; endsWithCr: boolean } {
  let breaks = 0;
  let previousCr = afterCr;
  for (let i = 0; i < chunk.length; i += 1) {
    const code = codeAt(chunk, i);
    if (code === LF) {
      if (!previousCr) breaks += 1;
      previousCr = false;
    } else if (code === CR) {
      breaks += 1;
      previousCr = true;
    } else {
      previousCr = false;
    }
  }
  return { breaks, endsWithCr: previousCr };
}

/** Number of line breaks in the cells of one record (a quoted cell may hold CRLF, LF or CR). */
export function lineBreaksInCells(cells: readonly string[]): number {
  let breaks = 0;
  for (const cell of cells) {
    if (cell.length !== 0 && (cell.includes('\n') || cell.includes('\r'))) breaks += countLineBreaks(cell).breaks;
  }
  return breaks;
}

/**
 * The first record separator of `text` outside quoted fields: CRLF, or LF (a lone CR also gives LF).
 * @param text decoded text from the header on.
 * @param quote the quote character.
 * @returns undefined when the text has no line break outside quotes.
 */
export function detectLineBreak(text: string, quote: string): '\r\n' | '\n' | undefined {
  let quoting = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === quote) quoting = !quoting;
    else if (!quoting && ch === '\r') return text[i + 1] === '\n' ? '\r\n' : '\n';
    else if (!quoting && ch === '\n') return '\n';
  }
  return undefined;
}

/**
 * Where the text after the first `count` lines starts (index into `text`), or undefined when `text` holds fewer
 * line breaks than that.
 */
export function offsetAfterLines(text: string, count: number): number | undefined {
  let i = 0;
  for (let seen = 0; seen < count; seen += 1) {
    const lf = text.indexOf('\n', i);
    const cr = text.indexOf('\r', i);
    if (lf === -1 && cr === -1) return undefined;
    if (cr !== -1 && (lf === -1 || cr < lf)) i = text[cr + 1] === '\n' ? cr + 2 : cr + 1;
    else i = lf + 1;
  }
  return i;
}

/**
 * Drops the first `count` physical lines of a stream of chunks (title rows above the header, Excel's `sep=` line).
 * A CRLF split across two chunks is one break.
 */
export async function* skipLines<T extends Chunk>(chunks: AsyncIterable<T>, count: number): AsyncGenerator<T> {
  let remaining = count;
  let dropLeadingLf = false;
  for await (const chunk of chunks) {
    if (remaining === 0 && !dropLeadingLf) {
      yield chunk;
      continue;
    }
    let i = 0;
    if (dropLeadingLf) {
      if (chunk.length === 0) continue;
      if (codeAt(chunk, 0) === LF) i = 1;
      dropLeadingLf = false;
    }
    // Jump from break to break with indexOf (native): a resumed job skips millions of lines here. Each kind of break
    // is searched again only once passed, so a file without CRs is not rescanned for one at every line.
    let nextLf = -2;
    let nextCr = -2;
    while (remaining > 0 && i < chunk.length) {
      if (nextLf !== -1 && nextLf < i) nextLf = indexOfCode(chunk, LF, i);
      if (nextCr !== -1 && nextCr < i) nextCr = indexOfCode(chunk, CR, i);
      const next = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextCr, nextLf);
      if (next === -1) {
        i = chunk.length;
        break;
      }
      const code = codeAt(chunk, next);
      i = next + 1;
      remaining -= 1;
      if (code === CR) {
        // A CR at the end of a chunk: an LF starting the next chunk belongs to the same break.
        if (i === chunk.length) dropLeadingLf = true;
        else if (codeAt(chunk, i) === LF) i += 1;
      }
    }
    if (remaining === 0 && i < chunk.length) yield tail(chunk, i);
  }
}

/** Position of the first `code` (CR or LF) at or after `from`, or -1. */
function indexOfCode(chunk: Chunk, code: number, from: number): number {
  return typeof chunk === 'string' ? chunk.indexOf(String.fromCharCode(code), from) : chunk.indexOf(code, from);
}

function tail<T extends Chunk>(chunk: T, from: number): T {
  return (typeof chunk === 'string' ? chunk.slice(from) : chunk.subarray(from)) as T;
}
