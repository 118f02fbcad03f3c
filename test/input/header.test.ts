/** Header cleaning: blank names, repeats, outer whitespace, and what the notes say. */
import { describe, expect, test } from 'vitest';
import { cleanHeader } from '../../src/input/header.js';
import { openInput } from '../../src/input/open-input.js';
import { readAll, scratchDir } from './helpers.js';

describe('cleanHeader', () => {
  test('blank names become column_N with N the 1-based position', () => {
    const { columns, notes } = cleanHeader(['id', '', 'text', '   ']);
    expect(columns).toEqual(['id', 'column_2', 'text', 'column_4']);
    expect(notes).toEqual(['column 2 has no name; called it column_2', 'column 4 has no name; called it column_4']);
  });

  test('repeated names become name_2, name_3 in order, skipping suffixes already used', () => {
    expect(cleanHeader(['a', 'a', 'a']).columns).toEqual(['a', 'a_2', 'a_3']);
    expect(cleanHeader(['a', 'a', 'a_2']).columns).toEqual(['a', 'a_3', 'a_2']);
    expect(cleanHeader(['column_2', '']).columns).toEqual(['column_2', 'column_2_2']);
    expect(cleanHeader(['Name', 'name']).columns).toEqual(['Name', 'name']);
    expect(cleanHeader(['x', 'x']).notes).toEqual(['column 2 repeats the name "x"; called it "x_2"']);
  });

  test('outer whitespace is trimmed and reported; inner whitespace is kept and pointed out', () => {
    const { columns, notes } = cleanHeader(['Code', ' Intitulés de la  NAF ', 'Two\nlines', '\u00a0nbsp']);
    expect(columns).toEqual(['Code', 'Intitulés de la  NAF', 'Two\nlines', 'nbsp']);
    expect(notes).toContain('column 2 name " Intitulés de la  NAF " has spaces around it; called it "Intitulés de la  NAF"');
    expect(notes.some((n) => n.startsWith('column 2 name "Intitulés de la  NAF" contains'))).toBe(true);
    expect(notes.some((n) => n.startsWith('column 3 name "Two\\nlines" contains'))).toBe(true);
    expect(notes.some((n) => n.startsWith('column 4'))).toBe(true);
  });

  test('names that are already clean give no notes; names are always unique and non-blank', () => {
    expect(cleanHeader(['a', 'b']).notes).toEqual([]);
    const { columns } = cleanHeader(['', 'x', ' x', 'x ', '', 'column_1']);
    expect(new Set(columns).size).toBe(columns.length);
    for (const name of columns) expect(name).not.toBe('');
  });
});

test('a CSV with duplicate and blank header names reads under the cleaned names', async () => {
  const scratch = await scratchDir();
  try {
    const source = await openInput(await scratch.file('dup.csv', 'name,,name, score \nA,1,B,2\n'), {});
    expect(source.columns).toEqual(['name', 'column_2', 'name_2', 'score']);
    expect(source.headerNotes).toHaveLength(3);
    expect((await readAll(source))[0]?.cells).toEqual(['A', '1', 'B', '2']);
  } finally {
    await scratch.cleanup();
  }
});
