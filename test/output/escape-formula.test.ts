import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeFormula, needsFormulaEscape } from '../../src/output/escape-formula.js';

describe('escapeFormula', () => {
  const escaped: string[] = [
    '=SUM(A1)',
    '=1+1',
    '=',
    '@',
    '@SUM(A1)',
    '@cmd',
    '-foo',
    '- This class includes: growing of cereals',
    '-2+3',
    '+1-1',
    '-1)',
    '--1',
    '-1e',
    '-e5',
    '-1,2,3',
    '-12,34.5',
    '-1.234.5',
    '-1 234',
    '+33 1 23 45 67 89',
    '+33 123 456 789',
    '-0x1F',
    '-Infinity',
    '-NaN',
    '- 1',
    '+1 ',
    '\t=cmd',
    '\tplain text after a tab',
    '\r=cmd',
    '\rline',
    "=HYPERLINK(\"http://evil\",\"x\")",
    '-1+cmd|\' /C calc\'!A0',
  ];
  const numbers: string[] = ['-21.419,06', '-0.5', '+1', '-1,234.56', '-1e5', '-1E-3', '+2.5e+10', '-.5', '-,5', '-12%', '-1.234.567', '-1,234,567', "-1'234.50", '-1\u00a0234,56', '-1\u202f234', '-0', '+007'];
  const untouched: string[] = ['', '-', '+', 'plain', '01.0101', '1e5', '#NAME?', 'a=b', ' =not first', "'already", 'x-1'];

  it.each(escaped)('escapes %j', (cell) => expect(escapeFormula(cell)).toBe(`'${cell}`));
  it.each(numbers)('keeps the plain number %j', (cell) => expect(escapeFormula(cell)).toBe(cell));
  it.each(untouched)('keeps %j', (cell) => expect(escapeFormula(cell)).toBe(cell));

  it('needsFormulaEscape is true exactly for the cells escapeFormula prefixes', () => {
    for (const cell of escaped) expect(needsFormulaEscape(cell)).toBe(true);
    for (const cell of [...numbers, ...untouched]) expect(needsFormulaEscape(cell)).toBe(false);
    fc.assert(fc.property(fc.constantFrom('=', '-', '+', '@', 'a'), fc.string(), (first, rest) => needsFormulaEscape(first + rest) === (escapeFormula(first + rest) !== first + rest)));
  });

  it('leaves no cell starting with a formula character, except plain numbers and a lone - or +', () => {
    const trigger = fc.constantFrom('=', '+', '-', '@', '\t', '\r', 'a', '1', ' ');
    fc.assert(
      fc.property(trigger, fc.string(), (first, rest): void => {
        const out = escapeFormula(first + rest);
        if (out.startsWith("'")) expect(out.slice(1)).toBe(first + rest);
        else if ('=@\t\r'.includes(first)) throw new Error(`not escaped: ${JSON.stringify(first + rest)}`);
        else if ('+-'.includes(first)) expect(out === '-' || out === '+' || /^[+-][\d.,'\u00a0\u202f]*\d*(?:[eE][+-]?\d+)?%?$/.test(out)).toBe(true);
        else expect(out).toBe(first + rest);
      }),
    );
  });

  it('never escapes twice a cell it escaped (idempotent on output)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(escapeFormula(escapeFormula(s))).toBe(escapeFormula(s));
      }),
    );
  });
});
