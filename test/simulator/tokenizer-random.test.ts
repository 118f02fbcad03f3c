/**
 * The tokenizer (o200k_base, not a chars/4 formula; tokenizer.test.ts checks it against js-tiktoken) and the seeded
 * latency sampler.
 */
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../src/simulator/index.js';
import { lognormalMs, seededRandom } from '../../src/simulator/random.js';
import { truncateToTokens } from '../../src/simulator/tokenizer.js';

describe('countTokens', () => {
  it('matches the recorded counts (fixtures 200-count-tokens and 200-thinking-max-tokens-no-text, minus the role token)', () => {
    expect(countTokens('The quick brown fox jumps over the lazy dog.')).toBe(10);
    expect(countTokens('why is the sky blue?')).toBe(6);
    expect(countTokens('')).toBe(0);
  });

  it('is a subword tokenizer, not a character ratio', () => {
    expect(countTokens('a'.repeat(40))).not.toBe(10);
    expect(countTokens('Grüße aus München, ça va? 東京は晴れです。')).toBeGreaterThan(10);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1); // special tokens count as text, never throw
  });

  it('truncates to whole tokens', () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    expect(countTokens(truncateToTokens(text, 3))).toBe(3);
    expect(text.startsWith(truncateToTokens(text, 3))).toBe(true);
    expect(truncateToTokens(text, 100)).toBe(text);
  });
});

describe('lognormal latency', () => {
  it('has the configured median and 99th percentile, and repeats with the seed', () => {
    const draw = (seed: number) => {
      const r = seededRandom(seed);
      return Array.from({ length: 20_000 }, () => lognormalMs(r, 200, 2_000)).sort((a, b) => a - b);
    };
    const xs = draw(1);
    expect(xs[10_000]! / 200).toBeGreaterThan(0.93);
    expect(xs[10_000]! / 200).toBeLessThan(1.07);
    expect(xs[19_800]! / 2_000).toBeGreaterThan(0.8);
    expect(xs[19_800]! / 2_000).toBeLessThan(1.25);
    expect(draw(1)).toEqual(xs);
    expect(lognormalMs(seededRandom(1), 0, 0)).toBe(0);
  });
});
