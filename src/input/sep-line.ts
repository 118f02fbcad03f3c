/**
 * Excel's `sep=X` first line: Excel writes it (and honours it) to say which delimiter the file uses, whatever the
 * reader's locale. It is not data: it wins over sniffing and is skipped.
 */

/** `sep=;`, optionally quoted (`"sep=;"`), alone on the first line. */
const SEP_LINE = /^"?sep=([^\r\n"]|"")"?[ \t]*(?:\r\n|\n|\r|$)/i;

/**
 * The delimiter declared by a `sep=` first line, or undefined when the text does not start with one.
 * @param text the decoded file, from after its BOM.
 */
export function readSepLine(text: string): string | undefined {
  const match = SEP_LINE.exec(text);
  if (!match) return undefined;
  const delimiter = match[1];
  return delimiter === '""' ? '"' : delimiter;
}
