/**
 * The tokenizer of Excel number-format sections (see number-format.ts): literals, placeholders, date/time codes.
 * Reference: ECMA-376 Part 1, §18.8.31 numFmt.
 */

/** One piece of a parsed section: literal text, a number placeholder, or a date/time code. */
export type Token =
  | { kind: 'text'; text: string }
  | { kind: 'digit'; ch: '0' | '#' | '?'; part: 'int' | 'frac' | 'exp' | 'num' | 'den' }
  | { kind: 'point' }
  | { kind: 'date'; code: string }
  | { kind: 'exp'; sign: string }
  | { kind: 'den'; value: number }
  | { kind: 'general' };

const DATE_CODE = /^(yyyy|yyy|yy|y|e+|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|am\/pm|a\/p)/i;

/** A tokenized section and its modifiers. */
export interface ParsedSection {
  tokens: Token[];
  /** Number of `%` signs: the value is multiplied by 100 for each. */
  percent: number;
  /** A `,` between integer placeholders: group thousands. */
  thousands: boolean;
  /** Number of scaling commas after the last placeholder: the value is divided by 1000 for each. */
  scale: number;
  /** `+` or `-` of `E+`/`E-` in scientific formats. */
  exponent?: string;
  /** The section has date or time codes. */
  isDate: boolean;
  /** The section is a fraction (`# ?/?`). */
  fraction: boolean;
}

/** Tokenizes one section of a number format code. */
export function tokenize(section: string): ParsedSection {
  const tokens: Token[] = [];
  let percent = 0;
  let thousands = false;
  let scale = 0;
  let exponent: string | undefined;
  let isDate = false;
  let fraction = false;
  let part: 'int' | 'frac' | 'exp' | 'num' | 'den' = 'int';
  const text = (t: string): void => void tokens.push({ kind: 'text', text: t });
  for (let i = 0; i < section.length; i += 1) {
    const ch = section[i] ?? '';
    const rest = section.slice(i);
    if (ch === '"') {
      const end = section.indexOf('"', i + 1);
      text(section.slice(i + 1, end === -1 ? undefined : end));
      i = end === -1 ? section.length : end;
    } else if (ch === '\\') {
      text(section[i + 1] ?? '');
      i += 1;
    } else if (ch === '_') {
      text(' ');
      i += 1;
    } else if (ch === '*') {
      i += 1; // fill character: no width to fill in text
    } else if (ch === '[') {
      const end = section.indexOf(']', i);
      const inside = section.slice(i + 1, end === -1 ? undefined : end);
      i = end === -1 ? section.length : end;
      if (/^(h+|m+|s+)$/i.test(inside)) {
        tokens.push({ kind: 'date', code: `[${inside.toLowerCase()}]` });
        isDate = true;
      } else if (inside.startsWith('$')) {
        const symbol = inside.slice(1).split('-')[0] ?? '';
        if (symbol !== '') text(symbol);
      } // colours, conditions and other tags print nothing
    } else if (ch === '@') {
      tokens.push({ kind: 'general' }); // the text placeholder: a number in a text format shows as General
    } else if (/^general/i.test(rest)) {
      tokens.push({ kind: 'general' });
      i += 'general'.length - 1;
    } else if (ch === '0' || ch === '#' || ch === '?') {
      tokens.push({ kind: 'digit', ch, part });
    } else if (ch === '.' && !isDate && part === 'int' && /[0#?]/.test(section.slice(i + 1, i + 2) + section.slice(0, i))) {
      tokens.push({ kind: 'point' });
      part = 'frac';
    } else if (ch === '.' && isDate && /^\.0+/.test(rest)) {
      const zeros = /^\.(0+)/.exec(rest)?.[1] ?? '0';
      tokens.push({ kind: 'date', code: `.${zeros}` });
      i += zeros.length;
    } else if (ch === ',' && (part === 'int' || part === 'frac')) {
      const before = tokens[tokens.length - 1];
      const nextIsDigit = /[0#?]/.test(section[i + 1] ?? '');
      if (before?.kind === 'digit' && nextIsDigit && part === 'int') thousands = true;
      else if (before?.kind === 'digit' || before?.kind === 'point') scale += 1;
      else text(',');
    } else if (ch === '%') {
      percent += 1;
      text('%');
    } else if ((ch === 'E' || ch === 'e') && /^[Ee][+-][0#?]/.test(rest) && !isDate) {
      exponent = rest[1];
      tokens.push({ kind: 'exp', sign: rest[1] ?? '+' });
      part = 'exp';
      i += 1;
    } else if (ch === '/' && tokens.some((t) => t.kind === 'digit') && /[0-9#?]/.test(section[i + 1] ?? '')) {
      fraction = true;
      for (let j = tokens.length - 1; j >= 0; j -= 1) {
        const t = tokens[j];
        if (t?.kind !== 'digit' || t.part !== 'int') break;
        t.part = 'num';
      }
      text('/');
      part = 'den';
      const fixed = /^\/(\d+)/.exec(rest);
      if (fixed) {
        tokens.push({ kind: 'den', value: Number(fixed[1]) });
        i += (fixed[1] ?? '').length;
      }
    } else if (DATE_CODE.test(rest) && part === 'int') {
      const code = DATE_CODE.exec(rest)?.[0] ?? ch;
      tokens.push({ kind: 'date', code: code.toLowerCase() });
      isDate = true;
      i += code.length - 1;
    } else {
      text(ch);
    }
  }
  return { tokens, percent, thousands, scale, exponent, isDate, fraction };
}
