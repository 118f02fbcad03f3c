/**
 * src/simulator/tokenizer.ts (our own byte-level BPE over the o200k_base ranks) against js-tiktoken's `Tiktoken`, the
 * oracle: equal counts on every line of every file of test/fixtures/data (real public files and the synthetic ones)
 * and on seeded random multilingual strings, and equal truncations (`decode(encode(text).slice(0, k))`). Lines, not
 * cells: a cell-by-cell pass over the same files (48,500 cells) cost 0.6 s more CPU and found no mismatch either.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom, type Random } from '../../src/simulator/random.js';
import { countTokens, truncateToTokens, warmTokenizer } from '../../src/simulator/tokenizer.js';

const DATA = resolve(import.meta.dirname, '..', 'fixtures', 'data');

let oracle: Tiktoken;
beforeAll(() => {
  oracle = new Tiktoken(o200k); // built once: ~1 s of CPU
});

/** Oracle token ids, special-token strings as ordinary text (what the simulator counts). */
function encode(text: string): number[] {
  return oracle.encode(text, [], []);
}

/**
 * Oracle count of a text as the sum of js-tiktoken's counts of its pieces (split by the same `pat_str`), each piece
 * encoded once: js-tiktoken's `encode` merges each match of `pat_str` on its own, and encoding the lines
 * whole would cost ~3 s of CPU more. The tests below check this sum against whole-text `encode` on a sample of
 * the lines and on the random strings.
 */
const oraclePieces = new Map<string, number>();
/** `pat_str`, global: used only through `matchAll`, which clones it. */
const PIECES = new RegExp(o200k.pat_str, 'gu');
function oracleCountByPiece(text: string): number {
  let n = 0;
  for (const [piece] of text.matchAll(PIECES)) {
    let c = oraclePieces.get(piece);
    if (c === undefined) {
      c = encode(piece).length;
      oraclePieces.set(piece, c);
    }
    n += c;
  }
  return n;
}

/** The texts on which our count and the oracle's differ, each with both counts (empty when all agree). */
function countMismatches(texts: Iterable<string>, oracleCount: (text: string) => number = (t) => encode(t).length): { text: string; ours: number; oracle: number }[] {
  const bad: { text: string; ours: number; oracle: number }[] = [];
  for (const text of texts) {
    const ours = countTokens(text);
    const expected = oracleCount(text);
    if (ours !== expected) bad.push({ text: text.slice(0, 200), ours, oracle: expected });
  }
  return bad;
}

/** Every line of every file of test/fixtures/data, read as UTF-8 (U+FFFD where a file is not), `\r` kept. */
function dataLines(): string[] {
  return readdirSync(DATA).flatMap((name) => readFileSync(join(DATA, name), 'utf8').split('\n'));
}

const FRAGMENTS: ((r: Random) => string)[] = [
  (r) => pick(r, ['the', 'The', 'quick', 'brown', 'FOX', 'jumps', 'over', 'lazy', 'dog', 'classification', 'unbelievably', 'x', 'I']),
  (r) => pick(r, ["'s", "'re", "'LL", "'ve", "'d", "'M", "'t", "'Re", "'lL"]),
  (r) => String(r.int(0, 10 ** r.int(1, 9))),
  (r) => pick(r, [' ', '  ', '\t', '\n', '\r\n', '\r\n\r\n', ' \n ', '\t\t ', '   \r\n', '\u00a0', '\u3000']),
  (r) => pick(r, ['东京', '北京市', '自然语言处理', '中文分词测试', '漢字']),
  (r) => pick(r, ['日本語', 'ひらがな', 'カタカナ', '東京は晴れです。', 'ｶﾀｶﾅ']),
  (r) => pick(r, ['Grüße', 'Straße', 'Äpfel', 'Ölförderung', 'MÜNCHEN', 'über']),
  (r) => pick(r, ['😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇫🇷', '❤️', '🧑🏿‍💻']),
  (r) => pick(r, ['e\u0301', 'a\u0308\u0304', '\u0301', 'n\u0303o', 'Z\u0336a\u0336']),
  (r) => pick(r, ['<|endoftext|>', '<|endofprompt|>', '<|', '|>']),
  (r) => pick(r, ['.', ',', '!?', '...', '"', '(', ')', '{"id":"bc","label":"late"},', '#NAME?', '€', '—', '/', '\\', '\ufeff']),
  (r) => pick(r, ['\ud800', '\udfff', 'a\ud83d', '\u0000', '\u009d', '\u200b']),
  (r) => Array.from({ length: r.int(129, 180) }, () => String.fromCharCode(97 + r.int(0, 25))).join(''), // an uncached piece
  (r) => ' '.repeat(r.int(2, 150)),
];

function pick(r: Random, items: readonly string[]): string {
  return items[r.int(0, items.length - 1)] as string;
}

/** `count` seeded random strings mixing the fragments above, mostly short, a few long. */
function randomStrings(seed: number, count: number): string[] {
  const r = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const parts = r.int(1, r.next() < 0.1 ? 60 : 16);
    let text = '';
    for (let i = 0; i < parts; i++) {
      // the long fragments rarely, so the strings stay mostly cache-sized pieces
      const f = FRAGMENTS[r.int(0, FRAGMENTS.length - (r.next() < 0.99 ? 3 : 1))] as (r: Random) => string;
      text += f(r);
      if (r.next() < 0.5) text += ' ';
    }
    return text;
  });
}

describe('countTokens equals js-tiktoken (o200k_base, special tokens as text)', () => {
  it('on the recorded examples', () => {
    warmTokenizer();
    expect(countTokens('The quick brown fox jumps over the lazy dog.')).toBe(10);
    expect(countTokens('why is the sky blue?')).toBe(6);
    expect(countTokens('')).toBe(0);
    expect(countTokens('<|endoftext|>')).toBe(encode('<|endoftext|>').length);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('a piece with the FNV-1a hash of a token is not taken for that token (the vocabulary is a hash table of token bytes)', () => {
    const fnv1a = (text: string) => [...Buffer.from(text)].reduce((h, byte) => Math.imul(h ^ byte, 0x01000193), 0x811c9dc5 | 0);
    expect(fnv1a('aalnbo')).toBe(fnv1a(' QList')); // a collision a reviewer found: ' QList' is one token, 'aalnbo' is not
    expect(encode(' QList')).toHaveLength(1);
    expect(countTokens('aalnbo')).toBe(encode('aalnbo').length);
    expect(countTokens('aalnbo')).toBeGreaterThan(1);
    expect(countTokens(' QList')).toBe(1);
  });

  it('on every line of every file of test/fixtures/data', () => {
    const lines = dataLines();
    expect(lines.length).toBeGreaterThan(14_000);
    // Each distinct line once (13,405 of 14,537): a repeated line is the same input to both counters.
    const distinct = [...new Set(lines)];
    const byPiece = new Map(distinct.map((l) => [l, oracleCountByPiece(l)]));
    expect(countMismatches(distinct, (l) => byPiece.get(l) as number)).toEqual([]);
    // the piece sum is js-tiktoken's whole-text count (on every 20th distinct line)
    const sample = distinct.filter((_, i) => i % 20 === 0);
    expect(sample.filter((l) => byPiece.get(l) !== encode(l).length)).toEqual([]);
  });

  it('on seeded random strings (ASCII words, digit and whitespace runs, CJK, Japanese, umlauts, emoji, marks, <|endoftext|>)', () => {
    const texts = randomStrings(20_240_611, 600);
    const first = texts.map(countTokens);
    const whole = new Map(texts.map((t) => [t, encode(t).length])); // each text through the oracle once
    expect(countMismatches(texts, (t) => whole.get(t) as number)).toEqual([]);
    // the piece sum is js-tiktoken's whole-text count (on the first 200)
    expect(texts.slice(0, 200).filter((t) => oracleCountByPiece(t) !== whole.get(t))).toEqual([]);
    // counted again (whole-text memo and piece cache warm): unchanged
    expect(texts.map(countTokens)).toEqual(first);
  });

  it('on long runs without a break (every script), in time that grows about linearly with their length', () => {
    // 130 characters: longer than the piece cache takes (128 characters) and than the longest token (128 bytes), so
    // every run is merged afresh, through many rounds of merges, and never looked up whole. js-tiktoken's merge is
    // quadratic in a piece's length: these nine runs cost it 0.05 s at 130 characters, 0.17 s at 200, 2.4 s at 700.
    const runs = ['a', '东', 'ー', 'é', '😀', '0', '.', ' '].map((c) => c.repeat(130));
    runs.push(Array.from({ length: 130 }, (_, i) => 'abcdefghij'[(i * 7) % 10]).join(''));
    expect(countMismatches(runs)).toEqual([]);
    // CPU for one run of n characters, caches bypassed (each text is new: a counter ends it; the run is one piece, longer
    // than the piece cache takes).
    let calls = 0;
    const cpuMs = (n: number, c: string): number => {
      const started = process.cpuUsage();
      countTokens(`${c.repeat(n)} ${++calls}`);
      const used = process.cpuUsage(started);
      return (used.user + used.system) / 1000;
    };
    // 16× the characters: a linear merge takes ~16× the CPU (20× with the collector's share), the old quadratic rescan
    // ~256× (32,000 CJK characters took 8.3 s). Medians of 3 after a warm-up run, so that the JIT's first compilations
    // are not in the smaller figure; the bound leaves room for a noisy machine. 1,000 and 16,000 characters (2,500 and
    // 40,000 until the merge's lookups got cheaper): the same 16×, and a quadratic merge is already quadratic at
    // 1,000 (the rescan's 8.3 s at 32,000 makes ~8 ms there, ~2 s at 16,000); measured 8-25× here, the 0.5 ms floor included.
    const median = (xs: number[]): number => xs.sort((x, y) => x - y)[1] as number;
    for (const c of ['a', '东']) {
      cpuMs(4_000, c);
      const small = Math.max(median([cpuMs(1_000, c), cpuMs(1_000, c), cpuMs(1_000, c)]), 0.5);
      const large = median([cpuMs(16_000, c), cpuMs(16_000, c), cpuMs(16_000, c)]);
      expect(large / small, c).toBeLessThan(64);
    }
  });

  it('on runs that merge to ties (the leftmost pair first)', () => {
    const texts = ['aaaa', 'aaaaaaa', '0000000', '.....', '!!!!!!!!!', 'ababababab', '=========', '\t\t\t\t\t', 'ーーーー'];
    for (const t of [...texts]) texts.push(t.repeat(7), ` ${t}`);
    expect(countMismatches(texts)).toEqual([]);
  });
});

describe('truncateToTokens equals js-tiktoken decode(encode(text).slice(0, k))', () => {
  it('for several k on seeded random strings, cuts inside multi-byte characters included', () => {
    const bad: { text: string; k: number; ours: string; oracle: string }[] = [];
    let cutInsideCharacter = 0;
    for (const text of randomStrings(7, 200)) {
      const tokens = encode(text);
      const n = tokens.length;
      for (const k of new Set([1, 2, 3, 5, Math.floor(n / 2), n - 1, n, n + 1])) {
        if (k < 1) continue;
        const expected = k >= n ? text : oracle.decode(tokens.slice(0, k));
        const ours = truncateToTokens(text, k);
        if (ours !== expected) bad.push({ text: text.slice(0, 200), k, ours, oracle: expected });
        if (k < n && expected.endsWith('\ufffd')) cutInsideCharacter++;
      }
    }
    expect(bad).toEqual([]);
    expect(cutInsideCharacter).toBeGreaterThan(0); // the strings did exercise a cut inside a character
  });

  it('drops a leading BOM as js-tiktoken decode does, returns "" for k <= 0 and the text itself when it fits', () => {
    const text = '\ufeffCode;Intitulés de la NAF rév. 2 👨‍👩‍👧‍👦 東京';
    const tokens = encode(text);
    for (let k = 1; k < tokens.length; k++) expect(truncateToTokens(text, k), `k=${k}`).toBe(oracle.decode(tokens.slice(0, k)));
    expect(truncateToTokens(text, tokens.length)).toBe(text);
    expect(truncateToTokens(text, 0)).toBe('');
    expect(truncateToTokens(text, -1)).toBe('');
    expect(truncateToTokens('', 5)).toBe('');
  });
});
