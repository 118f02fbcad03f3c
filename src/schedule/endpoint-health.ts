/**
 * Whether the API endpoint as a whole is answering: the run stops (rows pending, resumable) when it cannot be reached
 * or fails everything, and stops for good when every request is refused the same way before any succeeded (the
 * request itself is wrong: a bad option, not a bad row). Also says whether the endpoint serves most requests, which
 * decides whether transient failures count against a row's attempts (./failure-policy.ts).
 *
 * Flex sheds (ShedFailure: a 503 to a Flex request) are the tier's normal behaviour: they do not count as transient
 * failures (neither for the outage rule nor for whether other rows' failures are the endpoint's). Their own bound: the
 * run stops (rows pending, resumable) when at least {@link UNREACHABLE_AFTER} (or twice the requests in flight) sheds
 * in a row came and no answer for {@link SHED_OUTAGE_AFTER_MS}.
 *
 * Refusals are compared by HTTP status and the provider's reason (ApiFailure.reason: for Gemini the status name,
 * google.rpc.ErrorInfo reasons, the fields a BadRequest names), never by message text, which may quote the row.
 */
import { ConnectionFailure, RequestFailure, ServerFailure, ShedFailure, TimeoutFailure, type ApiFailure } from '../providers/failures.js';

/**
 * Connection failures in a row (no connection, reset before an answer; timeouts do not count), with no HTTP answer since
 * the start, after which the endpoint counts as unreachable (fewer for a job of few rows: two per row tried, at least 4).
 */
export const UNREACHABLE_AFTER = 16;
/** The same 4xx refusal this many times in a row, before any success, stops the run: no row can pass. */
export const SAME_REFUSAL_LIMIT = 10;
/** How long nothing but transient failures (5xx, resets, timeouts) may last before the run stops, ms. */
export const OUTAGE_AFTER_MS = 120_000;
/**
 * How long Flex sheds may go on without a single answer before the run stops, ms: 30 minutes, twice the slowest Flex
 * answer (1–15 min, docs/service-tiers.md). A Flex job whose capacity does not come back in that time is better resumed
 * later (or at --service-tier standard) than kept sending.
 */
export const SHED_OUTAGE_AFTER_MS = 30 * 60_000;
/** Outcomes the "transient failures are common" judgement looks back over. */
export const RECENT_OUTCOMES = 64;
/** At this share of transient failures among recent outcomes (or more) they are the endpoint's, not a row's. */
export const FAILING_SHARE = 0.25;

/** Why the run must stop, as the endpoint's health sees it. */
export type HealthStop =
  | { kind: 'outage'; reason: string }
  | { kind: 'fatal'; failure: ApiFailure };

export class EndpointHealth {
  #answered = false;
  #unansweredInRow = 0;
  /** Rows that failed without an answer while none has come yet: a small job is judged after two tries of each. */
  readonly #unansweredRows = new Set<number>();
  #transientInRow = 0;
  #shedInRow = 0;
  #lastSuccessAt: number;
  #succeeded = false;
  #refusedInRow = 0;
  #lastRefusal = '';
  /** Ring of recent outcomes: the row, and 1 for a transient failure, 0 otherwise. */
  readonly #recentRows = new Float64Array(RECENT_OUTCOMES);
  readonly #recentTransient = new Uint8Array(RECENT_OUTCOMES);
  #recentCount = 0;
  #recentNext = 0;

  /** @param now when the run started, ms: an outage is measured from the last success, or from here. */
  constructor(now: number) {
    this.#lastSuccessAt = now;
  }

  /**
   * False when the endpoint fails for other rows too: among the last {@link RECENT_OUTCOMES} outcomes of rows other than
   * `row`, at least 8 are known and transient failures make up {@link FAILING_SHARE} or more of them. Then a row that
   * keeps failing cannot be blamed; otherwise (other rows pass, or too little is known to say) it can.
   */
  healthyFor(row: number): boolean {
    let seen = 0;
    let failed = 0;
    for (let i = 0; i < this.#recentCount; i++) {
      if (this.#recentRows[i] === row) continue;
      seen++;
      failed += this.#recentTransient[i] as number;
    }
    return seen < 8 || failed < FAILING_SHARE * seen;
  }

  /** Records an HTTP 200 answer to a request of `row`. */
  onAnswer(row: number, now: number): void {
    this.#answered = true;
    this.#unansweredInRow = 0;
    this.#unansweredRows.clear();
    this.#transientInRow = 0;
    this.#shedInRow = 0;
    this.#lastSuccessAt = now;
    this.#succeeded = true;
    this.#refusedInRow = 0;
    this.#record(row, 0);
  }

  /**
   * Records a failed request of `row`.
   * @param slots requests the run may have in flight now: an outage needs at least twice as many failures in a row.
   * @returns why the run must stop now, or undefined.
   */
  onFailure(failure: ApiFailure, row: number, now: number, slots: number): HealthStop | undefined {
    if (failure instanceof ShedFailure) return this.#onShed(failure, now, slots);
    const transient = isTransient(failure);
    if (failure instanceof ConnectionFailure && failure.local) return undefined; // our own limit, not the endpoint's
    this.#record(row, transient ? 1 : 0);
    if (failure.httpStatus !== undefined) {
      this.#answered = true;
      this.#unansweredInRow = 0;
      this.#unansweredRows.clear();
    } else if (failure instanceof ConnectionFailure) {
      // Not a timeout: a request that timed out reached something that kept it (slow answers are no outage).
      this.#unansweredInRow++;
      if (!this.#answered) this.#unansweredRows.add(row);
    }
    this.#transientInRow = transient ? this.#transientInRow + 1 : 0;
    if (transient) {
      if (!this.#answered && this.#unansweredInRow >= Math.min(UNREACHABLE_AFTER, Math.max(4, 2 * this.#unansweredRows.size))) {
        return { kind: 'outage', reason: `no answer from the API: ${failure.message}` };
      }
      if (this.#transientInRow >= Math.max(UNREACHABLE_AFTER, 2 * slots) && now - this.#lastSuccessAt >= OUTAGE_AFTER_MS) {
        return { kind: 'outage', reason: `every request failed for ${Math.round((now - this.#lastSuccessAt) / 1000)} s (last: ${failure.message})` };
      }
      return undefined;
    }
    if (failure instanceof RequestFailure) {
      const reason = refusalOf(failure);
      this.#refusedInRow = reason === this.#lastRefusal ? this.#refusedInRow + 1 : 1;
      this.#lastRefusal = reason;
      if (!this.#succeeded && this.#refusedInRow >= SAME_REFUSAL_LIMIT) return { kind: 'fatal', failure };
    }
    return undefined;
  }

  /** A Flex shed: an answer of sorts (the endpoint is up), not a failure, unless sheds are all there is for long. */
  #onShed(failure: ShedFailure, now: number, slots: number): HealthStop | undefined {
    this.#answered = true;
    this.#unansweredInRow = 0;
    this.#unansweredRows.clear();
    this.#shedInRow++;
    if (this.#shedInRow >= Math.max(UNREACHABLE_AFTER, 2 * slots) && now - this.#lastSuccessAt >= SHED_OUTAGE_AFTER_MS) {
      const minutes = Math.round((now - this.#lastSuccessAt) / 60_000);
      return {
        kind: 'outage',
        reason: `the Flex tier shed every request for ${minutes} min (last: ${failure.message}); run the same command again later, or with --service-tier standard`,
      };
    }
    return undefined;
  }

  #record(row: number, transient: 0 | 1): void {
    if (this.#recentCount < RECENT_OUTCOMES) this.#recentCount++;
    this.#recentRows[this.#recentNext] = row;
    this.#recentTransient[this.#recentNext] = transient;
    this.#recentNext = (this.#recentNext + 1) % RECENT_OUTCOMES;
  }
}

/** 5xx, connection failures and timeouts: the endpoint's trouble, not the request's. */
export function isTransient(failure: ApiFailure): boolean {
  return failure instanceof ServerFailure || failure instanceof ConnectionFailure || failure instanceof TimeoutFailure;
}

/** A refusal's identity: the HTTP status and the provider's reason — what two refusals of the same option share. */
export function refusalOf(failure: ApiFailure): string {
  return `${failure.httpStatus ?? ''}|${failure.reason}`;
}
