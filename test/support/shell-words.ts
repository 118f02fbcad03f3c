/** Splits a command line printed by gemini-batch (src/invocation.ts `formatCommand`) back into words, as sh would. */

/**
 * The words of `line`: split on spaces, with '…' quoting (and `'\''` for a quote inside) as `shellWord` writes it;
 * leading `NAME=value` words are returned apart, as the environment sh would give the command.
 */
export function shellSplit(line: string): { env: Record<string, string>; words: string[] } {
  const words: string[] = [];
  let word: string | undefined;
  let quoted = false;
  let escaped = false;
  for (const ch of line) {
    if (escaped) {
      word = (word ?? '') + ch;
      escaped = false;
    } else if (quoted) {
      if (ch === "'") quoted = false;
      else word = (word ?? '') + ch;
    } else if (ch === "'") {
      quoted = true;
      word ??= '';
    } else if (ch === '\\') {
      escaped = true; // `\'` between two quoted parts: a literal quote
    } else if (ch === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + ch;
  }
  if (word !== undefined) words.push(word);
  const env: Record<string, string> = {};
  while (words[0] !== undefined && /^[A-Z_]+=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  return { env, words };
}
