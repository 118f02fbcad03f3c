import type { Token } from './number-format-tokens.js';

/** Date and time rendering for Excel number formats (see number-format.ts). Month and day names are English. */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** Milliseconds in a day. */
export const MS_PER_DAY = 86_400_000;
/** Days between Excel's 1900 epoch (serial 0 = 1899-12-30, after the 1900 leap-year bug) and 1970-01-01. */
export const EPOCH_1900 = 25_569;
/** Extra days of the 1904 date system. */
export const OFFSET_1904 = 1_462;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * An Excel serial date-time in the tokens of a date format; rounds to the shown precision (whole seconds unless
 * the format has `.0` codes).
 */
export function formatDateTokens(serial: number, tokens: Token[], date1904: boolean): string {
  const fractional = tokens.find((t) => t.kind === 'date' && t.code.startsWith('.'));
  const decimals = fractional?.kind === 'date' ? fractional.code.length - 1 : 0;
  const unit = 1000 / 10 ** decimals;
  const totalMs = Math.round((serial * MS_PER_DAY) / unit) * unit;
  const date = new Date(totalMs - (EPOCH_1900 - (date1904 ? OFFSET_1904 : 0)) * MS_PER_DAY);
  const hasAmPm = tokens.some((t) => t.kind === 'date' && (t.code === 'am/pm' || t.code === 'a/p'));
  const hours = date.getUTCHours();
  const dateCodes = tokens.map((t, i) => ({ t, i })).filter(({ t }) => t.kind === 'date');
  const isMinute = (i: number): boolean => {
    const pos = dateCodes.findIndex((d) => d.i === i);
    const prev = dateCodes[pos - 1]?.t;
    const next = dateCodes[pos + 1]?.t;
    return (prev?.kind === 'date' && /^(h|hh|\[h+\])$/.test(prev.code)) || (next?.kind === 'date' && /^(s|ss|\[s+\])$/.test(next.code));
  };
  return tokens
    .map((t, i) => {
      if (t.kind === 'text') return t.text;
      if (t.kind !== 'date') return '';
      const code = t.code;
      switch (code) {
        case 'yyyy': case 'yyy': return String(date.getUTCFullYear());
        case 'yy': case 'y': return pad(date.getUTCFullYear() % 100, 2);
        case 'mmmmm': return MONTHS[date.getUTCMonth()]?.[0] ?? '';
        case 'mmmm': return MONTHS[date.getUTCMonth()] ?? '';
        case 'mmm': return (MONTHS[date.getUTCMonth()] ?? '').slice(0, 3);
        case 'mm': return isMinute(i) ? pad(date.getUTCMinutes(), 2) : pad(date.getUTCMonth() + 1, 2);
        case 'm': return isMinute(i) ? String(date.getUTCMinutes()) : String(date.getUTCMonth() + 1);
        case 'dddd': return DAYS[date.getUTCDay()] ?? '';
        case 'ddd': return (DAYS[date.getUTCDay()] ?? '').slice(0, 3);
        case 'dd': return pad(date.getUTCDate(), 2);
        case 'd': return String(date.getUTCDate());
        case 'hh': return pad(hasAmPm ? ((hours + 11) % 12) + 1 : hours, 2);
        case 'h': return String(hasAmPm ? ((hours + 11) % 12) + 1 : hours);
        case 'ss': return pad(date.getUTCSeconds(), 2);
        case 's': return String(date.getUTCSeconds());
        case 'am/pm': return hours < 12 ? 'AM' : 'PM';
        case 'a/p': return hours < 12 ? 'A' : 'P';
        default:
          if (code.startsWith('.')) return `.${pad(date.getUTCMilliseconds(), 3).slice(0, decimals)}`;
          if (code.startsWith('[h')) return pad(Math.floor(totalMs / 3_600_000), code.length - 2);
          if (code.startsWith('[m')) return pad(Math.floor(totalMs / 60_000), code.length - 2);
          if (code.startsWith('[s')) return pad(Math.floor(totalMs / 1000), code.length - 2);
          if (code.startsWith('e')) return String(date.getUTCFullYear());
          return code;
      }
    })
    .join('');
}
