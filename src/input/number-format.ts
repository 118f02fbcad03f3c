/**
 * Excel number formats (`numFmt` codes such as `#,##0.00`, `0%`, `yyyy-mm-dd`, `(###) ###-####`) applied to a cell
 * value, so that a number or date reads as the sheet displays it. Covers the codes people use in practice:
 * sections (`pos;neg;zero;text`), quoted and escaped literals, colours and locale tags, `0 # ?` placeholders with
 * literals between them, thousands separators and scaling commas, percent, scientific notation, fractions, and
 * date/time codes including elapsed `[h]`. Names of months and days are English; the decimal separator is `.`
 * and the thousands separator `,` (the stored format's own symbols, not the viewer's locale).
 * Reference: ECMA-376 Part 1, §18.8.31 numFmt; Microsoft "Review guidelines for customizing a number format".
 */
import { EPOCH_1900, MS_PER_DAY, OFFSET_1904, formatDateTokens } from './number-format-date.js';
import { formatFixed, formatFraction, formatGeneral, formatScientific } from './number-format-digits.js';
import { tokenize } from './number-format-tokens.js';

export { formatGeneral };

/** The Excel serial number of a date as exceljs decoded it (UTC wall time). */
export function dateToSerial(date: Date, date1904 = false): number {
  return date.getTime() / MS_PER_DAY + EPOCH_1900 - (date1904 ? OFFSET_1904 : 0);
}

/**
 * Formats a cell value with an Excel number format code.
 * @param value a number, or a Date as exceljs decodes date-formatted cells.
 * @param format the `numFmt` code; undefined or `General` gives `formatGeneral`.
 * @param date1904 the workbook uses the 1904 date system.
 */
export function formatNumber(value: number | Date, format: string | undefined, date1904 = false): string {
  const serial = value instanceof Date ? dateToSerial(value, date1904) : value;
  if (format === undefined || format === '' || /^general$/i.test(format)) {
    return value instanceof Date ? formatSection(serial, 'yyyy-mm-dd hh:mm:ss', date1904) : formatGeneral(serial);
  }
  // Built-in format 14 is "the locale's short date" and 22 its date and time: exceljs reports them as these codes.
  // What Excel shows for them depends on the viewer's locale, so an unambiguous ISO form is written instead.
  if (format === 'mm-dd-yy') return formatSection(serial, 'yyyy-mm-dd', date1904);
  if (format === 'm/d/yy "h":mm' || format === 'm/d/yy h:mm') return formatSection(serial, 'yyyy-mm-dd h:mm', date1904);
  const sections = splitSections(format);
  const { section, number } = pickSection(sections, serial);
  return formatSection(number, section, date1904);
}

/** Splits a code at `;` outside quotes, brackets and escapes. */
function splitSections(format: string): string[] {
  const sections: string[] = [];
  let current = '';
  for (let i = 0; i < format.length; i += 1) {
    const ch = format[i] ?? '';
    if (ch === '"') {
      const end = format.indexOf('"', i + 1);
      const stop = end === -1 ? format.length : end + 1;
      current += format.slice(i, stop);
      i = stop - 1;
    } else if (ch === '\\' || ch === '_' || ch === '*') {
      current += format.slice(i, i + 2);
      i += 1;
    } else if (ch === '[') {
      const end = format.indexOf(']', i);
      const stop = end === -1 ? format.length : end + 1;
      current += format.slice(i, stop);
      i = stop - 1;
    } else if (ch === ';') {
      sections.push(current);
      current = '';
    } else current += ch;
  }
  sections.push(current);
  return sections;
}

const CONDITION = /\[(<=|>=|<>|<|>|=)(-?\d+(?:\.\d+)?)\]/;

function test(value: number, op: string, limit: number): boolean {
  switch (op) {
    case '<': return value < limit;
    case '<=': return value <= limit;
    case '>': return value > limit;
    case '>=': return value >= limit;
    case '=': return value === limit;
    default: return value !== limit;
  }
}

/** The section that applies to `value`, and the number to format with it (absolute for a negative section). */
function pickSection(sections: string[], value: number): { section: string; number: number } {
  const numeric = sections.slice(0, 3);
  const conditional = numeric.map((s) => CONDITION.exec(s));
  if (conditional.some(Boolean)) {
    for (let i = 0; i < numeric.length; i += 1) {
      const match = conditional[i];
      if (match && test(value, match[1] ?? '=', Number(match[2]))) return { section: numeric[i] ?? '', number: i === 0 ? value : Math.abs(value) };
    }
    const fallback = numeric.find((_, i) => !conditional[i]) ?? numeric[numeric.length - 1] ?? '';
    return { section: fallback, number: Math.abs(value) };
  }
  if (value < 0 && numeric.length >= 2) return { section: numeric[1] ?? '', number: Math.abs(value) };
  if (value === 0 && numeric.length >= 3) return { section: numeric[2] ?? '', number: 0 };
  return { section: numeric[0] ?? '', number: value };
}

function formatSection(value: number, section: string, date1904: boolean): string {
  if (section === '') return '';
  const parsed = tokenize(section);
  if (parsed.isDate) return formatDateTokens(value, parsed.tokens, date1904);
  const hasDigits = parsed.tokens.some((t) => t.kind === 'digit');
  if (!hasDigits) {
    return parsed.tokens.map((t) => (t.kind === 'text' ? t.text : t.kind === 'general' ? formatGeneral(value) : '')).join('');
  }
  const scaled = (value * 100 ** parsed.percent) / 1000 ** parsed.scale;
  if (parsed.fraction) return formatFraction(scaled, parsed.tokens);
  if (parsed.exponent !== undefined) return formatScientific(scaled, parsed.tokens, parsed.exponent);
  return formatFixed(scaled, parsed.tokens, parsed.thousands);
}
