/**
 * Formula neutralization (CSV injection): a spreadsheet runs a cell that begins with `=`, `+`, `-` or `@` as a
 * formula, and a leading TAB or CR can hide such a start. OWASP's advice is to prefix those cells with `'`
 * (https://owasp.org/www-community/attacks/CSV_Injection). Plain numbers are left alone, so `-0.5` or `-21.419,06`
 * stay numbers.
 */

/**
 * A plain number with a sign: digits, optionally grouped by threes with `,` `.` `'`, no-break space or narrow no-break
 * space (one separator kind per number), an optional decimal part after `.` or `,`, an optional exponent (`e5`,
 * `E-3`) and an optional `%`. Matches `-21.419,06`, `-0.5`, `+1`, `-1,234.56`, `-1e5`, `-.5`, `-12%`, `-1\u00a0234,5`.
 * Such a cell holds no function or reference, so it cannot be a harmful formula. A plain space does not group
 * (`+33 123 456 789` is a phone number, which a spreadsheet would mangle as a formula: it is escaped).
 */
const PLAIN_NUMBER = new RegExp(
  '^[+-](?:' +
    '\\d+(?:[.,]\\d+)?' + // 1234 · 1234.5 · 1234,5
    '|\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?' + // 1,234,567.89
    '|\\d{1,3}(?:\\.\\d{3})+(?:,\\d+)?' + // 1.234.567,89
    "|\\d{1,3}(?:'\\d{3})+(?:[.,]\\d+)?" + // 1'234.5
    '|\\d{1,3}(?:[\\u00a0\\u202f]\\d{3})+(?:[.,]\\d+)?' + // 1 234,5 with a no-break space
    '|[.,]\\d+' + // .5
    ')(?:[eE][+-]?\\d+)?%?$',
);

/** First characters that make a spreadsheet read a cell as a formula (or hide such a start). */
const TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * Prefixes `cell` with `'` when a spreadsheet could run it as a formula: it begins with `=`, `+`, `-`, `@`, TAB or
 * CR and is not a plain number (see {@link PLAIN_NUMBER}) nor a lone `-` or `+` (a placeholder spreadsheets show as
 * text). `=SUM(A1)`, `@cmd`, `-foo`, `- This class includes…`, `+33 1 23 45 67 89` and `-1+1` are escaped.
 */
export function escapeFormula(cell: string): string {
  return needsFormulaEscape(cell) ? `'${cell}` : cell;
}

/**
 * True when a spreadsheet could run `cell` as a formula (the cells {@link escapeFormula} prefixes). The XLSX writer
 * marks such cells with Excel's quotePrefix style instead of changing their text.
 */
export function needsFormulaEscape(cell: string): boolean {
  if (cell.length === 0 || !TRIGGERS.has(cell[0]!)) return false;
  return !(cell === '-' || cell === '+' || PLAIN_NUMBER.test(cell));
}
