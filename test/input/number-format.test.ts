/** Excel number formats applied to numbers and dates, as a sheet displays them. */
import { describe, expect, test } from 'vitest';
import { formatGeneral, formatNumber } from '../../src/input/number-format.js';

describe('formatGeneral', () => {
  test.each([
    [0, '0'],
    [42, '42'],
    [-7, '-7'],
    [0.1 + 0.2, '0.3'],
    [1234.5678, '1234.5678'],
    [12345678901234, '12345678901234'],
    [1 / 3, '0.333333333333333'],
    [1e20, '1E+20'],
    [-2.5e-12, '-2.5E-12'],
  ])('%s → %s', (value, expected) => {
    expect(formatGeneral(value)).toBe(expected);
    expect(formatNumber(value, 'General')).toBe(expected);
  });
});

describe('number formats', () => {
  test.each([
    [1234.5, '0', '1235'],
    [1234.5, '0.00', '1234.50'],
    [1234.5, '#,##0', '1,235'],
    [1234567.891, '#,##0.00', '1,234,567.89'],
    [-1234.5, '#,##0.00', '-1,234.50'],
    [-1234.5, '#,##0.00;(#,##0.00)', '(1,234.50)'],
    [0, '#,##0.00;(#,##0.00);"-"', '-'],
    [0.256, '0%', '26%'],
    [0.256, '0.0%', '25.6%'],
    [42, '000', '042'],
    [7, '00000', '00007'],
    [5551234567, '(###) ###-####', '(555) 123-4567'],
    [123456789, '000-00-0000', '123-45-6789'],
    [0.5, '#.##', '.5'],
    [2.5, '0.0#', '2.5'],
    [2.567, '0.0#', '2.57'],
    [12345.678, '0.00E+00', '1.23E+04'],
    [0.000123, '0.0E+00', '1.2E-04'],
    [1234.5, '[$€-407] #,##0.00', '€ 1,234.50'],
    [1234.5, '"$"#,##0.00_);[Red]\\("$"#,##0.00\\)', '$1,234.50 '],
    [-1234.5, '"$"#,##0.00_);[Red]\\("$"#,##0.00\\)', '($1,234.50)'],
    [1500000, '#,##0.0,,"M"', '1.5M'],
    [1.25, '# ?/?', '1 1/4'],
    [0.5, '# ?/?', '1/2'],
    [3, '# ?/?', '3'],
    [2.375, '# ?/8', '2 3/8'],
    [12, '@', '12'],
    [12, '0 "units"', '12 units'],
    [-3, '0;[Red]0', '3'],
  ])('%s with %s → %j', (value, format, expected) => {
    expect(formatNumber(value, format)).toBe(expected);
  });
});

describe('date formats', () => {
  const day = new Date(Date.UTC(2024, 0, 5, 14, 3, 9));
  test.each([
    ['yyyy-mm-dd', '2024-01-05'],
    ['dd/mm/yyyy', '05/01/2024'],
    ['d/m/yy', '5/1/24'],
    ['d-mmm-yy', '5-Jan-24'],
    ['mmmm d, yyyy', 'January 5, 2024'],
    ['dddd', 'Friday'],
    ['ddd d mmm', 'Fri 5 Jan'],
    ['h:mm', '14:03'],
    ['h:mm:ss AM/PM', '2:03:09 PM'],
    ['hh:mm', '14:03'],
    ['yyyy-mm-dd hh:mm:ss', '2024-01-05 14:03:09'],
    ['mm-dd-yy', '2024-01-05'],
    ['m/d/yy "h":mm', '2024-01-05 14:03'],
    ['[$-409]mmmm yyyy', 'January 2024'],
  ])('%s → %s', (format, expected) => {
    expect(formatNumber(day, format)).toBe(expected);
  });

  test('a date serial number with a date format reads as a date', () => {
    expect(formatNumber(45296, 'yyyy-mm-dd')).toBe('2024-01-05');
    expect(formatNumber(45296.5, 'yyyy-mm-dd h:mm')).toBe('2024-01-05 12:00');
  });

  test('the 1904 date system', () => {
    expect(formatNumber(45296 - 1462, 'yyyy-mm-dd', true)).toBe('2024-01-05');
  });

  test('elapsed time and seconds rounding', () => {
    expect(formatNumber(1.5, '[h]:mm')).toBe('36:00');
    expect(formatNumber(0.000011574, 'h:mm:ss')).toBe('0:00:01');
    expect(formatNumber(new Date(Date.UTC(1899, 11, 30, 0, 0, 1, 500)), 'mm:ss.0')).toBe('00:01.5');
  });

  test('a Date with General shows date and time', () => {
    expect(formatNumber(day, undefined)).toBe('2024-01-05 14:03:09');
  });
});

describe('codes the formatter cannot read, and locale tags', () => {
  test('an unreadable code shows the number as General, never throws', () => {
    expect(formatNumber(1234.5, '0.00"')).toBe('1234.5');
    expect(formatNumber(1234.5, '0;0;0;@;0')).toBe('1234.5');
  });

  test("a locale tag keeps its symbol; names stay English and separators as the code writes them", () => {
    expect(formatNumber(1234.5, '[$USD-409] #,##0.00')).toBe('USD 1,234.50');
    expect(formatNumber(45296.25, '[$-407]dddd h:mm')).toBe('Friday 6:00');
    expect(formatNumber(1234.5, '"[$x-407]" 0')).toBe('[$x-407] 1235');
  });
});
