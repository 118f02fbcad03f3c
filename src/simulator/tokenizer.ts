/**
 * A real subword tokenizer for promptTokenCount: js-tiktoken with the o200k_base ranks.
 *
 * Gemini uses its own SentencePiece vocabulary, which is not available offline (the SDK's LocalTokenizer
 * downloads it at runtime, docs/reference/gemini-api-facts.md §4.7); o200k_base is a close stand-in for English text:
 * "The quick brown fox jumps over the lazy dog." is 10 tokens in both (fixture 200-count-tokens.json), and
 * "why is the sky blue?" is 6 (+1 role token = promptTokenCount 7, fixture 200-thinking-max-tokens-no-text.json).
 *
 * The ranks module is imported eagerly (cheap: one large string), but the encoder is built on first use
 * (~450 ms and ~150 MB).
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';

let encoder: Tiktoken | undefined;

/** The shared encoder, built on first call. */
function getEncoder(): Tiktoken {
  encoder ??= new Tiktoken(o200k);
  return encoder;
}

/** Texts shorter than this are memoized: system instructions and schemas repeat on every request. */
const CACHE_MAX_CHARS = 20_000;
const CACHE_MAX_ENTRIES = 20_000;
const cache = new Map<string, number>();

/**
 * Number of o200k_base tokens in `text` (0 for ""). Special-token strings such as `<|endoftext|>` are
 * counted as ordinary text. Never throws.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const small = text.length <= CACHE_MAX_CHARS;
  if (small) {
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
  }
  const n = getEncoder().encode(text, [], []).length;
  if (small) {
    if (cache.size >= CACHE_MAX_ENTRIES) cache.clear();
    cache.set(text, n);
  }
  return n;
}

/**
 * The longest prefix of `text` made of at most `maxTokens` whole tokens, decoded back to a string
 * (used to cut an answer at maxOutputTokens). Returns "" for `maxTokens <= 0`.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const tokens = getEncoder().encode(text, [], []);
  if (tokens.length <= maxTokens) return text;
  return getEncoder().decode(tokens.slice(0, maxTokens));
}

/** Builds the encoder now instead of on the first request (e.g. before a benchmark). */
export function warmTokenizer(): void {
  getEncoder();
}
