/** A whole-table assertion for the tests that compare thousands of rows of text cells (real files and their outputs). */
import { expect } from 'vitest';

/**
 * Asserts that two tables of text cells are equal, cell by cell with `===` (vitest's deep toEqual over thousands of rows
 * costs more than reading the file); a difference fails on the first row that differs, shown with toEqual's diff.
 */
export function expectSameRows(actual: readonly (readonly string[])[], expected: readonly (readonly string[])[]): void {
  const differs = (r: number) => {
    const a = actual[r]!;
    const e = expected[r]!;
    return a.length !== e.length || a.some((cell, c) => cell !== e[c]);
  };
  expect(actual.length, 'rows').toBe(expected.length);
  const first = actual.findIndex((_row, r) => differs(r));
  if (first !== -1) expect(actual[first], `row ${first + 1}`).toEqual(expected[first]);
  expect(first, 'first row that differs').toBe(-1);
}
