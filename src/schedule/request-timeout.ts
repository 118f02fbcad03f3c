/**
 * How long a request may go without an answer before we abort it and send it again. `--timeout` fixes it; by default it
 * follows the answers: at least {@link DEFAULT_TIMEOUT_MS}, three times the longest of the last 128 answers, and twice
 * the last timeout after a request timed out (as TCP backs its retransmission timer off), at most
 * {@link MAX_TIMEOUT_MS}. A fixed 60 s cut every answer of a Flex-tier or Pro-thinking job that takes longer (1–15
 * minutes, docs/design.md facts §7) and sent it again for nothing; a long timeout costs nothing but the time to
 * notice a dead connection.
 */

/** The timeout before anything is known, and the least it can be, ms (what --timeout's default was). */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** The longest adaptive timeout, ms: the API's own deadline for a request is 10 minutes. */
export const MAX_TIMEOUT_MS = 600_000;
/**
 * The adaptive timeout's bounds for Flex-tier requests, ms: at least 600 s (the client timeout the Inference tiers
 * cookbook asks for: docs/service-tiers.md), at most 30 min (twice the slowest answer of the tier's 1–15 min target).
 */
export const FLEX_TIMEOUT_BOUNDS = { floorMs: 600_000, capMs: 1_800_000 } as const;
/** Answers the longest-answer figure looks back over. */
const SAMPLES = 128;

export class RequestTimeout {
  readonly #givenMs: number | undefined;
  readonly #floorMs: number;
  readonly #capMs: number;
  readonly #recent = new Float64Array(SAMPLES);
  #count = 0;
  #next = 0;
  #afterTimeoutMs = 0;

  /**
   * @param givenMs --timeout in ms; undefined: adaptive.
   * @param bounds the adaptive timeout's least and greatest values, ms (default {@link DEFAULT_TIMEOUT_MS} and
   *   {@link MAX_TIMEOUT_MS}; Flex requests: {@link FLEX_TIMEOUT_BOUNDS}).
   */
  constructor(givenMs: number | undefined, bounds: { floorMs: number; capMs: number } = { floorMs: DEFAULT_TIMEOUT_MS, capMs: MAX_TIMEOUT_MS }) {
    this.#givenMs = givenMs;
    this.#floorMs = bounds.floorMs;
    this.#capMs = Math.max(bounds.floorMs, bounds.capMs);
  }

  /** The timeout of the next request, ms. */
  get ms(): number {
    if (this.#givenMs !== undefined) return this.#givenMs;
    let longest = 0;
    for (let i = 0; i < this.#count; i++) longest = Math.max(longest, this.#recent[i] as number);
    return Math.min(this.#capMs, Math.max(this.#floorMs, 3 * longest, this.#afterTimeoutMs));
  }

  /** An answer came after `latencyMs`. */
  answered(latencyMs: number): void {
    this.#recent[this.#next] = latencyMs;
    this.#next = (this.#next + 1) % SAMPLES;
    this.#count = Math.min(SAMPLES, this.#count + 1);
  }

  /** A request timed out after `timeoutMs`: the next ones may wait twice as long. */
  timedOut(timeoutMs: number): void {
    this.#afterTimeoutMs = Math.min(this.#capMs, Math.max(this.#afterTimeoutMs, 2 * timeoutMs));
  }
}
