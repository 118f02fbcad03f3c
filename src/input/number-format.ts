/**
 * Excel number formats (`numFmt` codes such as `#,##0.00`, `0%`, `yyyy-mm-dd`, `(###) ###-####`) applied to a cell
 * value, so that a number or date reads as the sheet displays it. numfmt does the formatting (sections, conditions,
 * literals, placeholders, scaling, fractions, scientific, dates and elapsed times; ECMA-376 Part 1 §18.8.31, checked
 * against Excel by its authors: https://github.com/borgar/numfmt). What is kept here are the choices that differ from
 * what Excel shows on the screen of whoever opens the file, because the text goes into a prompt and an output file:
 * - General shows up to 15 significant digits (the precision Excel stores), not the ~10 a column shows;
 * - built-in formats 14 and 22 ("the viewer's short date" and "date and time", stored as `mm-dd-yy` and
 *   `m/d/yy h:mm`) and a date under General are written ISO 8601 (`2024-01-05`, `2024-01-05 14:03`): the same in
 *   every locale;
 * - a locale tag (`[$€-407]`, `[$-409]`) keeps its currency symbol, not its locale: `.` and `,` as the code writes
 *   them, English names of months and days;
 * - the spaces a fraction pads with for alignment in a column (`# ?/?`: ` 1/2`, `3    `) are trimmed.
 * The cases are in test/input/number-format.test.ts.
 */
import { format, getFormatInfo, isDateFormat, isValidFormat } from 'numfmt';

const MS_PER_DAY = 86_400_000;
/** Serial number of 1970-01-01 in the 1900 date system (with Excel's 1900 leap day). */
const EPOCH_1900 = 25_569;
/** Days between the 1900 and 1904 date systems' day 0. */
const OFFSET_1904 = 1_462;

/** Built-in formats whose display depends on the viewer's locale (ids 14 and 22, as exceljs reports their codes). */
const ISO_INSTEAD: Readonly<Record<string, string>> = {
  'mm-dd-yy': 'yyyy-mm-dd',
  'm/d/yy "h":mm': 'yyyy-mm-dd h:mm',
  'm/d/yy h:mm': 'yyyy-mm-dd h:mm',
};

/**
 * A number as Excel's General format writes it, with up to 15 significant digits: `0.333333333333333`, `1234.5678`,
 * `12345678901234`; scientific (`1E+20`, `-2.5E-12`) from 1e15 and under 1e-9.
 */
export function formatGeneral(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 1e15 || abs < 1e-9) {
    const [mantissa = '0', exponent = '0'] = value.toExponential(5).split('e');
    const trimmed = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa;
    const exp = Number(exponent);
    return `${trimmed}E${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const text = value.toPrecision(15);
  return text.includes('.') && !text.includes('e') ? text.replace(/\.?0+$/, '') : String(Number(text));
}

/**
 * Formats a cell value with an Excel number format code.
 * @param value a number, or a Date as exceljs decodes date-formatted cells (UTC wall time).
 * @param code the `numFmt` code; undefined, '' or `General` gives {@link formatGeneral} (a Date: `yyyy-mm-dd hh:mm:ss`).
 * @param date1904 the workbook uses the 1904 date system.
 * @returns the text; a code numfmt cannot read gives the number as General. Never throws.
 */
export function formatNumber(value: number | Date, code: string | undefined, date1904 = false): string {
  const general = code === undefined || code === '' || /^general$/i.test(code);
  if (general && !(value instanceof Date)) return formatGeneral(value);
  const pattern = general ? 'yyyy-mm-dd hh:mm:ss' : withoutLocales(ISO_INSTEAD[code] ?? code);
  const dateCode = isDateFormat(pattern);
  // numfmt counts days in the 1900 system; a 1904 workbook's serials are 1,462 days behind. A Date under a number
  // format shows the serial the workbook stores.
  const serial = value instanceof Date ? serialOf(value, date1904 && !dateCode) : value + (date1904 && dateCode ? OFFSET_1904 : 0);
  if (!isValidFormat(pattern)) return formatGeneral(serial);
  const text = format(pattern, serial);
  return getFormatInfo(pattern).type === 'fraction' ? text.trim() : text;
}

/** The serial number of a date (UTC wall time), in the 1900 or 1904 date system. */
function serialOf(date: Date, date1904: boolean): number {
  return date.getTime() / MS_PER_DAY + EPOCH_1900 - (date1904 ? OFFSET_1904 : 0);
}

/** `[$€-407]` → `[$€]`, `[$-409]` → '': a locale tag's symbol stays, its locale goes (quoted text is left alone). */
function withoutLocales(code: string): string {
  return code.replace(/("[^"]*")|\[\$([^\]-]*)-[0-9A-Fa-f]+\]/g, (match, quoted: string | undefined, symbol: string | undefined) => {
    if (quoted !== undefined) return match;
    return symbol ? `[$${symbol}]` : '';
  });
}
