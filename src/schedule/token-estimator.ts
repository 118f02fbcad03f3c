/**
 * Estimates a request's input tokens locally (no network call per row) and calibrates itself from the
 * usageMetadata.promptTokenCount of the answers as they arrive. TPM counts input tokens only
 * (docs/reference/gemini-api-facts.md §1.2), so this estimate is what the TPM limiter reserves before sending.
 *
 * Model: tokens ≈ θ · x, where x counts features of the text that subword tokenizers treat differently: Latin-script
 * words (a common word is one token), the letters of long words beyond the seventh (compounds such as German
 * "Wirtschaftlichkeitsberechnungen" split into several), words with non-ASCII letters, CJK/kana/hangul characters,
 * letters of other scripts, digits (Gemini's SentencePiece vocabulary splits digits one by one), punctuation and line
 * breaks, plus a constant. The prior θ₀ is "about 4 characters per token" for English
 * (https://ai.google.dev/gemini-api/docs/tokens) spread over these features; each observation refines θ by weighted
 * ridge regression toward θ₀ (weights 1/y², so that relative error is minimized; the ridge of each coefficient is
 * scaled to its feature's own magnitude so that it is unit-free).
 */

const FEATURES = 9;
/** Prior coefficients: [const, latin words, letters past 7 per word, non-ASCII words, CJK, other script, digits, punctuation, line breaks]. */
const PRIOR = [1.5, 0.88, 0.16, 0.74, 0.83, 0.67, 0.61, 0.79, 0.71];
/** Strength of the pull toward the prior, in observations' worth. */
const PRIOR_WEIGHT = 2;
/** Relative error (standard deviation of actual ÷ estimate − 1) assumed until {@link ERROR_EVIDENCE} answers are in. */
export const PRIOR_RELATIVE_ERROR = 0.3;
const ERROR_EVIDENCE = 16;
const ERROR_SAMPLES = 256;

const PIECE = /[\p{Script=Latin}\p{M}]+|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|\p{L}+|\p{N}|\n|[^\s\p{L}\p{N}]/gu;
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;
const LATIN = /^[\p{Script=Latin}\p{M}]+$/u;
const ASCII_WORD = /^[A-Za-z]+$/;

/**
 * The feature vector of a text (see the module comment); exported for tests and `plan`. Runs once per row (and per
 * pack member), so an all-ASCII text, the common case, is scanned by character code ({@link asciiFeatures}), the
 * others by the Unicode pieces below; both give the same vector for an ASCII text (test/schedule/token-features.test.ts).
 */
export function tokenFeatures(text: string): Float64Array {
  return NON_ASCII.test(text) ? unicodeFeatures(text) : asciiFeatures(text);
}

const NON_ASCII = /[^\p{ASCII}]/u;

/** {@link tokenFeatures} by the Unicode pieces of {@link PIECE}: any text. */
export function unicodeFeatures(text: string): Float64Array {
  const x = new Float64Array(FEATURES);
  x[0] = 1;
  for (const match of text.matchAll(PIECE)) {
    const piece = match[0];
    const c = piece.charCodeAt(0);
    if (c === 10) x[8]! += 1;
    else if (c >= 48 && c <= 57) x[6]! += 1;
    else if (ASCII_WORD.test(piece) || LATIN.test(piece)) {
      x[1]! += 1;
      if (piece.length > 7) x[2]! += piece.length - 7;
      if (!ASCII_WORD.test(piece)) x[3]! += 1;
    } else if (CJK.test(piece)) x[4]! += 1;
    else if (/^\p{N}$/u.test(piece)) x[6]! += 1;
    else if (/^\p{L}/u.test(piece)) x[5]! += [...piece].length;
    else x[7]! += 1;
  }
  return x;
}

/**
 * {@link tokenFeatures} of an all-ASCII text, by character code: a run of letters is a Latin word, each digit, line
 * feed and other non-space character (punctuation, control characters) a piece of its own; the other whitespace
 * (TAB, VT, FF, CR, space: what `\s` matches in ASCII besides LF) separates pieces.
 */
export function asciiFeatures(text: string): Float64Array {
  const x = new Float64Array(FEATURES);
  x[0] = 1;
  let word = 0;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 0x20;
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
      word++;
      continue;
    }
    if (word > 0) {
      x[1]! += 1;
      if (word > 7) x[2]! += word - 7;
      word = 0;
    }
    if (c === 10) x[8]! += 1;
    else if (c >= 48 && c <= 57) x[6]! += 1;
    else if (c === 32 || (c >= 9 && c <= 13)) continue;
    else x[7]! += 1;
  }
  return x;
}

export class TokenEstimator {
  /** Σ w·x·xᵀ, a flat 9×9 matrix. */
  #xtx = new Float64Array(FEATURES * FEATURES);
  /** Σ w·x·y. */
  #xty = new Float64Array(FEATURES);
  #theta = Float64Array.from(PRIOR);
  #observations = 0;
  #dirty = false;
  /** (actual ÷ estimate − 1) of the last {@link ERROR_SAMPLES} answers, the estimate made before learning from each. */
  readonly #errors = new Float64Array(ERROR_SAMPLES);
  #errorCount = 0;
  #errorNext = 0;


  /** Results seen so far. */
  get observations(): number {
    return this.#observations;
  }

  /** Estimated input tokens (≥ 1) for a text's features. */
  estimate(features: Float64Array): number {
    if (this.#dirty) this.#solve();
    let y = 0;
    for (let i = 0; i < FEATURES; i++) y += (this.#theta[i] ?? 0) * (features[i] ?? 0);
    return Math.max(1, Math.round(y));
  }

  /**
   * How far off an estimate may be: the standard deviation of (actual ÷ estimate − 1) over the last 256 answers, as a
   * fraction (at least 0.02); {@link PRIOR_RELATIVE_ERROR} before 16 answers. The TPM limiter keeps a margin of it
   * for the requests whose promptTokenCount is not known yet (./project-limiter.ts).
   */
  get relativeError(): number {
    const n = this.#errorCount;
    if (n < ERROR_EVIDENCE) return PRIOR_RELATIVE_ERROR;
    let sum = 0;
    let sq = 0;
    for (let i = 0; i < n; i++) {
      const e = this.#errors[i] as number;
      sum += e;
      sq += e * e;
    }
    // Around 0, not around the mean: a bias is an error too.
    return Math.max(0.02, Math.sqrt(sq / n), Math.abs(sum / n));
  }

  /**
   * Learns from one answer.
   * @param features the features of the exact text that was sent (prompt + system instruction + schema).
   * @param promptTokenCount usageMetadata.promptTokenCount of its answer (tokens, > 0).
   */
  observe(features: Float64Array, promptTokenCount: number): void {
    if (!(promptTokenCount > 0)) return;
    this.#errors[this.#errorNext] = promptTokenCount / this.estimate(features) - 1;
    this.#errorNext = (this.#errorNext + 1) % ERROR_SAMPLES;
    this.#errorCount = Math.min(ERROR_SAMPLES, this.#errorCount + 1);
    const w = 1 / (promptTokenCount * promptTokenCount);
    for (let i = 0; i < FEATURES; i++) {
      const xi = features[i] ?? 0;
      if (xi === 0) continue;
      this.#xty[i]! += w * xi * promptTokenCount;
      for (let j = 0; j < FEATURES; j++) this.#xtx[i * FEATURES + j]! += w * xi * (features[j] ?? 0);
    }
    this.#observations++;
    // Re-solve on every observation while few, then every 16th: the 9×9 solve is cheap but not free at 3,000 rows/s.
    if (this.#observations <= 64 || this.#observations % 16 === 0) this.#dirty = true;
  }

  /**
   * Solves (XᵀWX + Λ)θ = XᵀWy + Λθ₀ by Gaussian elimination with partial pivoting (9×9), where
   * Λᵢᵢ = PRIOR_WEIGHT · (XᵀWX)ᵢᵢ / n: the prior weighs as much as PRIOR_WEIGHT average observations, per feature.
   */
  #solve(): void {
    this.#dirty = false;
    const n = FEATURES;
    const a = Float64Array.from(this.#xtx);
    const b = Float64Array.from(this.#xty);
    for (let i = 0; i < n; i++) {
      const lambda = Math.max(1e-12, (PRIOR_WEIGHT * (this.#xtx[i * n + i] ?? 0)) / Math.max(1, this.#observations));
      a[i * n + i]! += lambda;
      b[i]! += lambda * (PRIOR[i] ?? 0);
    }
    for (let col = 0; col < n; col++) {
      let pivot = col;
      for (let r = col + 1; r < n; r++) if (Math.abs(a[r * n + col]!) > Math.abs(a[pivot * n + col]!)) pivot = r;
      if (Math.abs(a[pivot * n + col]!) < 1e-18) return; // keep the previous θ
      if (pivot !== col) {
        for (let k = 0; k < n; k++) [a[col * n + k], a[pivot * n + k]] = [a[pivot * n + k]!, a[col * n + k]!];
        [b[col], b[pivot]] = [b[pivot]!, b[col]!];
      }
      for (let r = col + 1; r < n; r++) {
        const f = a[r * n + col]! / a[col * n + col]!;
        if (f === 0) continue;
        for (let k = col; k < n; k++) a[r * n + k]! -= f * a[col * n + k]!;
        b[r]! -= f * b[col]!;
      }
    }
    const theta = new Float64Array(n);
    for (let r = n - 1; r >= 0; r--) {
      let s = b[r]!;
      for (let k = r + 1; k < n; k++) s -= a[r * n + k]! * theta[k]!;
      theta[r] = s / a[r * n + r]!;
    }
    if (theta.every(Number.isFinite)) this.#theta = theta;
  }
}
