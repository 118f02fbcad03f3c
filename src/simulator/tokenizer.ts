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
 * count and truncation against js-tiktoken's own `Tiktoken` (the oracle) on every line of test/fixtures/data, on
 * seeded random multilingual strings and on long runs without a break.
 *
 * Why not js-tiktoken's `Tiktoken` itself (used until this file): building it base64-decodes all 200k tokens and keys
 * a Map by `bytes.join(',')`, and it caches nothing per word. Measured on the 2-core dev machine (Node 20.20, shared
 * with other work: load average 4-7), the old and this file side by side, one process per run, median of 3 runs,
 * in two rounds (the spread is the load):
 * - build (`warmTokenizer`): Tiktoken 1,050-1,530 ms, RSS 212 MB after it; this file 100-200 ms, 92 MB with a Map
 *   keyed by the base64 strings as they stand in `bpe_ranks`; now 36-67 ms against that Map's 81-124 ms (11 runs
 *   each, alternating), RSS 96 against 128 MB, with the tokens decoded into one byte array under a hash table of
 *   typed arrays (`getVocabulary`), whose lookups make no base64 string: the data lines (next line, caches cold)
 *   count in 209-334 ms against the Map's 297-400 ms;
 * - counting the 14,287 lines of test/fixtures/data once (caches cold): Tiktoken 1,290-1,970 ms, this file 320-590 ms;
 *   the same lines again, each with a suffix so the whole-text memo misses: 1,280-1,930 ms against 150-250 ms;
 * - 300,000 distinct short rows (one run): 27.3 s against 7.7 s, peak heap 157 against 96 MB; 100,000 distinct made-up
 *   rows of 6-15 words: 2.2-2.8 s now against 3.6-4.3 s with the Map of base64 strings (3 runs each, same counts).
 *
 * Counting: split the text with `pat_str` (flags `gu`), then per piece: a bounded cache (piece → token count), the
 * whole piece if it is a token, else the byte-pair merge. Special-token strings such as `<|endoftext|>` are
 * ordinary text (js-tiktoken's `encode(text, [], [])`). The vocabulary is built on first use.
 */
import o200k from 'js-tiktoken/ranks/o200k_base';

/** The o200k_base ranks and pattern, built once. */
interface Vocabulary {
  /** The bytes of every token, back to back in the order of `bpe_ranks`. */
  bytes: Uint8Array;
  /** Token t's bytes are `bytes[starts[t]]` up to (not including) `bytes[starts[t + 1]]`. */
  starts: Int32Array;
  /** Rank of token t. */
  ranks: Int32Array;
  /** `hashBytes` of token t's bytes. */
  hashes: Int32Array;
  /** Open-addressing hash table (linear probing, at most half full): t + 1 of the token in the slot, 0 when empty. */
  slots: Int32Array;
  /** The pre-tokenizing pattern; global, so only use it through `matchAll` (which clones it). */
  pattern: RegExp;
  /** Bytes of the longest token: a longer pair of parts is never a token and is not looked up. */
  maxTokenBytes: number;
}

let vocabulary: Vocabulary | undefined;

/** Value of each base64 character (by its code), -1 for any other byte (the `=` padding, separators). */
const BASE64 = new Int8Array(256).fill(-1);
for (let i = 0; i < 64; i++) BASE64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/** FNV-1a (32 bits, as a signed int) of `bytes[from]` up to (not including) `bytes[to]`. */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let k = from; k < to; k++) h = Math.imul(h ^ (bytes[k] as number), 0x01000193);
  return h;
}

/** Slot of the hash table where probing for a token with hash `h` starts (FNV's low bits mixed with its high bits). */
function firstSlot(h: number, mask: number): number {
  const x = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return (x ^ (x >>> 13)) & mask;
}

/**
 * The shared vocabulary, built on first call (~50 ms on the 2-core dev machine: one pass over the 2.3 MB of
 * `bpe_ranks` decoding the base64 tokens into one byte array, then a hash table over them; the Map of 200k base64
 * strings it replaces took ~100 ms, and each of its lookups base64-encoded the bytes looked up).
 */
function getVocabulary(): Vocabulary {
  if (vocabulary !== undefined) return vocabulary;
  // Lines of `<name> <first rank> <base64 token>…` separated by single spaces: all ASCII, so one byte a character.
  const text = Buffer.from(o200k.bpe_ranks, 'latin1');
  // Upper bounds: every token takes at least 5 characters (a separator and 4 of base64), and 4 characters carry 3 bytes.
  const capacity = Math.ceil(text.length / 5) + 1;
  const bytes = new Uint8Array(Math.ceil((text.length * 3) / 4));
  const starts = new Int32Array(capacity + 1);
  const ranks = new Int32Array(capacity);
  const hashes = new Int32Array(capacity);
  let count = 0;
  let written = 0;
  let maxTokenBytes = 0;
  for (let line = 0; line < text.length; ) {
    let end = text.indexOf(10, line);
    if (end === -1) end = text.length;
    const nameEnd = text.indexOf(32, line);
    if (nameEnd !== -1 && nameEnd < end) {
      let rankEnd = text.indexOf(32, nameEnd + 1);
      if (rankEnd === -1 || rankEnd > end) rankEnd = end;
      let rank = Number.parseInt(text.toString('latin1', nameEnd + 1, rankEnd), 10);
      // Each token decoded as it is read: 6 bits a base64 character, a byte out whenever 8 bits are in.
      for (let at = rankEnd + 1; at < end; at++) {
        const start = written;
        let bits = 0;
        let nbits = 0;
        for (; at < end; at++) {
          const c = text[at] as number;
          if (c === 32) break;
          const v = BASE64[c] as number;
          if (v < 0) continue; // '=' padding
          bits = ((bits << 6) | v) & 0xfff;
          nbits += 6;
          if (nbits >= 8) {
            nbits -= 8;
            bytes[written++] = (bits >> nbits) & 0xff;
          }
        }
        starts[count] = start;
        ranks[count] = rank++;
        hashes[count] = hashBytes(bytes, start, written);
        if (written - start > maxTokenBytes) maxTokenBytes = written - start;
        count++;
      }
    }
    line = end + 1;
  }
  starts[count] = written;
  let size = 2;
  while (size < 2 * count) size *= 2;
  const slots = new Int32Array(size);
  const vocab: Vocabulary = { bytes, starts, ranks, hashes, slots, pattern: new RegExp(o200k.pat_str, 'gu'), maxTokenBytes };
  for (let t = 0; t < count; t++) {
    // A token seen again takes the later rank (as a Map.set would).
    slots[findSlot(vocab, bytes, starts[t] as number, starts[t + 1] as number, hashes[t] as number)] = t + 1;
  }
  vocabulary = vocab;
  return vocab;
}

/**
 * The slot of the token whose bytes are `source[from]` up to (not including) `source[to]` and whose `hashBytes` is
 * `h`, or else the empty slot where probing for it stopped.
 */
function findSlot(vocab: Vocabulary, source: Uint8Array, from: number, to: number, h: number): number {
  const { slots, hashes, starts, bytes } = vocab;
  const mask = slots.length - 1;
  const length = to - from;
  for (let slot = firstSlot(h, mask); ; slot = (slot + 1) & mask) {
    const entry = slots[slot] as number;
    if (entry === 0) return slot;
    const t = entry - 1;
    const start = starts[t] as number;
    if (hashes[t] !== h || (starts[t + 1] as number) - start !== length) continue;
    let k = 0;
    while (k < length && bytes[start + k] === source[from + k]) k++;
    if (k === length) return slot;
  }
}

/** Rank of the token whose bytes are `source[from]` up to (not including) `source[to]`; Infinity when none is. */
function rankOf(vocab: Vocabulary, source: Uint8Array, from: number, to: number): number {
  if (to - from > vocab.maxTokenBytes) return Infinity;
  const entry = vocab.slots[findSlot(vocab, source, from, to, hashBytes(source, from, to))] as number;
  return entry === 0 ? Infinity : (vocab.ranks[entry - 1] as number);
}

/**
 * Token boundaries of one piece's bytes by tiktoken's byte-pair merge: repeatedly merge the adjacent pair whose
 * concatenation has the lowest rank (leftmost on ties) until no adjacent pair is a token. Returns the start offsets
 * of the tokens followed by `bytes.length` (so the token count is the length minus 1).
 *
 * O(n log n) in the piece's bytes: the parts are a linked list over their start offsets and the candidate pairs a
 * binary min-heap keyed by rank × (n + 1) + start (the lowest rank first, then the leftmost: the order of js-tiktoken's
 * full rescan, which is O(n²) — a run of 32,000 CJK characters with no break took 8.3 s with a rescan of an array, and
 * kept the simulator, which answers on the same thread, from answering meanwhile). A pair is looked up again only when
 * a merge next to it changes it, and never when it is longer than the longest token. Entries a merge made stale stay in
 * the heap and are skipped when popped (their part is gone, or its pair's rank changed).
 */
function mergeBoundaries(bytes: Buffer, vocab: Vocabulary): number[] {
  const n = bytes.length;
  const stride = n + 1;
  /** Start of the part after the part that starts at i (n: none). */
  const next = new Int32Array(stride);
  /** Start of the part before the part that starts at i (-1: none). */
  const prev = new Int32Array(stride);
  /** 1 while a part starts at i. */
  const alive = new Uint8Array(stride);
  /** Rank of merging the part at i with the next one (Infinity: not a token). */
  const pairRank = new Float64Array(stride);
  for (let i = 0; i <= n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    alive[i] = 1;
  }
  const pairRankAt = (i: number): number => {
    const j = next[i] as number;
    return j >= n ? Infinity : rankOf(vocab, bytes, i, next[j] as number);
  };
  const heap: number[] = [];
  const push = (i: number): void => {
    const rank = pairRankAt(i);
    pairRank[i] = rank;
    if (rank !== Infinity) heapPush(heap, rank * stride + i);
  };
  for (let i = 0; i < n - 1; i++) push(i);
  while (heap.length > 0) {
    const key = heapPop(heap);
    const i = key % stride;
    if (alive[i] === 0 || pairRank[i] !== (key - i) / stride) continue; // stale
    const j = next[i] as number;
    const after = next[j] as number;
    alive[j] = 0;
    next[i] = after;
    prev[after] = i;
    push(i);
    if (i > 0) push(prev[i] as number);
  }
  const starts: number[] = [];
  for (let i = 0; i < n; i = next[i] as number) starts.push(i);
  starts.push(n);
  return starts;
}

/** Adds `key` to the binary min-heap `heap`. */
function heapPush(heap: number[], key: number): void {
  let at = heap.length;
  heap.push(key);
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if ((heap[parent] as number) <= key) break;
    heap[at] = heap[parent] as number;
    at = parent;
  }
  heap[at] = key;
}

/** Removes and returns the smallest key of the non-empty binary min-heap `heap`. */
function heapPop(heap: number[]): number {
  const top = heap[0] as number;
  const last = heap.pop() as number;
  const size = heap.length;
  if (size === 0) return top;
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && (heap[right] as number) < (heap[left] as number) ? right : left;
    if ((heap[child] as number) >= last) break;
    heap[at] = heap[child] as number;
    at = child;
  }
  heap[at] = last;
  return top;
}

/** Pieces longer than this (characters) are not cached: long runs rarely repeat. */
const PIECE_CACHE_MAX_CHARS = 128;
/** The piece cache is cleared when it reaches this many entries (at most ~20 MB of keys). */
const PIECE_CACHE_MAX_ENTRIES = 50_000;
const pieceCache = new Map<string, number>();

/** Tokens of one pre-tokenized piece. */
function pieceTokens(piece: string, vocab: Vocabulary): number {
  const cacheable = piece.length <= PIECE_CACHE_MAX_CHARS;
  if (cacheable) {
    const hit = pieceCache.get(piece);
    if (hit !== undefined) return hit;
  }
  const bytes = Buffer.from(piece, 'utf8');
  const whole = rankOf(vocab, bytes, 0, bytes.length) !== Infinity; // a piece longer than any token: not hashed
  const n = whole ? 1 : mergeBoundaries(bytes, vocab).length - 1;
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
  const vocab = getVocabulary();
  let n = 0;
  for (const match of text.matchAll(vocab.pattern)) n += pieceTokens(match[0], vocab);
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
 * `maxTokens <= 0`. A cut text equals js-tiktoken's `decode(encode(text, [], []).slice(0, maxTokens))`, so a cut inside a
 * multi-byte character ends in U+FFFD; a text that fits is returned as it is (js-tiktoken's decode would drop a leading
 * BOM and replace a lone surrogate). Never throws.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const vocab = getVocabulary();
  const kept: Buffer[] = [];
  let left = maxTokens;
  for (const match of text.matchAll(vocab.pattern)) {
    const piece = match[0];
    const n = pieceTokens(piece, vocab);
    if (n <= left) {
      kept.push(Buffer.from(piece, 'utf8'));
      left -= n;
      continue;
    }
    if (left > 0) {
      const bytes = Buffer.from(piece, 'utf8');
      kept.push(bytes.subarray(0, mergeBoundaries(bytes, vocab)[left]));
    }
    return decoder.decode(Buffer.concat(kept));
  }
  return text;
}

/** Builds the vocabulary now instead of on the first request (e.g. before a benchmark). */
export function warmTokenizer(): void {
  getVocabulary();
}
