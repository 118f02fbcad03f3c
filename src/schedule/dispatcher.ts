/**
 * The scheduler: hands rows to the key pools with free capacity whose project's limiter lets them go now, sends them,
 * and decides what each outcome means — finished, sent again (back through the limiter), or moved to another project.
 *
 * - One pool per API key, `concurrency` requests in flight at most (p-queue). Rows go to the pool with free capacity
 *   whose project can take the request soonest, not round-robin.
 * - Every request passes its project's {@link ProjectLimiter} (shared by the keys of one quota project).
 * - Retries are ours (the SDK's are off, ../shared/reference/gemini-api-facts.md §0.6): 429 → ./rate-limit-policy.ts;
 *   500/503/504, resets, timeouts → backoff with full jitter; a refused key → its pool stops and the row moves;
 *   404 model → the job stops; other 4xx → the row fails. `maxAttempts` bounds the requests of every row.
 * - A row never waits inside a worker: waiting rows sit in a queue, so retries cannot bypass pacing.
 */
import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import {
  CancelledFailure,
  KeyFailure,
  ModelFailure,
  RateLimitFailure,
  RequestFailure,
  type ApiFailure,
} from '../gemini/api-failures.js';
import { classifyFailure } from '../gemini/classify-failure.js';
import type { GeminiCaller, GenerateAnswer, GenerateRequest } from '../gemini/gemini-client.js';
import type { RequestVariant } from '../prompt/build-request.js';
import { arrivalBound } from './arrival-bound.js';
import { fullJitterDelay } from './backoff.js';
import type { ProjectLimiter, Reservation } from './project-limiter.js';
import type { Notice, RateLimitPolicy } from './rate-limit-policy.js';
import { RetryQueue } from './retry-queue.js';
import type { TokenEstimator } from './token-estimator.js';
import type { RowOutcome, Verdict, WorkItem } from './work-item.js';

/** One API key's worker pool. */
export interface KeyPool {
  /** `key-1 …x7Qa`: what messages show instead of the key. */
  alias: string;
  /** The quota project the key belongs to. */
  project: string;
  client: GeminiCaller;
  /** Requests in flight at most (--workers-per-key). */
  concurrency: number;
}

/** A project's limiter and its 429 policy. */
export interface ProjectGate {
  limiter: ProjectLimiter;
  policy: RateLimitPolicy;
}

/** Counters the progress line and the summary read. */
export interface DispatchStats {
  requests: number;
  rateLimited: number;
  /** Requests sent again after a failure or an unusable answer. */
  retries: number;
  inFlight: number;
}

export interface DispatcherOptions {
  pools: readonly KeyPool[];
  /** By project name; every pool's project must be present. */
  gates: ReadonlyMap<string, ProjectGate>;
  /** Rows to send, in input order. Pulled lazily: only a bounded number is held at once. */
  rows: AsyncIterator<WorkItem>;
  estimator: TokenEstimator;
  /** Builds the request of a row. */
  buildRequest(cells: readonly string[], variant: RequestVariant | undefined): GenerateRequest;
  /** Makes sense of an HTTP 200 answer. */
  judge(item: WorkItem, answer: GenerateAnswer): Verdict;
  /** Receives each finished row exactly once (the journal). */
  onFinished(item: WorkItem, outcome: RowOutcome): void;
  /** Receives messages to show once per key. */
  onNotice(notice: Notice): void;
  /** Told when the API refuses a key (its pool stops), to remember it for later runs. */
  onKeyRefused?(alias: string, reason: string): void;
  /** Requests per row at most (--max-attempts), ≥ 1. */
  maxAttempts: number;
  /** How long a stop waits for requests in flight before aborting them, ms. */
  stopGraceMs?: number;
  random?: () => number;
}

/** Why {@link Dispatcher.run} ended. */
export type DispatchEnd =
  | { kind: 'done' }
  | { kind: 'interrupted' }
  /** Every project that could take rows is parked (daily quota); capacity returns at `until`. */
  | { kind: 'parked'; until: number; reasons: string[] }
  /** No pool can send: every key refused or every project disabled (limit: 0). Running again will not help. */
  | { kind: 'unavailable'; reasons: string[] }
  /**
   * The API cannot be reached or fails everything: no answer at all since the start ({@link UNREACHABLE_AFTER}
   * connection failures in a row), or nothing but failures for {@link OUTAGE_AFTER_MS}. Rows stay pending.
   */
  | { kind: 'outage'; reason: string }
  /** A failure no row can get past: 404 for the model, or the same 4xx refusal for every request so far. */
  | { kind: 'fatal'; failure: ApiFailure };

interface PoolState extends KeyPool {
  queue: PQueue;
  active: number;
  disabledReason: string | undefined;
}

const HIGH_WATER_MIN = 256;

/**
 * Connection failures in a row, with no HTTP answer since the start, after which the endpoint counts as unreachable
 * (fewer for a job of few rows: two failures per row tried, at least 4).
 */
export const UNREACHABLE_AFTER = 16;
/** The same 4xx refusal this many times in a row, before any success, stops the run: no row can pass. */
export const SAME_REFUSAL_LIMIT = 10;

/** How long nothing but transient failures (5xx, resets, timeouts) may last before the run stops, ms. */
export const OUTAGE_AFTER_MS = 120_000;

export class Dispatcher {
  readonly stats: DispatchStats = { requests: 0, rateLimited: 0, retries: 0, inFlight: 0 };
  readonly #o: DispatcherOptions;
  readonly #pools: PoolState[];
  readonly #retries = new RetryQueue();
  readonly #fresh: WorkItem[] = [];
  readonly #abort = new AbortController();
  readonly #random: () => number;
  readonly #highWater: number;
  #freshHead = 0;
  #inputDone = false;
  #filling = false;
  #stopping = false;
  #ended = false;
  #pendingEnd: DispatchEnd | undefined;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  #graceTimer: NodeJS.Timeout | undefined;
  #resolve: ((end: DispatchEnd) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #rr = 0;
  /** Whether any HTTP answer came this run; transient failures in a row; when the last success came. */
  #answered = false;
  #unansweredInRow = 0;
  /** Rows that failed without an answer while none has come yet: a small job is judged after two tries of each. */
  #unansweredRows = new Set<number>();
  #transientInRow = 0;
  #lastSuccessAt = Date.now();
  #succeeded = false;
  /** The same 4xx refusal in a row before any success: the request itself is wrong for every row (e.g. its config). */
  #refusedInRow = 0;
  #lastRefusal = '';

  constructor(options: DispatcherOptions) {
    if (options.pools.length === 0) throw new RangeError('at least one key pool is needed');
    for (const pool of options.pools) {
      if (!options.gates.has(pool.project)) throw new RangeError(`no gate for project ${pool.project}`);
    }
    this.#o = options;
    setMaxListeners(0, this.#abort.signal); // one listener per request in flight
    this.#random = options.random ?? Math.random;
    this.#pools = options.pools.map((p) => ({ ...p, queue: new PQueue({ concurrency: p.concurrency }), active: 0, disabledReason: undefined }));
    const slots = this.#pools.reduce((n, p) => n + p.concurrency, 0);
    this.#highWater = Math.max(HIGH_WATER_MIN, 4 * slots);
  }

  /** Sends every row; resolves when all rows finished or the run stopped. Rejects only if the row source throws. */
  run(): Promise<DispatchEnd> {
    return new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
      void this.#fill();
      this.#pump();
    });
  }

  /**
   * Stops dispatching (Ctrl-C). Requests in flight may finish for `stopGraceMs`; then they are aborted and their rows
   * stay without a result. Idempotent; `immediate` aborts at once.
   */
  stop(immediate = false): void {
    if (!this.#stopping) {
      this.#stopping = true;
      this.#graceTimer = setTimeout(() => this.#abort.abort(), immediate ? 0 : (this.#o.stopGraceMs ?? 10_000));
      this.#graceTimer.unref?.();
    } else if (immediate) {
      this.#abort.abort();
    }
    this.#pump();
  }

  /** Rows waiting (not in flight): queued retries plus rows read ahead from the input. */
  get waiting(): number {
    return this.#retries.size + this.#fresh.length - this.#freshHead;
  }

  // ---- the loop -------------------------------------------------------------------------------------------------

  #pump(): void {
    if (this.#ended) return;
    if (this.#stopping || this.#pendingEnd) {
      if (this.stats.inFlight === 0) this.#end(this.#pendingEnd ?? { kind: 'interrupted' });
      return;
    }
    const now = Date.now();
    let wakeAt = Infinity;
    for (;;) {
      const item = this.#peek(now);
      if (!item) {
        const next = this.#retries.peek();
        if (next) wakeAt = Math.min(wakeAt, next.notBefore);
        break;
      }
      const choice = this.#choose(item, now);
      if (choice.kind === 'wait-slot') break;
      if (choice.kind === 'later') {
        wakeAt = Math.min(wakeAt, choice.at);
        break;
      }
      if (choice.kind === 'blocked') {
        this.#pendingEnd = choice.end;
        if (this.stats.inFlight === 0) this.#end(choice.end);
        return;
      }
      this.#take(item);
      if (choice.kind === 'too-large') {
        this.#finish(item, {
          status: 'skipped',
          label: null,
          raw: null,
          finishReason: null,
          error: `prompt of about ${choice.tokens} input tokens exceeds the TPM limit of every project (${choice.limit} tokens/min)`,
        });
        continue;
      }
      this.#dispatch(item, choice.pool, choice.gate, choice.tokens, now);
    }
    if (this.#inputDone && this.waiting === 0 && this.stats.inFlight === 0) {
      this.#end({ kind: 'done' });
      return;
    }
    this.#arm(wakeAt, now);
    if (!this.#inputDone && this.#fresh.length - this.#freshHead < this.#highWater / 2) void this.#fill();
  }

  /** The next row that may go now: a due retry first, else the next fresh row. */
  #peek(now: number): WorkItem | undefined {
    const retry = this.#retries.peek();
    if (retry && retry.notBefore <= now) return retry;
    return this.#fresh[this.#freshHead];
  }

  #take(item: WorkItem): void {
    if (this.#retries.peek() === item) this.#retries.pop();
    else {
      this.#fresh[this.#freshHead] = undefined as unknown as WorkItem;
      this.#freshHead++;
      if (this.#freshHead > 4096 && this.#freshHead * 2 > this.#fresh.length) {
        this.#fresh.splice(0, this.#freshHead);
        this.#freshHead = 0;
      }
    }
  }

  #choose(
    item: WorkItem,
    now: number,
  ):
    | { kind: 'go'; pool: PoolState; gate: ProjectGate; tokens: number }
    | { kind: 'later'; at: number }
    | { kind: 'wait-slot' }
    | { kind: 'too-large'; tokens: number; limit: number }
    | { kind: 'blocked'; end: DispatchEnd } {
    const tokens = this.#o.estimator.estimate(item.features);
    const open = new Map<string, ProjectGate>();
    const parked: Array<{ until: number; reason: string }> = [];
    const reasons: string[] = [];
    for (const pool of this.#pools) {
      if (pool.disabledReason !== undefined) {
        reasons.push(`${pool.alias}: ${pool.disabledReason}`);
        continue;
      }
      if (open.has(pool.project)) continue;
      const gate = this.#o.gates.get(pool.project) as ProjectGate;
      const hold = gate.limiter.hold(now);
      if (hold?.kind === 'parked') parked.push({ until: hold.until, reason: `project ${pool.project}: ${hold.reason}` });
      else if (hold?.kind === 'disabled') reasons.push(`project ${pool.project}: ${hold.reason}`);
      else open.set(pool.project, gate);
    }
    if (open.size === 0) {
      if (parked.length > 0) {
        return { kind: 'blocked', end: { kind: 'parked', until: Math.min(...parked.map((p) => p.until)), reasons: [...new Set(parked.map((p) => p.reason))] } };
      }
      return { kind: 'blocked', end: { kind: 'unavailable', reasons: [...new Set(reasons)] } };
    }
    const fits = [...open.values()].filter((g) => !g.limiter.tooLarge(tokens));
    if (fits.length === 0) return { kind: 'too-large', tokens, limit: Math.max(...[...open.values()].map((g) => g.limiter.tpmTarget)) };

    let best: { pool: PoolState; gate: ProjectGate; at: number } | undefined;
    const readyByProject = new Map<string, number>();
    const n = this.#pools.length;
    for (let k = 0; k < n; k++) {
      const pool = this.#pools[(this.#rr + k) % n] as PoolState;
      if (pool.disabledReason !== undefined || pool.active >= pool.concurrency) continue;
      const gate = open.get(pool.project);
      if (!gate || gate.limiter.tooLarge(tokens)) continue;
      let at = readyByProject.get(pool.project);
      if (at === undefined) {
        at = gate.limiter.readyAt(tokens, now);
        readyByProject.set(pool.project, at);
      }
      if (!best || at < best.at || (at === best.at && pool.active < best.pool.active)) best = { pool, gate, at };
    }
    if (!best) return { kind: 'wait-slot' };
    if (best.at > now) return { kind: 'later', at: best.at };
    this.#rr = (this.#pools.indexOf(best.pool) + 1) % n;
    return { kind: 'go', pool: best.pool, gate: best.gate, tokens };
  }

  #arm(at: number, now: number): void {
    if (at === Infinity) return;
    if (this.#timer && this.#timerAt <= at) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      this.#pump();
    }, Math.max(0, Math.ceil(at - now)));
  }

  async #fill(): Promise<void> {
    if (this.#filling || this.#inputDone) return;
    this.#filling = true;
    try {
      while (!this.#stopping && !this.#ended && this.#fresh.length - this.#freshHead < this.#highWater) {
        const next = await this.#o.rows.next();
        if (next.done) {
          this.#inputDone = true;
          break;
        }
        this.#fresh.push(next.value);
        if (this.#fresh.length - this.#freshHead === 1 || this.stats.inFlight === 0) this.#pump();
      }
    } catch (error) {
      this.#fail(error);
      return;
    } finally {
      this.#filling = false;
    }
    this.#pump();
  }

  // ---- one request ----------------------------------------------------------------------------------------------

  #dispatch(item: WorkItem, pool: PoolState, gate: ProjectGate, tokens: number, now: number): void {
    const reservation = gate.limiter.acquire(tokens, now);
    if (item.attempts > 0) this.stats.retries++;
    item.attempts++;
    item.key = pool.alias;
    pool.active++;
    this.stats.inFlight++;
    this.stats.requests++;
    void pool.queue.add(async () => {
      try {
        await this.#attempt(item, pool, gate, reservation);
      } catch (error) {
        this.#fail(error);
      } finally {
        pool.active--;
        this.stats.inFlight--;
        this.#pump();
      }
    });
  }

  async #attempt(item: WorkItem, pool: PoolState, gate: ProjectGate, reservation: Reservation): Promise<void> {
    const request = this.#o.buildRequest(item.cells, item.variant);
    let answer: GenerateAnswer;
    try {
      answer = await pool.client.generate(request, this.#abort.signal, (timing) => gate.limiter.arrived(reservation, arrivalBound(timing)));
    } catch (error) {
      gate.limiter.refund(reservation, Date.now());
      this.#onFailure(item, pool, gate, reservation, classifyFailure(error));
      return;
    }
    const now = Date.now();
    this.#answered = true;
    this.#unansweredInRow = 0;
    this.#transientInRow = 0;
    this.#lastSuccessAt = now;
    this.#succeeded = true;
    this.#refusedInRow = 0;
    gate.limiter.settle(reservation, answer.usage.promptTokenCount, now);
    if (answer.usage.promptTokenCount > 0) this.#o.estimator.observe(item.features, answer.usage.promptTokenCount);
    gate.policy.onAnswered(now, reservation.at);
    item.usage.input += answer.usage.promptTokenCount;
    item.usage.output += answer.usage.candidatesTokenCount;
    item.usage.thoughts += answer.usage.thoughtsTokenCount;

    const verdict = this.#o.judge(item, answer);
    if (verdict.kind === 'final') {
      this.#finish(item, verdict.outcome);
    } else if (item.retriedFor.has(verdict.retryKind) || item.attempts >= this.#o.maxAttempts) {
      this.#finish(item, verdict.fallback);
    } else {
      item.retriedFor.add(verdict.retryKind);
      item.variant = verdict.variant ?? item.variant;
      item.lastError = verdict.fallback.error;
      item.notBefore = 0;
      this.#retries.push(item);
    }
  }

  #onFailure(item: WorkItem, pool: PoolState, gate: ProjectGate, reservation: Reservation, failure: ApiFailure): void {
    const now = Date.now();
    if (failure instanceof CancelledFailure) {
      item.attempts--; // abandoned, not failed: the row stays pending
      return;
    }
    item.lastError = failure.message;
    const transient = !(failure instanceof RateLimitFailure || failure instanceof KeyFailure || failure instanceof ModelFailure || failure instanceof RequestFailure);
    if (failure.httpStatus !== undefined) {
      this.#answered = true;
      this.#unansweredInRow = 0;
      this.#unansweredRows.clear();
    } else {
      this.#unansweredInRow++;
      if (!this.#answered) this.#unansweredRows.add(item.row);
    }
    this.#transientInRow = transient ? this.#transientInRow + 1 : 0;
    if (transient) {
      const slots = this.#pools.reduce((n, p) => n + p.concurrency, 0);
      if (!this.#answered && this.#unansweredInRow >= Math.min(UNREACHABLE_AFTER, Math.max(4, 2 * this.#unansweredRows.size))) {
        item.attempts--;
        this.#retries.push(item);
        this.#pendingEnd ??= { kind: 'outage', reason: `no answer from the API: ${failure.message}` };
        return;
      }
      if (this.#transientInRow >= Math.max(UNREACHABLE_AFTER, 2 * slots) && now - this.#lastSuccessAt >= OUTAGE_AFTER_MS) {
        item.attempts--;
        this.#retries.push(item);
        this.#pendingEnd ??= { kind: 'outage', reason: `every request failed for ${Math.round((now - this.#lastSuccessAt) / 1000)} s (last: ${failure.message})` };
        return;
      }
    }
    if (failure instanceof RateLimitFailure) {
      this.stats.rateLimited++;
      const outcome = gate.policy.onRateLimited(failure.details, now, reservation.at);
      if (!outcome.countsAsAttempt) item.attempts--;
      this.#retryOrFail(item, 0, failure);
      return;
    }
    if (failure instanceof KeyFailure) {
      if (pool.disabledReason === undefined) {
        pool.disabledReason = `key refused: ${failure.message}`;
        this.#o.onKeyRefused?.(pool.alias, failure.message);
        this.#o.onNotice({ key: `key:${pool.alias}`, text: `${pool.alias} (project ${pool.project}) was refused (${failure.message}); its pool takes no more rows.` });
      }
      item.attempts--;
      this.#retryOrFail(item, 0, failure);
      return;
    }
    if (failure instanceof ModelFailure) {
      item.attempts--;
      this.#retries.push(item);
      this.#pendingEnd ??= { kind: 'fatal', failure };
      return;
    }
    if (failure instanceof RequestFailure) {
      this.#finish(item, { status: 'failed', label: null, raw: null, finishReason: null, error: failure.message });
      this.#refusedInRow = failure.message === this.#lastRefusal ? this.#refusedInRow + 1 : 1;
      this.#lastRefusal = failure.message;
      if (!this.#succeeded && this.#refusedInRow >= SAME_REFUSAL_LIMIT) this.#pendingEnd ??= { kind: 'fatal', failure };
      return;
    }
    // ServerFailure, ConnectionFailure, TimeoutFailure: transient.
    this.#retryOrFail(item, now + fullJitterDelay(item.attempts, this.#random), failure);
  }

  #retryOrFail(item: WorkItem, notBefore: number, failure: ApiFailure): void {
    if (item.attempts >= this.#o.maxAttempts) {
      this.#finish(item, {
        status: 'failed',
        label: null,
        raw: null,
        finishReason: null,
        error: `${failure.message} (after ${item.attempts} attempts)`,
      });
      return;
    }
    item.notBefore = notBefore;
    this.#retries.push(item);
  }

  #finish(item: WorkItem, outcome: RowOutcome): void {
    this.#o.onFinished(item, outcome);
  }

  #end(end: DispatchEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    this.#resolve?.(end);
  }

  #fail(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    this.#abort.abort();
    this.#reject?.(error);
  }
}
