/**
 * A real subword tokenizer for promptTokenCount: byte-level BPE over the o200k_base ranks.
 *
 * Gemini uses its own SentencePiece vocabulary, which is not available offline (the SDK's LocalTokenizer
 * downloads it at runtime, docs/reference/gemini-api-facts.md §4.7); o200k_base is a close stand-in for English text:
 * "The quick brown fox jumps over the lazy dog." is 10 tokens in both (fixture 200-count-tokens.json), and
 * "why is the sky blue?" is 6 (+1 role token = promptTokenCount 7, fixture 200-thinking-max-tokens-no-text.json).
 *
 * Source of facts: the ranks (`bpe_ranks`: lines of `<name> <first rank> <base64 token>…`, ranks consecutive) and the
 * pre-tokenizing pattern (`pat_str`) come from js-tiktoken's `js-tiktoken/ranks/o200k_base`; the merge is tiktoken's
 * (js-tiktoken `bytePairMerge`, the Rust crate's `byte_pair_merge`). test/simulator/tokenizer.test.ts checks every
 * count and truncation against js-tiktoken's own `Tiktoken` (the oracle) on every line and cell of
 * test/fixtures/data and on seeded random multilingual strings.
 *
 * Why not js-tiktoken's `Tiktoken` itself (used until this file): building it base64-decodes all 200k tokens and keys
 * a Map by `bytes.join(',')`, and it caches nothing per word. Measured on the 2-core dev machine (Node 20.20, shared
 * with other work: load average 4-7), the old and this file side by side, one process per run, median of 3 runs,
 * in two rounds (the spread is the load):
 * - build (`warmTokenizer`): Tiktoken 1,050-1,530 ms, RSS 212 MB after it; this file 100-200 ms, 92 MB
 *   (the Map is keyed by the base64 strings as they stand in `bpe_ranks`, nothing is decoded);
 * - counting the 14,287 lines of test/fixtures/data once (caches cold): Tiktoken 1,290-1,970 ms, this file 320-590 ms;
 *   the same lines again, each with a suffix so the whole-text memo misses: 1,280-1,930 ms against 150-250 ms;
 * - 300,000 distinct short rows (one run): 27.3 s against 7.7 s, peak heap 157 against 96 MB.
 *
 * Counting: split the text with `pat_str` (flags `gu`), then per piece: a bounded cache (piece → token count), the
 * whole piece if it is a token, else the byte-pair merge. Special-token strings such as `<|endoftext|>` are
 * ordinary text (js-tiktoken's `encode(text, [], [])`). The vocabulary is built on first use.
 */
import o200k from 'js-tiktoken/ranks/o200k_base';

/** The o200k_base ranks and pattern, built once. */
interface Vocabulary {
  /** Rank of each token, keyed by the base64 of its bytes (as in `bpe_ranks`). */
  ranks: Map<string, number>;
  /** The pre-tokenizing pattern; global, so only use it through `matchAll` (which clones it). */
  pattern: RegExp;
}

let vocabulary: Vocabulary | undefined;

/** The shared vocabulary, built on first call (~100 ms: one split of `bpe_ranks`, one Map of 200k entries). */
function getVocabulary(): Vocabulary {
  if (vocabulary !== undefined) return vocabulary;
  const ranks = new Map<string, number>();
  for (const line of o200k.bpe_ranks.split('\n')) {
    if (line.length === 0) continue;
    const fields = line.split(' ');
    const offset = Number.parseInt(fields[1] ?? '', 10);
    for (let i = 2; i < fields.length; i++) ranks.set(fields[i] as string, offset + i - 2);
  }
  vocabulary = { ranks, pattern: new RegExp(o200k.pat_str, 'gu') };
  return vocabulary;
}

/**
 * Token boundaries of one piece's bytes by tiktoken's byte-pair merge: repeatedly merge the adjacent pair whose
 * concatenation has the lowest rank (leftmost on ties) until no adjacent pair is a token. Returns the start offsets
 * of the tokens followed by `bytes.length` (so the token count is the length minus 1). Only the two pairs next to a
 * merge are looked up again (as the Rust crate does); the result equals js-tiktoken's full rescan.
 */
function mergeBoundaries(bytes: Buffer, ranks: Map<string, number>): number[] {
  const n = bytes.length;
  const starts: number[] = new Array<number>(n + 1);
  for (let i = 0; i <= n; i++) starts[i] = i;
  /** Rank of joining part i and part i+1 (Infinity: not a token, or no part i+1). */
  const rankAt = (i: number): number => {
    if (i + 2 >= starts.length) return Infinity;
    return ranks.get(bytes.toString('base64', starts[i], starts[i + 2])) ?? Infinity;
  };
  const pairRanks: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) pairRanks[i] = rankAt(i);
  for (;;) {
    let min = Infinity;
    let at = -1;
    for (let i = 0; i < pairRanks.length; i++) {
      const r = pairRanks[i] as number;
      if (r < min) {
        min = r;
        at = i;
      }
    }
    if (at < 0) break;
    starts.splice(at + 1, 1);
    pairRanks.splice(at + 1, 1);
    pairRanks[at] = rankAt(at);
    if (at > 0) pairRanks[at - 1] = rankAt(at - 1);
  }
  return starts;
}

/** Pieces longer than this (characters) are not cached: long runs rarely repeat. */
const PIECE_CACHE_MAX_CHARS = 128;
/** The piece cache is cleared when it reaches this many entries (at most ~20 MB of keys). */
const PIECE_CACHE_MAX_ENTRIES = 50_000;
const pieceCache = new Map<string, number>();

/** Tokens of one pre-tokenized piece. */
function pieceTokens(piece: string, ranks: Map<string, number>): number {
  const cacheable = piece.length <= PIECE_CACHE_MAX_CHARS;
  if (cacheable) {
    const hit = pieceCache.get(piece);
    if (hit !== undefined) return hit;
  }
  const bytes = Buffer.from(piece, 'utf8');
  const n = ranks.has(bytes.toString('base64')) ? 1 : mergeBoundaries(bytes, ranks).length - 1;
  if (cacheable) {
    if (pieceCache.size >= PIECE_CACHE_MAX_ENTRIES) pieceCache.clear();
    pieceCache.set(piece, n);
  }
  return n;
}

/** Texts up to this many characters are memoized whole: system instructions and schemas repeat on every request. */
const CACHE_MAX_CHARS = 20_000;
const CACHE_MAX_ENTRIES = 20_000;
/** The whole-text memo is also cleared when its keys reach this many characters in total (~8 MB of UTF-16). */
const CACHE_MAX_TOTAL_CHARS = 4_000_000;
const cache = new Map<string, number>();
let cacheChars = 0;

/**
 * Number of o200k_base tokens in `text` (0 for ""), equal to js-tiktoken's `encode(text, [], []).length`.
 * Special-token strings such as `<|endoftext|>` are counted as ordinary text. Never throws.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const small = text.length <= CACHE_MAX_CHARS;
  if (small) {
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
  }
  const { ranks, pattern } = getVocabulary();
  let n = 0;
  for (const match of text.matchAll(pattern)) n += pieceTokens(match[0], ranks);
  if (small) {
    if (cache.size >= CACHE_MAX_ENTRIES || cacheChars + text.length > CACHE_MAX_TOTAL_CHARS) {
      cache.clear();
      cacheChars = 0;
    }
    cache.set(text, n);
    cacheChars += text.length;
  }
  return n;
}

/** Decodes a token prefix as js-tiktoken does: UTF-8, not fatal (a cut character is U+FFFD), a leading BOM dropped. */
const decoder = new TextDecoder('utf-8');

/**
 * The longest prefix of `text` made of at most `maxTokens` whole tokens, decoded back to a string
 * (used to cut an answer at maxOutputTokens): `text` itself when it has at most `maxTokens` tokens, "" for
 * `maxTokens <= 0`. Equal to js-tiktoken's `decode(encode(text, [], []).slice(0, maxTokens))`, so a cut inside a
 * multi-byte character ends in U+FFFD. Never throws.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const { ranks, pattern } = getVocabulary();
  const kept: Buffer[] = [];
  let left = maxTokens;
  for (const match of text.matchAll(pattern)) {
    const piece = match[0];
    const n = pieceTokens(piece, ranks);
    if (n <= left) {
      kept.push(Buffer.from(piece, 'utf8'));
      left -= n;
      continue;
    }
    if (left > 0) {
      const bytes = Buffer.from(piece, 'utf8');
      kept.push(bytes.subarray(0, mergeBoundaries(bytes, ranks)[left]));
    }
    return decoder.decode(Buffer.concat(kept));
  }
  return text;
}

/** Builds the vocabulary now instead of on the first request (e.g. before a benchmark). */
export function warmTokenizer(): void {
  getVocabulary();
}
