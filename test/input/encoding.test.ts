/** Encodings: BOMs, UTF-16 LE/BE, Windows-1252 (never latin1 C1 controls), strict decoding errors naming the line. */
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { completeUtf8Length, detectEncoding } from '../../src/input/detect-encoding.js';
import { openInput } from '../../src/input/open-input.js';
import type { InputOptions } from '../../src/input/input-source.js';
import { fixture, inputErrorOf, readAll, scratchDir } from './helpers.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => {
  await scratch.cleanup();
});

/** A header and two rows of a UTF-16 CSV: Latin-1 letters, typographic quotes, CJK, katakana, €, an emoji. */
const MIXED_UTF16_TEXT = 'Name,Text\r\nZürich “x”,日本語 テスト €\r\nÜnïcode,emoji 😀\r\n';

/** Opens and reads a file: an encoding error may surface at either step (at open when it is in the first chunk). */
async function openAndRead(path: string, options: InputOptions): Promise<unknown> {
  return readAll(await openInput(path, options));
}

describe('detectEncoding', () => {
  test('BOMs', () => {
    expect(detectEncoding(Buffer.from([0xef, 0xbb, 0xbf, 0x61]), true)).toMatchObject({ encoding: 'utf-8', bomLength: 3, source: 'BOM' });
    expect(detectEncoding(Buffer.from([0xff, 0xfe, 0x61, 0]), true)).toMatchObject({ encoding: 'utf-16le', bomLength: 2 });
    expect(detectEncoding(Buffer.from([0xfe, 0xff, 0, 0x61]), true)).toMatchObject({ encoding: 'utf-16be', bomLength: 2 });
  });

  test('ASCII and valid UTF-8 are UTF-8; a sequence cut at the end of the head does not count', () => {
    expect(detectEncoding(Buffer.from('plain,ascii\n'), true).encoding).toBe('utf-8');
    const cut = Buffer.from('café crème', 'utf8').subarray(0, 4); // "caf" + first byte of é
    expect(detectEncoding(cut, false).encoding).toBe('utf-8');
    expect(detectEncoding(cut, true).encoding).not.toBe('utf-8');
  });

  test('completeUtf8Length drops only a cut sequence', () => {
    const euro = Buffer.from('a€', 'utf8'); // 61 e2 82 ac
    expect(completeUtf8Length(euro)).toBe(4);
    expect(completeUtf8Length(euro.subarray(0, 3))).toBe(1);
    expect(completeUtf8Length(euro.subarray(0, 2))).toBe(1);
    expect(completeUtf8Length(Buffer.from('abc'))).toBe(3);
  });

  test('UTF-16 without BOM', () => {
    const text = 'id,name\r\n1,alpha\r\n2,beta\r\n';
    expect(detectEncoding(iconv.encode(text, 'utf-16le'), true)).toEqual({ encoding: 'utf-16le', bomLength: 0, source: 'UTF-16 without BOM' });
    expect(detectEncoding(iconv.encode(text, 'utf-16be'), true)).toEqual({ encoding: 'utf-16be', bomLength: 0, source: 'UTF-16 without BOM' });
  });

  test.each(['utf-16le', 'utf-16be'])('%s without BOM: with CJK, emoji and accents; CJK-heavy; U+4E00 on the "wrong" side; a cut head', (encoding) => {
    expect(detectEncoding(iconv.encode(MIXED_UTF16_TEXT, encoding), true).encoding).toBe(encoding);
    // Mostly characters without a NUL byte: only delimiters, digits and line breaks have one.
    const cjk = `編號,說明\r\n${Array.from({ length: 40 }, (_, i) => `${i},東京都の一日一万一千一百${'😀'.repeat(3)}日本語の文章です`).join('\r\n')}\r\n`;
    expect(detectEncoding(iconv.encode(cjk, encoding), true).encoding).toBe(encoding);
    // Cut in the middle of a surrogate pair, as the 64 KB head of a bigger file can be.
    const emoji = iconv.encode(`a,b\r\n1,${'😀'.repeat(20)}\r\n`, encoding);
    expect(detectEncoding(emoji.subarray(0, 12), false).encoding).toBe(encoding);
  });

  test('ASCII-heavy text without BOM: UTF-16 in both byte orders, and not when the text is UTF-8 with a stray NUL', () => {
    const ascii = `id,text\n${Array.from({ length: 500 }, (_, i) => `${i},plain ascii line ${i}`).join('\n')}\n`;
    expect(detectEncoding(iconv.encode(ascii, 'utf-16le'), false).encoding).toBe('utf-16le');
    expect(detectEncoding(iconv.encode(ascii, 'utf-16be'), false).encoding).toBe('utf-16be');
    // No line break in the head (one long first cell): decided by where most NULs are, a few on the other side allowed.
    const oneLine = `Title,${'a long description with 一 and 가 in it, '.repeat(100)}`;
    expect(detectEncoding(iconv.encode(oneLine, 'utf-16le'), false).encoding).toBe('utf-16le');
    expect(detectEncoding(iconv.encode(oneLine, 'utf-16be'), false).encoding).toBe('utf-16be');
    // Odd lengths (the head of a file cut at an odd byte) still detect.
    expect(detectEncoding(iconv.encode(ascii, 'utf-16le').subarray(0, 1001), false).encoding).toBe('utf-16le');
    const utf8 = Buffer.from(ascii, 'utf8');
    expect(detectEncoding(utf8, true).encoding).toBe('utf-8');
    const strayNuls = Buffer.from(utf8);
    strayNuls[11] = 0;
    strayNuls[101] = 0;
    expect(detectEncoding(strayNuls, true).encoding).toBe('utf-8');
  });

  test('NULs on both sides, or pairs that are not valid UTF-16, are not UTF-16', () => {
    // Every other pair has its NUL on the other side: not text in either byte order.
    const mixed = Buffer.from(Array.from({ length: 200 }, (_, i) => (i % 4 === 0 || i % 4 === 3 ? 0 : 0x41)));
    expect(detectEncoding(mixed, true).encoding).not.toMatch(/^utf-16/);
    // NULs at odd offsets, but a lone low surrogate (DC00) in little-endian order.
    const lone = Buffer.concat([iconv.encode('a,b\r\n1,2\r\n', 'utf-16le'), Buffer.from([0x00, 0xdc]), iconv.encode('x\r\n', 'utf-16le')]);
    expect(detectEncoding(lone, true).encoding).not.toMatch(/^utf-16/);
  });

  test('Western text that is not UTF-8 is Windows-1252, also when chardet says ISO-8859-1', () => {
    // chardet calls this one ISO-8859-1 (no byte in 0x80–0x9F).
    expect(detectEncoding(iconv.encode('Straße;Größe\r\nMüller;groß\r\n', 'windows-1252'), true).encoding).toBe('windows-1252');
    expect(detectEncoding(iconv.encode('Nom;Prix\r\nCafé;2,50 €\r\n“Thé”;1 €\r\n', 'windows-1252'), true).encoding).toBe('windows-1252');
  });
});

describe('files', () => {
  test('Windows-1252: € from 0x80, “ ” from 0x93/0x94, ’ from 0x92', async () => {
    const source = await openInput(fixture('synthetic-windows-1252.csv'), {});
    expect(source.dialect).toMatchObject({ encoding: 'windows-1252', bom: false, delimiter: ';' });
    expect(source.describe()).toBe("Windows-1252, ';' delimited, CRLF, header on line 1, 3 columns");
    const records = await readAll(source);
    expect(records.map((r) => r.cells)).toEqual([
      ['Café crème', '2,50 €', '“très” bon'],
      ['Thé vert', '1,80 €', 'déjà vu – à revoir'],
      ['Œuvre d’art', '3 000,00 €', 'naïve'],
    ]);
    for (const record of records) expect(record.cells.join('')).not.toMatch(/[\u0080-\u009f\uFFFD]/);
  });

  test.each([
    ['synthetic-utf16le-bom.tsv', 'utf-16le', 'UTF-16 LE with BOM, TAB delimited'],
    ['synthetic-utf16be-bom.csv', 'utf-16be', "UTF-16 BE with BOM, ',' delimited"],
  ])('%s', async (name, encoding, description) => {
    const source = await openInput(fixture(name), {});
    expect(source.dialect).toMatchObject({ encoding, bom: true, lineBreak: '\r\n' });
    expect(source.describe()).toContain(description);
    expect(source.columns).toEqual(['name', 'city', 'note']);
    expect((await readAll(source)).map((r) => [r.line, ...r.cells])).toEqual([
      [2, 'Zoë', 'México', '“quoted”'],
      [3, '東京', '日本', '😀 emoji'],
    ]);
  });

  test('a Windows-1252 byte far beyond the detected head of UTF-8 is INPUT_ENCODING naming its line', async () => {
    const lines = ['id,text'];
    for (let i = 1; i <= 20000; i += 1) lines.push(`${i},ligne numéro ${i}`);
    const head = Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
    expect(head.length).toBeGreaterThan(256 * 1024);
    const bad = Buffer.concat([head, iconv.encode('20001,caf\u00e9\r\n', 'windows-1252'), Buffer.from('20002,ok\r\n')]);
    const source = await openInput(await scratch.file('late-latin1.csv', bad), {});
    expect(source.dialect.encoding).toBe('utf-8');
    let delivered = 0;
    const error = await inputErrorOf(
      (async () => {
        for await (const record of source.records()) delivered = record.index + 1;
      })(),
    );
    expect(error.code).toBe('INPUT_ENCODING');
    expect(error.line).toBe(20002);
    expect(error.message).toContain('--encoding');
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThan(20001);
  });

  test.each(['utf-16le', 'utf-16be'])('a %s file without BOM reads with the right column names and cells', async (encoding) => {
    const path = await scratch.file(`nobom-${encoding}.csv`, iconv.encode(MIXED_UTF16_TEXT, encoding));
    const source = await openInput(path, {});
    expect(source.dialect).toMatchObject({ encoding, bom: false, delimiter: ',', lineBreak: '\r\n' });
    expect(source.columns).toEqual(['Name', 'Text']);
    expect(source.describe()).toContain(`${encoding === 'utf-16le' ? 'UTF-16 LE' : 'UTF-16 BE'}, ',' delimited`);
    expect((await readAll(source)).map((r) => r.cells)).toEqual([
      ['Zürich “x”', '日本語 テスト €'],
      ['Ünïcode', 'emoji 😀'],
    ]);
  });

  test('--encoding is obeyed; undecodable bytes under it are INPUT_ENCODING naming the line', async () => {
    const path = fixture('synthetic-windows-1252.csv');
    const error = await inputErrorOf(openAndRead(path, { encoding: 'UTF8' }));
    expect(error).toMatchObject({ code: 'INPUT_ENCODING', line: 2 });
    expect(error.message).toContain('as --encoding says');

    const latin1 = await readAll(await openInput(path, { encoding: 'latin1' }));
    expect(latin1[0]?.cells[1]).toBe('2,50 \u0080'); // what the user asked for: latin1 has C1 controls there

    const undefinedByte = await scratch.file('undefined-1252.csv', Buffer.from([0x61, 0x0a, 0x62, 0x0a, 0x81, 0x0a]));
    const error1252 = await inputErrorOf(openAndRead(undefinedByte, { encoding: 'windows-1252' }));
    expect(error1252).toMatchObject({ code: 'INPUT_ENCODING', line: 3 });
  });

  test('--encoding utf-16 follows the BOM', async () => {
    const source = await openInput(fixture('synthetic-utf16be-bom.csv'), { encoding: 'utf-16' });
    expect(source.dialect).toMatchObject({ encoding: 'utf-16be', bom: true });
    expect(source.columns).toEqual(['name', 'city', 'note']);
  });

  test('a UTF-8 BOM is stripped from the first header name and reported in the dialect', async () => {
    const path = await scratch.file('bom.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id,name\n1,a\n')]));
    const source = await openInput(path, {});
    expect(source.columns).toEqual(['id', 'name']);
    expect(source.dialect.bom).toBe(true);
  });
});

describe('binary files named .csv', () => {
  test('random bytes, a gzip archive and a PNG image are INPUT_BINARY, naming the kind when known, never suggesting --encoding', async () => {
    let seed = 7;
    const random = Uint8Array.from({ length: 4000 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) >>> 16 & 0xff);
    const gzip = (await import('node:zlib')).gzipSync(Buffer.from('id,topic\n'.repeat(500)));
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(random.subarray(0, 500))]);
    for (const [name, bytes, kind] of [
      ['random.csv', random, 'it looks binary, not text'],
      ['archive.csv', gzip, 'it looks like a gzip archive'],
      ['image.csv', png, 'it looks like a PNG image'],
    ] as const) {
      const error = await inputErrorOf(openInput(await scratch.file(name, bytes), {}));
      expect(error.code).toBe('INPUT_BINARY');
      expect(error.message).toContain(`${name}: ${kind}`);
      expect(error.message).not.toContain('--encoding');
    }
  });

  test('text with a few stray control characters, Windows-1252 text and UTF-16 are still read', async () => {
    const stray = await scratch.file('stray.csv', `id,text\n1,a\u0001b\n2,${'plain text '.repeat(50)}\u0000\n`);
    expect((await readAll(await openInput(stray, {}))).length).toBe(2);
    const cp1252 = await scratch.file('cp1252.csv', Buffer.from([...Buffer.from('id,name\n1,caf'), 0xe9, 0x0a]));
    expect((await readAll(await openInput(cp1252, {})))[0]?.cells).toEqual(['1', 'café']);
    const utf16 = await scratch.file('utf16.csv', Buffer.from('id,name\n1,x\n', 'utf16le'));
    expect((await readAll(await openInput(utf16, {})))[0]?.cells).toEqual(['1', 'x']);
  });

  test('--encoding reads the file as told, binary-looking or not', async () => {
    const path = await scratch.file('forced.csv', Buffer.from('id,v\n1,\u0001\u0002\u0003\u0004\u0005\n', 'latin1'));
    await expect(openInput(path, {})).rejects.toMatchObject({ code: 'INPUT_BINARY' });
    expect((await readAll(await openInput(path, { encoding: 'latin1' }))).length).toBe(1);
  });
});

describe('characters split between two reads', () => {
  /** Where reads end (file offsets after `start`): a first read of 16 KiB, then 64 KiB, then 256 KiB (decode-stream.ts). */
  const READ_ENDS = [16_384, 16_384 + 65_536, 16_384 + 65_536 + 262_144];

  /**
   * A CSV (`id,text`) whose `text` cells put character `chars[k]` across the k-th read end: its first `split` bytes in
   * one read, the rest in the next. Returns the file's bytes and the text cells.
   */
  function straddling(encode: (text: string) => Buffer, bom: Buffer, chars: string[], split: number): { bytes: Buffer; texts: string[] } {
    const parts: Buffer[] = [bom, encode('id,text\n')];
    let size = parts.reduce((n, p) => n + p.length, 0);
    const texts: string[] = [];
    const add = (text: string) => {
      const row = encode(`${texts.length},${text}\n`);
      texts.push(text);
      parts.push(row);
      size += row.length;
    };
    READ_ENDS.forEach((end, k) => {
      const at = bom.length + end - split; // where the character must start
      while (at - size > 300) add('filler row of plain ASCII text long enough to advance quickly through the file');
      const prefix = `${texts.length},`;
      const pad = (at - size - encode(prefix).length) / encode('x').length;
      add(`${'x'.repeat(pad)}${chars[k] as string} after`);
    });
    return { bytes: Buffer.concat(parts), texts };
  }

  test('UTF-8: a 2-, 3- and 4-byte character across each read end is read whole', async () => {
    const { bytes, texts } = straddling((t) => Buffer.from(t, 'utf8'), Buffer.alloc(0), ['é', '€', '😀'], 1);
    const records = await readAll(await openInput(await scratch.file('split-utf8.csv', bytes), {}));
    expect(records.map((r) => r.cells[1])).toEqual(texts);
  });

  test('UTF-8 with a BOM, split after 2 bytes: read whole', async () => {
    const { bytes, texts } = straddling((t) => Buffer.from(t, 'utf8'), Buffer.from([0xef, 0xbb, 0xbf]), ['日', '€', '😀'], 2);
    const records = await readAll(await openInput(await scratch.file('split-utf8-bom.csv', bytes), {}));
    expect(records.map((r) => r.cells[1])).toEqual(texts);
  });

  test('UTF-16LE: a surrogate pair across each read end (high surrogate in one read, low in the next) is read whole', async () => {
    const { bytes, texts } = straddling((t) => Buffer.from(t, 'utf16le'), Buffer.from([0xff, 0xfe]), ['😀', '𝄞', '😀'], 2);
    const records = await readAll(await openInput(await scratch.file('split-utf16.csv', bytes), {}));
    expect(records.map((r) => r.cells[1])).toEqual(texts);
  });
});
