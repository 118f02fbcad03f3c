/**
 * tokenFeatures' ASCII fast path (a scan by character code) gives the vector of the Unicode piece scan for every
 * ASCII text: words, digits, line breaks, the other whitespace, punctuation and control characters, in any mix.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiFeatures, tokenFeatures, unicodeFeatures } from '../../src/schedule/token-estimator.js';

const ASCII_PARTS = ['a', 'Z', 'word', 'Wirtschaftlichkeit', 'abcdefgh', '7', '2024', ' ', '  ', '\t', '\n', '\r\n', '\v', '\f', '.', ',', '"', '{', '_', '\u0000', '\u001f', '\u007f', '-', "'s"];

describe('tokenFeatures on ASCII text', () => {
  it('the character-code scan equals the Unicode piece scan', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ASCII_PARTS), { maxLength: 40 }), fc.string({ unit: 'binary-ascii', maxLength: 60 }), (parts, noise) => {
        for (const text of [parts.join(''), noise, parts.join('') + noise]) {
          expect([...asciiFeatures(text)], JSON.stringify(text)).toEqual([...unicodeFeatures(text)]);
        }
      }),
      { numRuns: 500, seed: 20261202 },
    );
  });

  it('is the path taken for ASCII text, and the Unicode scan for the rest', () => {
    const ascii = 'Does this skill group align with our purpose?\nSkill: 3D printing (additive manufacturing), level 2.';
    expect([...tokenFeatures(ascii)]).toEqual([...asciiFeatures(ascii)]);
    const german = 'Wirtschaftlichkeitsberechnungen für Größe 2';
    expect([...tokenFeatures(german)]).toEqual([...unicodeFeatures(german)]);
    // the Unicode vector counts the non-ASCII word, which the ASCII scan cannot see
    expect(tokenFeatures(german)[3]).toBe(2);
  });
});
