/**
 * The per-project limits the scheduler enforces, and where each value came from. Published numbers change often and
 * differ per account, so a limit is configuration, and the server's own quotaValue (from a 429) is the best evidence of
 * the real one (docs/design.md "The facts that shape everything" §6).
 */

/** Where a limit's value came from. */
export type LimitSource =
  /** --rpm / --tpm / --rpd */
  | 'given'
  /** the model's starting default (the provider's catalog, providers/contract.ts ModelInfo); probed upward while no 429 says otherwise */
  | 'default'
  /** a 429's quotaValue */
  | 'learned';

export interface QuotaLimit {
  /** The limit as the server counts it: requests/min, input tokens/min, or requests/day. */
  value: number;
  source: LimitSource;
}

export interface ProjectLimits {
  rpm: QuotaLimit;
  tpm: QuotaLimit;
  /** Undefined: no daily limit known (none given, none learned). */
  rpd: QuotaLimit | undefined;
}

/**
 * Headroom kept under each per-minute limit, as a fraction (`--headroom`). Default 0.01: a request holds its place in our
 * window from its sending until 60 s after the latest moment it can have arrived (./project-limiter.ts), which already
 * bounds what the server can see, so the margin only has to absorb the error of token estimates for requests not yet
 * answered, the rare request whose uplink outlasts its guard (a lost segment: ./arrival-bound.ts), and a server that
 * counts slightly differently.
 */
export const DEFAULT_HEADROOM = 0.01;

/**
 * Extra time added to our rolling window beyond the server's 60 s, ms, for timer and clock granularity (timers fire
 * up to a few ms late, Date.now() has 1 ms steps). The time between sending and the server's arrival has its own guard
 * (./arrival-bound.ts).
 */
export const WINDOW_GUARD_MS = 50;
