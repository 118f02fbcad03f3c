/**
 * Records a classify run into the job's event log (../journal/event-log.ts) for the HTML run report: every request,
 * seen through a wrapper around each key's {@link ModelCaller} (sent, answered, tokens, outcome, the quotaIds of a
 * 429), and the scheduler's state, sampled every {@link SAMPLE_MS}: what holds the run back (the dispatcher's binding),
 * requests in flight against the concurrency bound, each project's limits and its 429 pause or daily park.
 *
 * It only watches: nothing here changes what is sent or when. Keys never reach the log, only their aliases.
 */
import { redactSecrets } from '../config/known-secrets.js';
import { EventLog } from '../journal/event-log.js';
import type { HoldKind, RequestOutcome } from '../journal/event-log-format.js';
import type { ModelCaller } from '../providers/contract.js';
import { ApiFailure, BillingFailure, CancelledFailure, ConnectionFailure, RateLimitFailure, TimeoutFailure } from '../providers/failures.js';
import type { BindingNow } from '../schedule/binding.js';
import type { KeyPool, ProjectGate } from '../schedule/dispatcher.js';

/** How often the scheduler's state is sampled, ms. */
export const SAMPLE_MS = 50;
/** What held the run back is written at most this often (the binding seen most among the samples), ms. */
export const BINDING_WINDOW_MS = 250;
/** Requests in flight are written at most this often (the most seen since), ms. */
export const IN_FLIGHT_WINDOW_MS = 1_000;

/** What the recorder reads from the dispatcher (schedule/dispatcher.ts). */
export interface WatchedDispatcher {
  readonly binding: BindingNow;
  slotsOf(project: string): number;
}

interface ProjectState {
  index: number;
  name: string;
  inFlight: number;
  peak: number;
  written: string;
  limits: string;
  hold: string;
}

export class EventRecorder {
  readonly #log: EventLog;
  readonly #projects = new Map<string, ProjectState>();
  #timer: NodeJS.Timeout | undefined;
  #watched: { dispatcher: WatchedDispatcher; gates: ReadonlyMap<string, ProjectGate> } | undefined;
  #samples = new Map<string, number>();
  #windowStart = 0;
  #inFlightAt = 0;
  #flushedAt = 0;
  #binding = '';
  #closed = false;

  constructor(log: EventLog) {
    this.#log = log;
  }

  /** The pools with each client wrapped so that its requests are recorded. */
  wrap(pools: readonly KeyPool[]): KeyPool[] {
    return pools.map((pool) => ({ ...pool, client: this.#recording(pool) }));
  }

  /** Starts sampling the dispatcher and the projects' gates, until {@link close}. */
  watch(dispatcher: WatchedDispatcher, gates: ReadonlyMap<string, ProjectGate>, now = Date.now()): void {
    this.#watched = { dispatcher, gates };
    this.#windowStart = now;
    this.#inFlightAt = now;
    this.#flushedAt = now;
    this.#sample(now);
    this.#timer = setInterval(() => this.#sample(Date.now()), SAMPLE_MS);
    this.#timer.unref();
  }

  /** Samples a last time, writes everything and closes the log (synchronous: also for a process about to exit). Idempotent. */
  close(now = Date.now()): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    if (this.#watched) {
      this.#sample(now, true);
    }
    this.#log.close(now);
  }

  #recording(pool: KeyPool): ModelCaller {
    const index = this.#log.pool(pool.alias, pool.project);
    const project = this.#project(pool.project);
    const inner = pool.client;
    const log = this.#log;
    return {
      async generate(request, options) {
        const sentAt = Date.now();
        project.inFlight++;
        if (project.inFlight > project.peak) project.peak = project.inFlight;
        try {
          const answer = await inner.generate(request, options);
          log.request(index, sentAt, Date.now() - sentAt, answer.usage.inputTokens, answer.usage.outputTokens + answer.usage.reasoningTokens, 200);
          return answer;
        } catch (error) {
          const { outcome, quotaIds } = outcomeOf(error);
          log.request(index, sentAt, Date.now() - sentAt, 0, 0, outcome, quotaIds);
          throw error;
        } finally {
          project.inFlight--;
        }
      },
    };
  }

  #project(name: string): ProjectState {
    let p = this.#projects.get(name);
    if (!p) {
      p = { index: this.#log.project(name), name, inFlight: 0, peak: 0, written: '', limits: '', hold: '' };
      this.#projects.set(name, p);
    }
    return p;
  }

  #sample(now: number, last = false): void {
    const watched = this.#watched;
    if (!watched) return;
    const held = watched.dispatcher.binding.binding;
    if (held !== undefined) this.#samples.set(held, (this.#samples.get(held) ?? 0) + 1);
    if (now - this.#windowStart >= BINDING_WINDOW_MS || last) {
      let best = '';
      let most = 0;
      for (const [binding, n] of this.#samples) {
        if (n > most) {
          best = binding;
          most = n;
        }
      }
      if (best !== '' && best !== this.#binding) {
        this.#binding = best;
        this.#log.binding(this.#windowStart, best);
      }
      this.#samples.clear();
      this.#windowStart = now;
    }
    const inFlightDue = now - this.#inFlightAt >= IN_FLIGHT_WINDOW_MS || last;
    for (const [name, gate] of watched.gates) {
      const p = this.#project(name);
      const { rpm, tpm, rpd } = gate.limiter.limits;
      const limits = `${rpm.value} ${tpm.value} ${rpd?.value ?? '-'}`;
      if (limits !== p.limits) {
        p.limits = limits;
        this.#log.limits(p.index, now, rpm.value, tpm.value, rpd?.value);
      }
      const hold = gate.limiter.heldAt(now);
      const kind: HoldKind = hold === undefined ? 'none' : hold.kind === 'paused' ? 'pause' : hold.kind === 'parked' ? 'park' : 'disabled';
      const until = hold && hold.kind !== 'disabled' ? hold.until : undefined;
      const key = `${kind} ${until ?? ''}`;
      if (key !== p.hold) {
        p.hold = key;
        this.#log.hold(p.index, now, kind, until, hold ? redactSecrets(hold.reason) : '');
      }
      if (inFlightDue) {
        const state = `${p.peak} ${watched.dispatcher.slotsOf(name)}`;
        if (state !== p.written) {
          p.written = state;
          this.#log.inFlight(p.index, now, p.peak, watched.dispatcher.slotsOf(name));
        }
        p.peak = p.inFlight;
      }
    }
    if (inFlightDue) this.#inFlightAt = now;
    if (now - this.#flushedAt >= BINDING_WINDOW_MS || last) {
      this.#flushedAt = now;
      this.#log.flush(now);
    }
  }
}

/** The event log's outcome of a failed request, and the quotaIds a 429 named. */
function outcomeOf(error: unknown): { outcome: RequestOutcome; quotaIds: string[] } {
  if (error instanceof RateLimitFailure) return { outcome: 429, quotaIds: error.details.hits.map((h) => h.id).filter((id): id is string => id !== undefined) };
  if (error instanceof BillingFailure) return { outcome: 'b', quotaIds: [] };
  if (error instanceof TimeoutFailure) return { outcome: 't', quotaIds: [] };
  if (error instanceof CancelledFailure) return { outcome: 'x', quotaIds: [] };
  if (error instanceof ConnectionFailure) return { outcome: 'c', quotaIds: [] };
  if (error instanceof ApiFailure && error.httpStatus !== undefined) return { outcome: error.httpStatus, quotaIds: [] };
  return { outcome: 'c', quotaIds: [] };
}
