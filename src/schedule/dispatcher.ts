/**
 * The scheduler: hands rows to the key pools with a free slot whose project's limiter lets them go now, sends them,
 * and applies what each outcome means — finished, sent again (back through the limiter), or moved to another project.
 *
 * - One pool per API key. How many requests each may have in flight is ./concurrency.ts's call (what the quota needs at
 *   the observed latency, up to --workers-per-key and the safe ceilings). Rows go to the pool with a free slot whose
 *   project can take the request soonest, not round-robin.
 * - Every request passes its project's {@link ProjectLimiter} (shared by the keys of one quota project).
 * - It sees only the provider-neutral contract (../providers/contract.ts): a {@link ModelCaller} per key, neutral
 *   requests and answers, typed failures with neutral rate-limit details.
 * - Retries are ours (every adapter turns its client's off, docs/providers.md). What a failure means for its row
 *   is ./failure-policy.ts; for its project, ./rate-limit-policy.ts (429s) or the pool (a refused key stops it); for
 *   the run, ./endpoint-health.ts (an outage or the same refusal for every request stops it).
 * - A row never waits inside a worker: waiting rows sit in a queue, so retries cannot bypass pacing.
 * - A work item may carry a pack of rows (--rows-per-request): one request, one reservation, one RPD count. Its answer
 *   gives each row a result or sends it again; the rows sent again, and the rows of a pack that fails for good or is
 *   larger than every TPM limit, go back to the queue in packs of at most half the size ({@link DispatcherOptions.repack}),
 *   down to one row, which is then judged as any row. The request's usage is split among its rows (./pack-usage.ts).
 * - Each time it stops sending, the dispatcher records what holds it back (./binding.ts).
 * - Rows go in input order, except that a row waiting for TPM room may be passed by smaller rows read after it, within
 *   a bounded look-ahead and a bounded delay of its own (./look-ahead.ts).
 */
import { setMaxListeners } from 'node:events';
import type { ModelAnswer, ModelCaller, ModelRequest } from '../providers/contract.js';
import { ApiFailure, BillingFailure, CancelledFailure, ConnectionFailure, connectionFailureOf, KeyFailure, RateLimitFailure, TimeoutFailure } from '../providers/failures.js';
import type { RequestVariant } from '../prompt/build-request.js';
import { arrivalBound } from './arrival-bound.js';
import { BindingMeter, type Binding, type BindingNow } from './binding.js';
import { ConcurrencyGovernor } from './concurrency.js';
import { EndpointHealth } from './endpoint-health.js';
import { failureAction } from './failure-policy.js';
import { LoadGuard } from './load-guard.js';
import { HeadDeadline, LOOK_AHEAD_MAX_DELAY_MS, LOOK_AHEAD_ROWS, type LookAheadOptions } from './look-ahead.js';
import { ReadAhead } from './read-ahead.js';
import { processCeiling, readFdBudget } from './fd-budget.js';
import type { LimiterWait, ProjectLimiter, Reservation } from './project-limiter.js';
import type { Notice, RateLimitOutcome, RateLimitPolicy } from './rate-limit-policy.js';
import { RequestTimeout } from './request-timeout.js';
import { RetryQueue } from './retry-queue.js';
import { timerDelay } from './timer-delay.js';
import type { TokenEstimator } from './token-estimator.js';
import { shareUsage } from './pack-usage.js';
import type { ItemVerdict, PackRowVerdict, RowOutcome, WorkItem } from './work-item.js';

/** One API key's worker pool. */
export interface KeyPool {
  /** `key-1 …x7Qa`: what messages show instead of the key. */
  alias: string;
  /** The quota project the key belongs to. */
  project: string;
  client: ModelCaller;
  /** Requests in flight at most (--workers-per-key); undefined: what the quota needs, up to the safe ceilings. */
  maxInFlight: number | undefined;
}

/** A project's limiter and its 429 policy. */
export interface ProjectGate {
  limiter: ProjectLimiter;
  policy: RateLimitPolicy;
}

/** Why a request does not fit a spending cap: the cap, what is spent, what is reserved in flight, what it would reserve (USD). */
export interface BudgetRefusal {
  capUsd: number;
  spentUsd: number;
  inFlightUsd: number;
  requestUsd: number;
}

/** A reservation of a request's most cost, settled when the request ends. */
export interface BudgetHold {
  /** The request ended with `answer` (its cost replaces the reservation), or without one (the reservation is released). */
  settle(answer: ModelAnswer | undefined): void;
}

/**
 * A spending cap (--max-cost, ../job/spend-budget.ts): before each request the dispatcher reserves what it may cost at
 * most. A refusal while requests are in flight waits for them (their answers usually cost less than reserved); with
 * none in flight the run ends (`budget`), the rows pending.
 */
export interface BudgetGate {
  tryReserve(item: WorkItem, request: ModelRequest): { hold: BudgetHold } | { refused: BudgetRefusal };
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
  /** Builds the request of a row (a pack's is built with it: WorkItem.pack.request). */
  buildRequest(cells: readonly string[], variant: RequestVariant | undefined): ModelRequest;
  /**
   * Groups rows to send again into work items of at most `size` rows each, in order: packs of two or more, or a row
   * alone (the row's own item). Absent: each row alone.
   */
  repack?(rows: WorkItem[], size: number): WorkItem[];
  /**
   * Tokens the server charges to its TPM for a request beyond the prompt (Provider.quotaTokens: OpenAI-style servers
   * count max_tokens up front): reserved with the prompt's estimate and kept after the answer. Absent: none.
   */
  extraQuotaTokens?: (request: ModelRequest) => number;
  /** Makes sense of an HTTP 200 answer; of a pack's, with a `pack` verdict. */
  judge(item: WorkItem, answer: ModelAnswer): ItemVerdict;
  /**
   * Told of every HTTP 200 answer, before it is judged, with the request it answers (the job reads the tier that served
   * it and what it cost).
   */
  onAnswer?(item: WorkItem, request: ModelRequest, answer: ModelAnswer): void;
  /** Receives each finished row exactly once (the journal). */
  onFinished(item: WorkItem, outcome: RowOutcome): void;
  /** Receives messages to show once per key. */
  onNotice(notice: Notice): void;
  /** Told when the API refuses a key (its pool stops), to remember it for later runs. */
  onKeyRefused?(alias: string, reason: string): void;
  /** Requests per row at most (--max-attempts), ≥ 1. */
  maxAttempts: number;
  /** A spending cap the projected cost of the requests sent stays under (--max-cost); absent: none. */
  budget?: BudgetGate;
  /** How long a stop waits for requests in flight before aborting them, ms. */
  stopGraceMs?: number;
  /** --timeout in ms; undefined: adaptive (./request-timeout.ts). */
  timeoutMs?: number | undefined;
  /** The adaptive timeout's bounds, ms (Flex requests: FLEX_TIMEOUT_BOUNDS); default ./request-timeout.ts's. */
  timeoutBounds?: { floorMs: number; capMs: number };
  /**
   * File descriptors each request in flight holds: 1 over the network, 2 when the server runs in this process
   * (--simulate). Sets the process's ceiling on requests in flight (./fd-budget.ts). Default 1.
   */
  fdsPerRequest?: number;
  /** Overrides the process ceiling read from the file-descriptor limit (tests). */
  processCeiling?: number;
  /** Overrides the per-key ceiling (tests); default ./concurrency.ts MAX_IN_FLIGHT_PER_KEY. */
  perKeyCeiling?: number;
  /**
   * Rows read after a row waiting for TPM room that may be sent in front of it, and how much later that row may go
   * because of them (./look-ahead.ts). `rows: 0` sends strictly in order (packed jobs). Default
   * {@link LOOK_AHEAD_ROWS} rows, {@link LOOK_AHEAD_MAX_DELAY_MS} ms.
   */
  lookAhead?: Partial<LookAheadOptions>;
  /** Watches this process's event loop (./load-guard.ts); null: no watch (tests on fake timers). Default: a new one. */
  loadGuard?: LoadGuard | null;
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
  /** The API cannot be reached or fails everything (./endpoint-health.ts). Rows stay pending. */
  | { kind: 'outage'; reason: string }
  /** A failure no row can get past: 404 for the model, or the same 4xx refusal for every request so far. */
  | { kind: 'fatal'; failure: ApiFailure }
  /** The account cannot pay (OpenAI insufficient_quota…): nothing is sent until billing changes. Rows stay pending. */
  | { kind: 'billing'; failure: BillingFailure }
  /** The next request would take the projected spend past the cap (--max-cost), with nothing in flight. Rows stay pending. */
  | ({ kind: 'budget' } & BudgetRefusal);

interface PoolState extends KeyPool {
  index: number;
  active: number;
  disabledReason: string | undefined;
  readonly stopped: boolean;
}

const HIGH_WATER_MIN = 256;
/** How often pool limits are recomputed from the latencies observed, ms. */
const GOVERNOR_INTERVAL_MS = 100;

const WAIT_BINDING: Record<LimiterWait, Binding> = { none: 'rpm', rpm: 'rpm', tpm: 'tpm', paused: 'pause', parked: 'rpd', disabled: 'rpd' };

export class Dispatcher {
  readonly stats: DispatchStats = { requests: 0, rateLimited: 0, retries: 0, inFlight: 0 };
  readonly #o: DispatcherOptions;
  readonly #pools: PoolState[];
  readonly #governor: ConcurrencyGovernor;
  readonly #health: EndpointHealth;
  readonly #binding: BindingMeter;
  readonly #loadGuard: LoadGuard | null;
  readonly #timeout: RequestTimeout;
  readonly #retries = new RetryQueue();
  readonly #readAhead = new ReadAhead();
  readonly #lookAheadRows: number;
  readonly #headDeadline: HeadDeadline;
  readonly #abort = new AbortController();
  readonly #random: () => number;
  #inputDone = false;
  #filling = false;
  #stopping = false;
  #ended = false;
  #pendingEnd: DispatchEnd | undefined;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  #soonScheduled = false;
  #graceTimer: NodeJS.Timeout | undefined;
  #resolve: ((end: DispatchEnd) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #rr = 0;
  #governedAt = -Infinity;

  constructor(options: DispatcherOptions) {
    if (options.pools.length === 0) throw new RangeError('at least one key pool is needed');
    for (const pool of options.pools) {
      if (!options.gates.has(pool.project)) throw new RangeError(`no gate for project ${pool.project}`);
    }
    this.#o = options;
    setMaxListeners(0, this.#abort.signal); // one listener per request in flight
    this.#random = options.random ?? Math.random;
    this.#lookAheadRows = Math.max(0, options.lookAhead?.rows ?? LOOK_AHEAD_ROWS);
    this.#headDeadline = new HeadDeadline(Math.max(0, options.lookAhead?.maxDelayMs ?? LOOK_AHEAD_MAX_DELAY_MS));
    this.#pools = options.pools.map((p, index) => ({
      ...p,
      index,
      active: 0,
      disabledReason: undefined,
      get stopped() {
        return this.disabledReason !== undefined;
      },
    }));
    const now = Date.now();
    let ceiling = options.processCeiling;
    let reason = 'set for this run';
    if (ceiling === undefined) {
      const budget = readFdBudget();
      ceiling = processCeiling(budget, options.fdsPerRequest ?? 1);
      reason = `${budget.source === 'assumed' ? 'assuming it may open' : 'this process may open'} ${budget.softLimit.toLocaleString('en-US')} files; raise it with ulimit -n to send faster`;
    }
    this.#governor = new ConcurrencyGovernor({
      pools: this.#pools,
      limiters: new Map([...options.gates].map(([project, gate]) => [project, gate.limiter])),
      ...(options.perKeyCeiling !== undefined ? { perKeyCeiling: options.perKeyCeiling } : {}),
      processCeiling: ceiling,
      processCeilingReason: reason,
    });
    for (const gate of options.gates.values()) gate.limiter.setEstimateError(options.estimator.relativeError);
    this.#health = new EndpointHealth(now);
    this.#binding = new BindingMeter(now);
    this.#loadGuard = options.loadGuard === undefined ? new LoadGuard() : options.loadGuard;
    this.#timeout = new RequestTimeout(options.timeoutMs, options.timeoutBounds);
  }

  /** Sends every row; resolves when all rows finished or the run stopped. Rejects only if the row source throws. */
  run(): Promise<DispatchEnd> {
    this.#loadGuard?.watch(
      () => this.stats.inFlight,
      () => this.#governor.processCeiling,
    );
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
    return this.#retries.size + this.#readAhead.size;
  }

  /** What holds the run back now, and until when when known. */
  get binding(): BindingNow {
    return this.#binding.now;
  }

  /** Each binding's share of the run's time so far, largest first. */
  bindingShares(now: number = Date.now()): Array<{ binding: Binding; share: number }> {
    return this.#binding.shares(now);
  }

  /** Requests the pools may have in flight now (the sum of their limits). */
  get slots(): number {
    return this.#governor.totalLimit;
  }

  /** Requests the pools of `project` may have in flight now (the sum of their limits; a stopped pool's is 0): for reports. */
  slotsOf(project: string): number {
    let n = 0;
    for (const pool of this.#pools) if (pool.project === project && !pool.stopped) n += this.#governor.limitOf(pool.index);
    return n;
  }

  // ---- the loop -------------------------------------------------------------------------------------------------

  #pump(): void {
    if (this.#ended) return;
    if (this.#stopping || this.#pendingEnd) {
      if (this.stats.inFlight === 0) this.#end(this.#pendingEnd ?? { kind: 'interrupted' });
      return;
    }
    const now = Date.now();
    this.#govern(now);
    let wakeAt = Infinity;
    for (;;) {
      const item = this.#peek(now);
      if (!item) {
        const next = this.#retries.peek();
        if (next) wakeAt = Math.min(wakeAt, next.notBefore);
        this.#binding.set(!this.#inputDone ? 'input' : next ? 'backoff' : 'finishing', now, next?.notBefore);
        break;
      }
      const choice = this.#choose(item, now);
      if (choice.kind === 'wait-slot') {
        this.#binding.set(this.#governor.loadBound ? 'cpu' : 'concurrency', now);
        break;
      }
      if (choice.kind === 'later') {
        if (choice.wait === 'tpm' && Number.isFinite(choice.at)) this.#lookAhead(item, choice.at, now);
        this.#binding.set(WAIT_BINDING[choice.wait], now, Number.isFinite(choice.at) ? choice.at : undefined);
        wakeAt = Math.min(wakeAt, choice.at);
        break;
      }
      if (choice.kind === 'blocked') {
        this.#pendingEnd = choice.end;
        if (this.stats.inFlight === 0) this.#end(choice.end);
        return;
      }
      let sending: { request: ModelRequest; hold: BudgetHold | undefined } | undefined;
      if (choice.kind === 'go' && this.#o.budget) {
        const request = this.#request(item);
        const budget = this.#o.budget.tryReserve(item, request);
        if ('refused' in budget) {
          if (this.stats.inFlight > 0) {
            this.#binding.set('budget', now);
            break;
          }
          const end: DispatchEnd = { kind: 'budget', ...budget.refused };
          this.#pendingEnd = end;
          this.#end(end);
          return;
        }
        sending = { request, hold: budget.hold };
      }
      this.#take(item);
      if (choice.kind === 'too-large' && item.pack) {
        const why = `a pack of about ${choice.tokens} input tokens exceeds the TPM limit of every project (${choice.limit} tokens/min)`;
        for (const row of item.pack.rows) row.lastError = why;
        this.#requeue(item.pack.rows, item.pack.rows.length);
        continue;
      }
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
      this.#dispatch(item, choice.pool, choice.gate, choice.tokens, now, sending);
    }
    if (this.#inputDone && this.waiting === 0 && this.stats.inFlight === 0) {
      this.#end({ kind: 'done' });
      return;
    }
    this.#arm(wakeAt, now);
    if (!this.#inputDone && this.#readAhead.span < this.#highWater() / 2) void this.#fill();
  }

  /** Recomputes the pools' limits (at most every {@link GOVERNOR_INTERVAL_MS}) and says once what keeps a project under its quota. */
  #govern(now: number): void {
    if (now - this.#governedAt < GOVERNOR_INTERVAL_MS) return;
    this.#governedAt = now;
    this.#governor.update(now, this.#loadGuard?.cap ?? Infinity);
    for (const b of this.#governor.bottlenecks()) this.#o.onNotice({ key: `bottleneck:${b.project}`, text: b.text });
  }

  /** Rows read ahead at most: twice what the pools may have in flight, at least {@link HIGH_WATER_MIN}. */
  #highWater(): number {
    return Math.max(HIGH_WATER_MIN, 2 * this.#governor.totalLimit);
  }

  /** The next row that may go now: a due retry first, else the next fresh row. */
  #peek(now: number): WorkItem | undefined {
    const retry = this.#retries.peek();
    if (retry && retry.notBefore <= now) return retry;
    return this.#readAhead.peek();
  }

  /** Removes the row {@link #peek} gave from its queue. */
  #take(item: WorkItem): void {
    this.#headDeadline.forget(item);
    if (this.#retries.peek() === item) this.#retries.pop();
    else this.#readAhead.takeHead();
  }

  /**
   * Sends rows read after `head` in front of it while they may go now and leave `head` able to go by its deadline
   * (./look-ahead.ts has the rule and why). `head` waits for TPM room until `readyAt` (ms, finite).
   * @returns how many rows were sent.
   */
  #lookAhead(head: WorkItem, readyAt: number, now: number): number {
    if (this.#lookAheadRows === 0 || head.pack) return 0;
    const deadline = this.#headDeadline.of(head, readyAt);
    if (deadline <= now) return 0;
    const headTokens = this.#tokensOf(head);
    const open = this.#openGates(now);
    // No row larger than the most room any project has now can go: skip it without asking the limiters.
    let room = 0;
    for (const gate of open) room = Math.max(room, gate.limiter.tpmRoom(now));
    let sent = 0;
    for (const [index, item] of this.#readAhead.behind(this.#lookAheadRows)) {
      if (item === head || item.pack || item.notBefore > now) continue;
      if (this.#o.estimator.estimate(item.features) > room) continue;
      const choice = this.#choose(item, now);
      if (choice.kind === 'wait-slot') break; // no free slot: no row can go
      if (choice.kind === 'later') {
        if (choice.wait === 'tpm') continue;
        break; // RPM, a pause or a park hold every row alike
      }
      if (choice.kind !== 'go') continue; // too large, or blocked: judged when it reaches the head
      const due = open.some((gate) =>
        (gate === choice.gate ? gate.limiter.whenReadyAfter(headTokens, choice.tokens, now) : gate.limiter.whenReady(headTokens, now)).at <= deadline,
      );
      if (!due) continue;
      let sending: { request: ModelRequest; hold: BudgetHold | undefined } | undefined;
      if (this.#o.budget) {
        const request = this.#request(item);
        const budget = this.#o.budget.tryReserve(item, request);
        if ('refused' in budget) break; // the head's own turn decides what a refusal means
        sending = { request, hold: budget.hold };
      }
      this.#readAhead.takeAt(index);
      this.#dispatch(item, choice.pool, choice.gate, choice.tokens, now, sending);
      sent++;
      room = 0;
      for (const gate of open) room = Math.max(room, gate.limiter.tpmRoom(now));
    }
    return sent;
  }

  /** The gates of projects with a pool that is not stopped and no pause, park or disablement at `now`. */
  #openGates(now: number): ProjectGate[] {
    const gates = new Set<ProjectGate>();
    for (const pool of this.#pools) {
      if (pool.stopped) continue;
      const gate = this.#o.gates.get(pool.project) as ProjectGate;
      if (!gates.has(gate) && gate.limiter.heldAt(now) === undefined) gates.add(gate);
    }
    return [...gates];
  }

  /** Input tokens a work item reserves: the estimate of its prompt plus what the server charges beyond it. */
  #tokensOf(item: WorkItem): number {
    const extra = this.#o.extraQuotaTokens?.(this.#request(item)) ?? 0;
    return this.#o.estimator.estimate(item.features) + extra;
  }

  #choose(
    item: WorkItem,
    now: number,
  ):
    | { kind: 'go'; pool: PoolState; gate: ProjectGate; tokens: number }
    | { kind: 'later'; at: number; wait: LimiterWait }
    | { kind: 'wait-slot' }
    | { kind: 'too-large'; tokens: number; limit: number }
    | { kind: 'blocked'; end: DispatchEnd } {
    const tokens = this.#tokensOf(item);
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
    if (fits.length === 0) return { kind: 'too-large', tokens, limit: Math.max(...[...open.values()].map((g) => g.limiter.tpmCeiling)) };

    let best: { pool: PoolState; gate: ProjectGate; at: number; wait: LimiterWait } | undefined;
    const readyByProject = new Map<string, { at: number; wait: LimiterWait }>();
    const n = this.#pools.length;
    for (let k = 0; k < n; k++) {
      const pool = this.#pools[(this.#rr + k) % n] as PoolState;
      if (pool.disabledReason !== undefined || pool.active >= this.#governor.limitOf(pool.index)) continue;
      const gate = open.get(pool.project);
      if (!gate || gate.limiter.tooLarge(tokens)) continue;
      let ready = readyByProject.get(pool.project);
      if (ready === undefined) {
        ready = gate.limiter.whenReady(tokens, now);
        readyByProject.set(pool.project, ready);
      }
      if (!best || ready.at < best.at || (ready.at === best.at && pool.active < best.pool.active)) best = { pool, gate, ...ready };
    }
    if (!best) return { kind: 'wait-slot' };
    if (best.at > now) return { kind: 'later', at: best.at, wait: best.wait };
    this.#rr = (best.pool.index + 1) % n;
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
    }, timerDelay(at - now));
  }

  /** One pump soon (after the current I/O callbacks), however many events ask for it. */
  #soon(): void {
    if (this.#soonScheduled || this.#ended) return;
    this.#soonScheduled = true;
    setImmediate(() => {
      this.#soonScheduled = false;
      this.#pump();
    });
  }

  async #fill(): Promise<void> {
    if (this.#filling || this.#inputDone) return;
    this.#filling = true;
    try {
      while (!this.#stopping && !this.#ended && this.#readAhead.span < this.#highWater()) {
        const next = await this.#o.rows.next();
        if (next.done) {
          this.#inputDone = true;
          break;
        }
        this.#readAhead.push(next.value);
        if (this.#readAhead.size === 1 || this.stats.inFlight === 0) this.#pump();
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

  /** @param sending the request already built, and its budget hold (with --max-cost). */
  #dispatch(item: WorkItem, pool: PoolState, gate: ProjectGate, tokens: number, now: number, sending?: { request: ModelRequest; hold: BudgetHold | undefined }): void {
    const reservation = gate.limiter.acquire(tokens, now);
    const flight = this.#governor.start(pool.project, tokens, now);
    if ((item.sent ?? 0) > 0 || item.resent) this.stats.retries++;
    item.sent = (item.sent ?? 0) + 1;
    item.key = pool.alias;
    if (item.pack) for (const row of item.pack.rows) row.key = pool.alias;
    pool.active++;
    this.stats.inFlight++;
    this.stats.requests++;
    this.#attempt(item, pool, gate, reservation, sending)
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        flight.finish(Date.now());
        pool.active--;
        this.stats.inFlight--;
        this.#pump();
      });
  }

  async #attempt(item: WorkItem, pool: PoolState, gate: ProjectGate, reservation: Reservation, sending?: { request: ModelRequest; hold: BudgetHold | undefined }): Promise<void> {
    const request = sending?.request ?? this.#request(item);
    let answer: ModelAnswer;
    try {
      answer = await pool.client.generate(request, {
        signal: this.#abort.signal,
        onUploaded: (timing) => {
          gate.limiter.arrived(reservation, arrivalBound(timing));
          this.#soon();
        },
        timeoutMs: this.#timeout.ms,
      });
    } catch (error) {
      sending?.hold?.settle(undefined);
      gate.limiter.refund(reservation, Date.now());
      // A caller that breaks the contract (throws something else) fails the request as no answer, never the run.
      const failure = error instanceof ApiFailure ? error : connectionFailureOf(error);
      if (failure instanceof TimeoutFailure) this.#timeout.timedOut(failure.timeoutMs);
      this.#onFailure(item, pool, gate, reservation, failure);
      return;
    }
    sending?.hold?.settle(answer);
    const now = Date.now();
    this.#timeout.answered(now - reservation.at);
    this.#health.onAnswer(item.row, now);
    const inputTokens = answer.usage.inputTokens;
    // The server keeps what it charged up front beyond the prompt (max_tokens), whatever the answer used.
    const extra = this.#o.extraQuotaTokens?.(request) ?? 0;
    gate.limiter.settle(reservation, inputTokens > 0 ? inputTokens + extra : 0, now);
    if (answer.limits) gate.policy.onLimitHints(answer.limits, now);
    if (inputTokens > 0) {
      this.#o.estimator.observe(item.features, inputTokens);
      gate.limiter.setEstimateError(this.#o.estimator.relativeError);
    }
    gate.policy.onAnswered(now, reservation.at);
    this.#o.onAnswer?.(item, request, answer);
    this.#countAttempt(item);
    item.usage.input += inputTokens;
    item.usage.output += answer.usage.outputTokens;
    item.usage.thoughts += answer.usage.reasoningTokens;

    const verdict = this.#o.judge(item, answer);
    if (item.pack) {
      const rows = item.pack.rows;
      shareUsage(answer.usage, item.pack.weights).forEach((share, i) => {
        const usage = (rows[i] as WorkItem).usage;
        usage.input += share.input;
        usage.output += share.output;
        usage.thoughts += share.thoughts;
      });
      this.#settlePack(rows, verdict.kind === 'pack' ? verdict.rows : []);
      return;
    }
    if (verdict.kind === 'pack') {
      this.#finish(item, { status: 'failed', label: null, raw: answer.text ?? null, finishReason: answer.finishDetail ?? null, error: 'a packed verdict for a row sent alone' });
    } else if (verdict.kind === 'final') {
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

  /** Applies a failure: to the run (endpoint health), the project (429 policy), the pool (refused key), then the row. */
  #onFailure(item: WorkItem, pool: PoolState, gate: ProjectGate, reservation: Reservation, failure: ApiFailure): void {
    if (failure instanceof CancelledFailure) return; // abandoned, not failed: the row stays pending
    const now = Date.now();
    item.lastError = failure.message;
    if (failure instanceof ConnectionFailure && failure.local) this.#governor.exhausted(this.stats.inFlight);
    const stop = this.#health.onFailure(failure, item.row, now, this.#governor.totalLimit);
    if (stop) {
      item.notBefore = 0;
      this.#retries.push(item);
      this.#pendingEnd ??= stop;
      return;
    }
    let rateLimit: RateLimitOutcome | undefined;
    if (failure instanceof RateLimitFailure) {
      this.stats.rateLimited++;
      rateLimit = gate.policy.onRateLimited(failure.details, now, reservation.at);
    }
    if (failure instanceof KeyFailure) this.#refuseKey(pool, failure);
    const action = failureAction(failure, {
      attempts: item.attempts,
      maxAttempts: this.#o.maxAttempts,
      sent: item.sent ?? 1,
      endpointHealthy: this.#health.healthyFor(item.row),
      ...(rateLimit ? { rateLimit } : {}),
      random: this.#random,
    });
    switch (action.kind) {
      case 'abandon':
        return;
      case 'stop':
        item.notBefore = 0;
        this.#retries.push(item);
        this.#pendingEnd ??= failure instanceof BillingFailure ? { kind: 'billing', failure } : { kind: 'fatal', failure };
        return;
      case 'fail':
        this.#countAttempt(item);
        if (item.pack) {
          // A pack failing for good is sent again in halves: only a row alone fails.
          for (const row of item.pack.rows) row.lastError = action.error;
          this.#requeue(item.pack.rows, item.pack.rows.length);
          return;
        }
        this.#finish(item, { status: 'failed', label: null, raw: null, finishReason: null, error: action.error });
        return;
      case 'retry':
        if (action.countsAsAttempt) this.#countAttempt(item);
        item.notBefore = action.delayMs > 0 ? now + action.delayMs : 0;
        this.#retries.push(item);
        return;
    }
  }

  #refuseKey(pool: PoolState, failure: KeyFailure): void {
    if (pool.disabledReason !== undefined) return;
    pool.disabledReason = `key refused: ${failure.message}`;
    this.#governedAt = -Infinity; // its share of the project's need goes to the project's other keys
    this.#o.onKeyRefused?.(pool.alias, failure.message);
    this.#o.onNotice({ key: `key:${pool.alias}`, text: `${pool.alias} (project ${pool.project}) was refused (${failure.message}); its pool takes no more rows.` });
  }

  #finish(item: WorkItem, outcome: RowOutcome): void {
    this.#o.onFinished(item, outcome);
  }

  /** The request of a work item: a pack's own, or the row's built for its variant. */
  #request(item: WorkItem): ModelRequest {
    return item.pack ? item.pack.request : this.#o.buildRequest(item.cells, item.variant);
  }

  /** One counted attempt of the item, and of each row of a pack (journaled with the row, ./work-item.ts). */
  #countAttempt(item: WorkItem): void {
    item.attempts++;
    if (item.pack) for (const row of item.pack.rows) row.packAttempts = (row.packAttempts ?? 0) + 1;
  }

  /** Finishes the rows of a pack that got a result; the others go back to the queue in smaller packs. */
  #settlePack(rows: readonly WorkItem[], verdicts: readonly PackRowVerdict[]): void {
    const again: WorkItem[] = [];
    rows.forEach((row, i) => {
      const verdict = verdicts[i];
      if (verdict?.kind === 'done') this.#finish(row, verdict.outcome);
      else {
        row.lastError = verdict?.reason ?? 'the pack got no verdict for this row';
        again.push(row);
      }
    });
    this.#requeue(again, rows.length);
  }

  /** Sends `rows` of a pack of `fromSize` rows again, in packs of at most half that size (down to one row). */
  #requeue(rows: WorkItem[], fromSize: number): void {
    if (rows.length === 0) return;
    const size = Math.max(1, Math.floor(fromSize / 2));
    for (const item of this.#o.repack ? this.#o.repack(rows, size) : rows) {
      item.notBefore = 0;
      item.resent = true;
      this.#retries.push(item);
    }
  }

  #end(end: DispatchEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#loadGuard?.stop();
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    this.#resolve?.(end);
  }

  #fail(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#loadGuard?.stop();
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#graceTimer) clearTimeout(this.#graceTimer);
    this.#abort.abort();
    this.#reject?.(error);
  }
}
