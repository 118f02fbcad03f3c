import type { Token } from './number-format-tokens.js';

/** Number rendering for Excel number formats (see number-format.ts): General, fixed, scientific and fraction forms. */

/**
 * Formats a number the way Excel's `General` format shows it in a wide column: up to 15 significant digits (Excel's
 * precision, so binary noise such as 0.30000000000000004 reads 0.3), scientific notation from 1E+15 and below 1E-9.
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

/** Places `digits` into the placeholders of `part`, right to left for integers, left to right for decimals. */
function fillPlaceholders(tokens: Token[], part: 'int' | 'exp' | 'num' | 'den', digits: string, thousands = false): Map<number, string> {
  const slots = tokens.map((t, i) => (t.kind === 'digit' && t.part === part ? i : -1)).filter((i) => i >= 0);
  const out = new Map<number, string>();
  let remaining = digits === '0' ? '' : digits;
  for (let s = slots.length - 1; s >= 0; s -= 1) {
    const index = slots[s] ?? 0;
    const token = tokens[index];
    const ch = token?.kind === 'digit' ? token.ch : '#';
    if (s === 0) {
      const lead = remaining === '' ? (ch === '0' ? '0' : ch === '?' ? ' ' : '') : remaining;
      out.set(index, thousands ? lead.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : lead);
    } else if (remaining !== '') {
      out.set(index, remaining.slice(-1));
      remaining = remaining.slice(0, -1);
    } else out.set(index, ch === '0' ? '0' : ch === '?' ? ' ' : '');
  }
  if (thousands && slots.length > 1) {
    // Grouping applies to the whole integer: render it in the first slot, clear the others.
    const whole = slots.map((i) => out.get(i) ?? '').join('').replace(/,/g, '');
    slots.forEach((i, s) => out.set(i, s === 0 ? whole.replace(/^(\s*)(\d+)/, (_m, sp: string, d: string) => sp + d.replace(/\B(?=(\d{3})+(?!\d))/g, ',')) : ''));
  }
  return out;
}

function render(tokens: Token[], filled: Map<number, string>, value: number, expSign = ''): string {
  return tokens
    .map((t, i) => {
      switch (t.kind) {
        case 'text': return t.text;
        case 'general': return formatGeneral(value);
        case 'point': return '.';
        case 'exp': return `E${expSign}`;
        case 'den': return String(t.value);
        default: return filled.get(i) ?? '';
      }
    })
    .join('');
}

/** `value` in a fixed-point format (`#,##0.00`, `000-00-0000`…). */
export function formatFixed(value: number, tokens: Token[], thousands: boolean): string {
  const fracSlots = tokens.filter((t) => t.kind === 'digit' && t.part === 'frac') as Array<{ ch: string }>;
  const rounded = Math.abs(value).toFixed(Math.min(fracSlots.length, 20));
  const [intDigits = '0', fracDigits = ''] = rounded.split('.');
  const filled = fillPlaceholders(tokens, 'int', intDigits, thousands);
  let f = 0;
  tokens.forEach((t, i) => {
    if (t.kind === 'digit' && t.part === 'frac') {
      filled.set(i, fracDigits[f] ?? '');
      f += 1;
    }
  });
  // Trailing zeros shown by '#' vanish, by '?' become spaces.
  const fracIndexes = tokens.map((t, i) => (t.kind === 'digit' && t.part === 'frac' ? i : -1)).filter((i) => i >= 0);
  for (let k = fracIndexes.length - 1; k >= 0; k -= 1) {
    const i = fracIndexes[k] ?? 0;
    const t = tokens[i];
    if (filled.get(i) !== '0' || t?.kind !== 'digit' || t.ch === '0') break;
    filled.set(i, t.ch === '?' ? ' ' : '');
  }
  const negative = value < 0 && Number(rounded) !== 0;
  return (negative ? '-' : '') + render(tokens, filled, value);
}

/** `value` in a scientific format (`0.00E+00`, `##0.0E+0`). */
export function formatScientific(value: number, tokens: Token[], sign: string): string {
  const intSlots = tokens.filter((t) => t.kind === 'digit' && t.part === 'int').length;
  const fracSlots = tokens.filter((t) => t.kind === 'digit' && t.part === 'frac').length;
  const step = intSlots > 1 && tokens.some((t) => t.kind === 'digit' && t.part === 'int' && t.ch === '#') ? intSlots : 1;
  let exp = value === 0 ? 0 : Math.floor(Math.log10(Math.abs(value)));
  exp = Math.floor(exp / step) * step;
  let mantissa = Math.abs(value) / 10 ** exp;
  if (Number(mantissa.toFixed(fracSlots)) >= 10 ** step) {
    exp += step;
    mantissa /= 10 ** step;
  }
  const [intDigits = '0', fracDigits = ''] = mantissa.toFixed(fracSlots).split('.');
  const filled = fillPlaceholders(tokens, 'int', intDigits);
  let f = 0;
  tokens.forEach((t, i) => {
    if (t.kind === 'digit' && t.part === 'frac') filled.set(i, fracDigits[f++] ?? '');
  });
  const expFilled = fillPlaceholders(tokens, 'exp', String(Math.abs(exp)));
  expFilled.forEach((v, k) => filled.set(k, v));
  const expSign = exp < 0 ? '-' : sign === '+' ? '+' : '';
  return (value < 0 ? '-' : '') + render(tokens, filled, value, expSign);
}

/** `value` in a fraction format (`# ?/?`, `# ?/8`). */
export function formatFraction(value: number, tokens: Token[]): string {
  const denToken = tokens.find((t) => t.kind === 'den');
  const fixedDen = denToken?.kind === 'den' ? denToken.value : undefined;
  const denDigits = tokens.filter((t) => t.kind === 'digit' && t.part === 'den').length || 1;
  const hasWhole = tokens.some((t) => t.kind === 'digit' && t.part === 'int');
  const abs = Math.abs(value);
  let whole = hasWhole ? Math.floor(abs) : 0;
  const rest = abs - whole;
  let best = { num: 0, den: fixedDen ?? 1, err: Infinity };
  const maxDen = fixedDen ?? 10 ** denDigits - 1;
  for (let den = fixedDen ?? 1; den <= maxDen; den += 1) {
    const num = Math.round(rest * den);
    const err = Math.abs(rest - num / den);
    if (err < best.err - 1e-12) best = { num, den, err };
  }
  if (hasWhole && best.num === best.den) {
    whole += 1;
    best = { ...best, num: 0 };
  }
  const sign = value < 0 ? '-' : '';
  if (best.num === 0 && hasWhole) return sign + String(whole);
  const filled = fillPlaceholders(tokens, 'int', whole === 0 ? '' : String(whole));
  fillPlaceholders(tokens, 'num', String(best.num)).forEach((v, k) => filled.set(k, v));
  if (fixedDen === undefined) fillPlaceholders(tokens, 'den', String(best.den)).forEach((v, k) => filled.set(k, v));
  return sign + render(tokens, filled, value).trim();
}
