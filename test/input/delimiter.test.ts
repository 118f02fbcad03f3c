/** Delimiter detection: sniffing among , ; TAB | with quotes respected, decimal commas, and Excel's sep= line. */
import { describe, expect, test } from 'vitest';
import { openInput } from '../../src/input/open-input.js';
import { readSepLine } from '../../src/input/sep-line.js';
import { sniffDelimiter } from '../../src/input/sniff-delimiter.js';
import { fixture, readAll } from './helpers.js';

describe('sniffDelimiter', () => {
  test.each([
    ['comma', 'a,b,c\n1,2,3\n4,5,6\n', ','],
    ['semicolon with commas in text', 'code;label\n01;Farming, fishing\n02;Mining\n', ';'],
    ['tab', 'a\tb\n1\t2, 3\n', '\t'],
    ['pipe', 'id|name\n1|Smith, John\n2|Doe; Jane\n', '|'],
    ['decimal commas, ; delimited', 'x;y\n1,5;2,75\n3,25;4\n', ';'],
    ['decimal commas on every line, header included', 'a,b;c,d\n1,5;2,5\n3,5;4,5\n', ';'],
    ['grouped decimal commas', 'Artikel;Preis\nÄpfel;-21.419,06\nBirnen;2 750,25\n', ';'],
    ['commas only inside quotes', 'name;note\n"Smith, John";"a, b, c"\n"Doe, Jane";x\n', ';'],
    ['semicolons only inside quotes', 'name,note\n"a;b",c\n"d;e;f",g\n', ','],
    ['header only', 'a;b;c\n', ';'],
  ])('%s', (_label, text, expected) => {
    expect(sniffDelimiter(text, '"', true)).toBe(expected);
  });

  test('a one-column file falls back to "," (TAB for .tsv)', () => {
    expect(sniffDelimiter('sentence\nHello world.\n', '"', true)).toBe(',');
    expect(sniffDelimiter('sentence\nHello world.\n', '"', true, true)).toBe('\t');
  });

  test('a cut last record is ignored when the text is only the head of the file', () => {
    const head = 'a;b\n1;2\n3;4\n5;"cut, in the mid';
    expect(sniffDelimiter(head, '"', false)).toBe(';');
  });

  test('a quoted cell with line breaks does not disturb the count', () => {
    const text = 'id,text\n1,"line one; still\nline two; more"\n2,plain\n';
    expect(sniffDelimiter(text, '"', true)).toBe(',');
  });
});

describe('sep= line', () => {
  test.each([
    ['sep=;\r\nx', ';'],
    ['SEP=,\nx', ','],
    ['"sep=|"\r\nx', '|'],
    ['sep=\t\nx', '\t'],
    ['sep=;', ';'],
    ['separator=;\nx', undefined],
    ['a,b\nsep=;\n', undefined],
  ])('%j → %j', (text, expected) => {
    expect(readSepLine(text)).toBe(expected);
  });

  test('wins, is skipped, and is reported', async () => {
    const source = await openInput(fixture('synthetic-sep-line.csv'), {});
    expect(source.dialect).toMatchObject({ delimiter: ';', sepLine: true, lineBreak: '\r\n' });
    expect(source.columns).toEqual(['id', 'text']);
    expect(source.describe()).toBe("UTF-8, ';' delimited (sep= line), CRLF, header on line 2, 2 columns");
    const records = await readAll(source);
    expect(records.map((r) => [r.line, ...r.cells])).toEqual([
      [3, '1', 'apples, pears'],
      [4, '2', 'a; b'],
      [5, '3', 'plain'],
    ]);
  });
});

describe('files', () => {
  test('decimal-comma file: ; chosen although , also splits every line into 3 fields', async () => {
    const source = await openInput(fixture('synthetic-decimal-comma.csv'), {});
    expect(source.dialect.delimiter).toBe(';');
    expect(source.columns).toEqual(['Artikel', 'Preis (netto, €)', 'Preis (brutto, €)']);
    expect((await readAll(source)).map((r) => r.cells[1])).toEqual(['1,50', '2,10', '-21.419,06']);
  });

  test('pipe file with a .txt name', async () => {
    const source = await openInput(fixture('synthetic-pipe.txt'), {});
    expect(source.describe()).toBe("UTF-8, '|' delimited, LF, header on line 1, 3 columns");
    expect((await readAll(source))[0]?.cells).toEqual(['1', 'Smith, John', 'likes a;b']);
  });

  test('--delimiter overrides detection (and accepts "tab")', async () => {
    const semicolon = await openInput(fixture('synthetic-decimal-comma.csv'), { delimiter: ',' });
    expect(semicolon.columns).toEqual(['Artikel;Preis (netto', '€);Preis (brutto', '€)']);
    const tab = await openInput(fixture('iab-content-taxonomy-3.1.tsv'), { delimiter: 'tab', headerRow: 2 });
    expect(tab.dialect.delimiter).toBe('\t');
  });
});
