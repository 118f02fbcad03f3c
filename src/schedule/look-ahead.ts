/**
 * Look-ahead past a row that waits for TPM room (issue 10, bench scenario S8).
 *
 * Rows go in input order. When the next row (the head) has a large prompt, it waits until enough input tokens have left
 * the rolling TPM window, and the room that frees meanwhile stays unused although smaller rows behind it would fit: in
 * S8 (prompts of 50–4,000 tokens, 100,000 TPM) about 1.3 % of the window went unused that way (bench/RESULTS.md).
 *
 * The rule. When the head cannot go now because its tokens do not fit the TPM window (not for RPM, a pause, a free slot
 * or a spending cap: those hold every row alike), a later row among the next {@link LOOK_AHEAD_ROWS} rows already read
 * may be sent in front of it when
 * 1. that row may go now (a free slot, and its project's RPM, TPM and pacing let it), and
 * 2. with that row sent, the head could still go by its deadline (ProjectLimiter.whenReadyAfter, on any open project).
 * The deadline is set once, when the head first waits for TPM: the time it could go then, in input order, plus
 * {@link LOOK_AHEAD_MAX_DELAY_MS} (default 0). It never moves while that row is the head, so rows passing it never make
 * it go later than it would have gone without them, as far as the token estimates of the rows in flight hold. When
 * something else delays the head past its deadline (an estimate corrected upward, a 429's pause), no row passes it any
 * more and it goes as in order: it cannot be starved.
 *
 * Why no delay: rows that fit what frees before the head's time still pass, and the head often needs less than what
 * frees at its time (a large row leaving the window). Allowing the head to be delayed let more rows pass but used the
 * window less well: on S8's prompt lengths (50–4,000 tokens, log-uniform, 800 rows at 50,000 TPM, answers after 2 s,
 * fake timers; test/schedule/look-ahead.test.ts's set-up), the wall time over the window's own pace was, for three seeds,
 * in order 1.031 / 1.038 / 1.041; with a delay of 0 s 1.012 / 1.010 / 1.015; 2 s 1.026 / 1.017 / 1.018;
 * 5 s 1.020 / 1.020 / 1.018; 20 s 1.030 / 1.024 / 1.027.
 *
 * What it does not change: only rows already read pass (the read-ahead is bounded, ./read-ahead.ts: no memory growth);
 * packs (--rows-per-request) neither pass nor are passed, so packed jobs send in order as before; an RPM-bound job never
 * waits for TPM, so it sends in order. Output order does not depend on send order: the writer joins the journal by row id
 * (../job/write-results.ts).
 */

/** Rows after the head that may be sent in front of it: the replay of S8 that showed the gain used 256. */
export const LOOK_AHEAD_ROWS = 256;

/** How much later than in input order the head may go because rows passed it, ms: none (see above for why). */
export const LOOK_AHEAD_MAX_DELAY_MS = 0;

/** The look-ahead's bounds; `rows: 0` turns it off. */
export interface LookAheadOptions {
  /** Rows after the head that may pass it, ≥ 0. @default {@link LOOK_AHEAD_ROWS} */
  rows: number;
  /** Most the head may be delayed by rows passing it, ms, ≥ 0. @default {@link LOOK_AHEAD_MAX_DELAY_MS} */
  maxDelayMs: number;
}

/** The deadline of the row waiting at the head for TPM room: set once per row, forgotten when it is sent. */
export class HeadDeadline {
  #item: object | undefined;
  #deadline = -Infinity;

  constructor(readonly maxDelayMs: number) {}

  /**
   * The head's deadline, ms: `readyAt + maxDelayMs` the first time `item` is asked about, the same value after that.
   * @param readyAt when the head could go in input order, as its limiter says now (ms, finite).
   */
  of(item: object, readyAt: number): number {
    if (this.#item !== item) {
      this.#item = item;
      this.#deadline = readyAt + this.maxDelayMs;
    }
    return this.#deadline;
  }

  /** The row was sent (or left the queue): a later wait of it at the head starts a new deadline. */
  forget(item: object): void {
    if (this.#item === item) this.#item = undefined;
  }
}
