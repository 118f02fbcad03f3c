/**
 * The delay to give `setTimeout`, ms. Node takes at most 2^31 − 1 ms (about 24.8 days); a longer delay, NaN or a
 * negative one is set to 1 ms with a TimeoutOverflowWarning (https://nodejs.org/api/timers.html, "setTimeout"), so a
 * timer re-armed for a far-away moment fires every millisecond: a busy loop that fills stderr with warnings.
 * Every timer whose moment can come from a server (a 429's wait, a park, a poll) is set through {@link timerDelay}.
 */

/** The longest delay `setTimeout` accepts, ms (2^31 − 1). */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * `ms` made safe for `setTimeout`: rounded up, at least 0, at most {@link MAX_TIMER_DELAY_MS}; NaN becomes 0. A timer
 * cut short fires early, and its owner, still waiting, sets it again: at most one wake every 24.8 days.
 */
export function timerDelay(ms: number): number {
  if (Number.isNaN(ms) || ms <= 0) return 0;
  return Math.min(MAX_TIMER_DELAY_MS, Math.ceil(ms));
}
