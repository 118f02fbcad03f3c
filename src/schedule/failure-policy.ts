/**
 * What a failed request means for its row: one pure function from the failure (and what the row and the endpoint have
 * been through) to an action, a delay, and whether the request counts against --max-attempts — after openai-node's
 * `shouldRetry` / retry-timing pair. The project-wide effects of a failure live elsewhere: a 429 in
 * ./rate-limit-policy.ts (its outcome is an input here), a refused key in the dispatcher (its pool stops), the
 * endpoint's health in ./endpoint-health.ts.
 *
 * | failure                                  | action | counts as an attempt                              | delay |
 * |------------------------------------------|--------|---------------------------------------------------|-------|
 * | cancelled by us (Ctrl-C)                 | abandon: the row stays pending | no                        | —     |
 * | 404 for the model                        | stop: no row can pass; the row stays pending | no          | —     |
 * | billing exhausted (insufficient_quota)   | stop: nothing is sent until billing changes; pending | no  | —     |
 * | key refused (400 API_KEY_INVALID, 401, 403) | retry on another key | no                                | 0     |
 * | 429                                      | retry through the project's gate | as the 429 policy says (daily, limit 0: no) | 0: the project's pause governs |
 * | 429 of shared capacity (Vertex DSQ)      | retry; the project only slows    | yes                                | equal jitter from 1 s, doubling (or the server's wait) |
 * | other 4xx                                | fail: the request is wrong for this row | yes                | —     |
 * | 503 to a Flex request (a shed)           | retry | no: shedding is the Flex tier's normal behaviour | equal jitter from 1 s, doubling, at most 2 min |
 * | 5xx, reset, timeout                      | retry | yes, unless the endpoint fails for other rows too (an outage, load shedding) | full jitter |
 * | our own sockets ran out (EMFILE…)        | retry | no: our limits never fail a row                   | short full jitter |
 *
 * A row fails only for its own fault: a 4xx of its own, or transient failures that kept coming for it while the
 * endpoint served other rows. While the endpoint fails for everyone (an outage, a region shedding load) the row keeps
 * its attempts; the run stops for the outage (./endpoint-health.ts) and the row stays pending, to be sent again by the
 * resume command.
 */
import { BillingFailure, CancelledFailure, ConnectionFailure, KeyFailure, ModelFailure, RateLimitFailure, RequestFailure, ShedFailure, type ApiFailure } from '../providers/failures.js';
import { equalJitterDelay, fullJitterDelay } from './backoff.js';
import type { RateLimitOutcome } from './rate-limit-policy.js';

/** What the row and the endpoint have been through, as far as the decision needs. */
export interface FailureContext {
  /** Attempts of this row counted so far this run, this failure not included. */
  attempts: number;
  /** --max-attempts. */
  maxAttempts: number;
  /** Requests this row sent this run, this one included: the exponent of its backoff. */
  sent: number;
  /**
   * False while transient failures are common across other rows too (./endpoint-health.ts): they are then the
   * endpoint's, not this row's, and do not count.
   */
  endpointHealthy: boolean;
  /** For a 429: what the project's policy made of it. */
  rateLimit?: RateLimitOutcome;
  random: () => number;
}

/** What becomes of the row. */
export type FailureAction =
  /** Nothing is recorded; the row stays pending (we abandoned the request). */
  | { kind: 'abandon' }
  /** No row can pass (404 for the model, billing exhausted): the row stays pending and the run stops. */
  | { kind: 'stop' }
  /** The row goes back to the queue, not before `delayMs` from now. */
  | { kind: 'retry'; delayMs: number; countsAsAttempt: boolean }
  /** The row ends `failed` with `error`; the request counted. */
  | { kind: 'fail'; error: string };

/** Base of the backoff after our own sockets ran out, ms: the ceiling was lowered at once, so a short wait is enough. */
export const LOCAL_BACKOFF_BASE_MS = 100;

/**
 * Base of a row's backoff after a shared-capacity 429, ms: equal jitter makes the first wait 1–2 s, as Vertex asks
 * ("truncated exponential backoff … a minimum of 1 s", docs/providers.md "Vertex AI").
 */
export const SHARED_CAPACITY_BACKOFF_MS = 2_000;

/**
 * Base and cap of a row's backoff after a Flex shed, ms: equal jitter makes the waits 0.5–1 s, 1–2 s, 2–4 s … up to
 * 1–2 min. A shed costs nothing and says capacity is short now; the row waits longer each time it is shed, never fails
 * for it. The run's bound on sheds is ./endpoint-health.ts's (SHED_OUTAGE_AFTER_MS).
 */
export const SHED_BACKOFF_BASE_MS = 1_000;
export const SHED_BACKOFF_CAP_MS = 120_000;

/** Decides what a failed request means for its row. Pure: the same inputs (and random draws) give the same action. */
export function failureAction(failure: ApiFailure, ctx: FailureContext): FailureAction {
  if (failure instanceof CancelledFailure) return { kind: 'abandon' };
  if (failure instanceof ModelFailure || failure instanceof BillingFailure) return { kind: 'stop' };
  if (failure instanceof KeyFailure) return { kind: 'retry', delayMs: 0, countsAsAttempt: false };
  if (failure instanceof RequestFailure) return { kind: 'fail', error: failure.message };
  if (failure instanceof RateLimitFailure) {
    const outcome = ctx.rateLimit;
    const delay = outcome?.hold === 'slowed' ? Math.max(outcome.waitMs ?? 0, equalJitterDelay(ctx.sent, ctx.random, SHARED_CAPACITY_BACKOFF_MS)) : 0;
    return counted(failure, ctx, outcome?.countsAsAttempt ?? true, delay);
  }
  if (failure instanceof ShedFailure) {
    return { kind: 'retry', delayMs: equalJitterDelay(ctx.sent, ctx.random, SHED_BACKOFF_BASE_MS, SHED_BACKOFF_CAP_MS), countsAsAttempt: false };
  }
  if (failure instanceof ConnectionFailure && failure.local) {
    return { kind: 'retry', delayMs: fullJitterDelay(ctx.sent, ctx.random, LOCAL_BACKOFF_BASE_MS, 5_000), countsAsAttempt: false };
  }
  // ServerFailure, ConnectionFailure, TimeoutFailure: transient.
  return counted(failure, ctx, ctx.endpointHealthy, fullJitterDelay(ctx.sent, ctx.random));
}

function counted(failure: ApiFailure, ctx: FailureContext, counts: boolean, delayMs: number): FailureAction {
  if (counts && ctx.attempts + 1 >= ctx.maxAttempts) return { kind: 'fail', error: `${failure.message} (after ${ctx.attempts + 1} attempts)` };
  return { kind: 'retry', delayMs, countsAsAttempt: counts };
}
