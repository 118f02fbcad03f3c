/**
 * Reduces a job's event log (../../journal/event-log-read.ts) to what the report draws: per run and project, requests
 * and input tokens per second (for rolling 60 s sums), latency histograms and failures per time slot, requests in
 * flight and the concurrency bound, limits over time, 429 pauses and daily parks, what held the run back; and per
 * project, requests per quota day (the provider's: Pacific for Gemini) for the whole job.
 *
 * Memory is bounded by the runs' durations, not their requests: per-second counters, and latency histograms in slots
 * that double in width when a run has more than {@link MAX_SLOTS} of them.
 */
import { bucketLatency, latencyBucket, type EventRunHeader, type HoldKind, type RequestOutcome } from '../../journal/event-log-format.js';
import type { EventVisitor, RequestEvent } from '../../journal/event-log-read.js';
import type { QuotaDay } from '../../providers/contract.js';

/** Latency histograms are kept in at most this many time slots per run and project (they double in width beyond). */
export const MAX_SLOTS = 512;
const BUCKETS = 160;

/** A failure as the error chart names it: `429 <quotaId>`, `503`, `timeout`, `no connection`… */
export type FailureKind = string;

/** One project in one run. */
export class ProjectTrack {
  readonly name: string;
  /** Requests sent in each second of the run (index: seconds since the run's t0). */
  readonly sent: number[] = [];
  /** Input tokens of the answers to the requests sent in each second. */
  readonly inputTokens: number[] = [];
  /** Failures by kind, per second. */
  readonly failures = new Map<FailureKind, Map<number, number>>();
  /** Latency histograms of HTTP 200 answers per slot of {@link slotSeconds} seconds. */
  readonly latency = new Map<number, Uint32Array>();
  slotSeconds = 1;
  /** Limits in force from `at` on. */
  readonly limits: Array<{ at: number; rpm: number | undefined; tpm: number | undefined; rpd: number | undefined }> = [];
  /** Most requests in flight over the second before `at`, and the concurrency bound then. */
  readonly inFlight: Array<{ at: number; inFlight: number; bound: number }> = [];
  /** Holds from `at` on (`none` ends one). */
  readonly holds: Array<{ at: number; kind: HoldKind; until: number | undefined; reason: string }> = [];
  requests = 0;
  answered = 0;
  rateLimited = 0;

  constructor(name: string) {
    this.name = name;
  }

  /** Adds `n` latencies of `bucket` at second `sec`. */
  addLatency(sec: number, bucket: number, n: number): void {
    let slot = Math.floor(sec / this.slotSeconds);
    while (slot >= MAX_SLOTS) {
      this.#widen();
      slot = Math.floor(sec / this.slotSeconds);
    }
    let h = this.latency.get(slot);
    if (!h) {
      h = new Uint32Array(BUCKETS);
      this.latency.set(slot, h);
    }
    h[Math.min(BUCKETS - 1, Math.max(0, bucket))]! += n;
  }

  #widen(): void {
    const merged = new Map<number, Uint32Array>();
    for (const [slot, h] of this.latency) {
      const to = Math.floor(slot / 2);
      const into = merged.get(to);
      if (!into) merged.set(to, h);
      else for (let i = 0; i < BUCKETS; i++) into[i]! += h[i]!;
    }
    this.latency.clear();
    for (const [slot, h] of merged) this.latency.set(slot, h);
    this.slotSeconds *= 2;
  }
}

/** One run of the job, as its event lines tell it. */
export interface RunTrack {
  header: EventRunHeader;
  /** The run's first event after its header (its charts start there), ms since epoch. */
  start: number;
  /** The run's last event (its `E` line, or the last line of a run that was killed), ms since epoch. */
  end: number;
  /** True when the run closed its log (an `E` line); false for a run killed or still going. */
  closed: boolean;
  projects: Map<string, ProjectTrack>;
  /** What held the run back from `at` on. */
  bindings: Array<{ at: number; binding: string }>;
}

/** The whole log, digested. */
export interface EventDigest {
  runs: RunTrack[];
  /** Requests per project and quota day (`YYYY-MM-DD` in the provider's zone), and the RPD limit seen that day. */
  days: Map<string, Map<string, { requests: number; rpd: number | undefined }>>;
  /** The zone the days are counted in (`PT`, `UTC`). */
  zone: string;
}

/** The percentile `q` (0–1) of a latency histogram, ms; undefined when it is empty. */
export function percentile(h: Uint32Array, q: number): number | undefined {
  let total = 0;
  for (const n of h) total += n;
  if (total === 0) return undefined;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < h.length; i++) {
    seen += h[i]!;
    if (seen >= rank) return bucketLatency(i);
  }
  return undefined;
}

/** The kind a failed request is charted under; undefined for an answer or a cancelled request. */
export function failureKind(outcome: RequestOutcome, quotaIds: readonly string[]): FailureKind | undefined {
  switch (outcome) {
    case 200:
    case 'x':
      return undefined;
    case 429:
      return quotaIds.length > 0 ? `429 ${quotaIds.join(' + ')}` : '429 (no quotaId)';
    case 't':
      return 'timeout';
    case 'c':
      return 'no connection';
    case 'b':
      return 'billing refused';
    default:
      return typeof outcome === 'number' && outcome >= 500 ? `${outcome}` : `${outcome} refused`;
  }
}

/**
 * A visitor for ../../journal/event-log-read.ts that builds an {@link EventDigest}.
 * @param quotaDay the provider's calendar of daily quotas (RPD days).
 */
export class DigestBuilder implements EventVisitor {
  readonly digest: EventDigest;
  readonly #day: QuotaDay;
  #run: RunTrack | undefined;
  /** The quota day of the last instant asked, and its bounds (formatting a date costs more than the rest). */
  #dayName = '';
  #dayStart = Infinity;
  #dayEnd = -Infinity;

  constructor(quotaDay: QuotaDay) {
    this.#day = quotaDay;
    this.digest = { runs: [], days: new Map(), zone: quotaDay.zone };
  }

  run(header: EventRunHeader): void {
    this.#run = { header, start: Infinity, end: header.t0, closed: false, projects: new Map(), bindings: [] };
    this.digest.runs.push(this.#run);
  }

  request(e: RequestEvent): void {
    const run = this.#run;
    if (!run) return;
    const p = this.#project(run, e.project);
    const sec = Math.max(0, Math.floor((e.sentAt - run.header.t0) / 1000));
    p.sent[sec] = (p.sent[sec] ?? 0) + e.count;
    p.requests += e.count;
    if (e.inputTokens > 0) p.inputTokens[sec] = (p.inputTokens[sec] ?? 0) + e.inputTokens;
    for (const o of e.outcomes) {
      if (o.outcome === 200) p.answered += o.count;
      if (o.outcome === 429) p.rateLimited += o.count;
      const kind = failureKind(o.outcome, o.quotaIds);
      if (kind === undefined) continue;
      let bySec = p.failures.get(kind);
      if (!bySec) {
        bySec = new Map();
        p.failures.set(kind, bySec);
      }
      // A failure is marked when it came back: at its sending plus its latency, when known.
      const at = e.latencyMs !== undefined ? Math.floor((e.sentAt + e.latencyMs - run.header.t0) / 1000) : sec;
      bySec.set(at, (bySec.get(at) ?? 0) + o.count);
    }
    if (e.latencyMs !== undefined) {
      if (e.outcomes[0]?.outcome === 200) p.addLatency(sec, latencyBucket(e.latencyMs), 1);
      this.#seen(run, e.sentAt + e.latencyMs, e.sentAt);
    } else {
      for (const [bucket, n] of e.latencyBuckets ?? []) p.addLatency(sec, bucket, n);
      this.#seen(run, e.sentAt + 1000, e.sentAt);
    }
    const day = this.#dayOf(e.sentAt);
    const days = this.#days(e.project);
    const d = days.get(day) ?? { requests: 0, rpd: undefined };
    d.requests += e.count;
    const rpd = p.limits.at(-1)?.rpd;
    if (rpd !== undefined) d.rpd = rpd;
    days.set(day, d);
  }

  inFlight(project: string, at: number, inFlight: number, bound: number): void {
    const run = this.#run;
    if (!run) return;
    this.#project(run, project).inFlight.push({ at, inFlight, bound });
    this.#seen(run, at);
  }

  limits(project: string, at: number, limits: { rpm: number | undefined; tpm: number | undefined; rpd: number | undefined }): void {
    const run = this.#run;
    if (!run) return;
    this.#project(run, project).limits.push({ at, ...limits });
    if (limits.rpd !== undefined) {
      const days = this.#days(project);
      const day = this.#dayOf(at);
      const d = days.get(day) ?? { requests: 0, rpd: undefined };
      d.rpd = limits.rpd;
      days.set(day, d);
    }
    this.#seen(run, at);
  }

  hold(project: string, at: number, kind: HoldKind, until: number | undefined, reason: string): void {
    const run = this.#run;
    if (!run) return;
    this.#project(run, project).holds.push({ at, kind, until, reason });
    this.#seen(run, at);
  }

  binding(at: number, binding: string): void {
    const run = this.#run;
    if (!run) return;
    run.bindings.push({ at, binding });
    this.#seen(run, at);
  }

  end(at: number): void {
    const run = this.#run;
    if (!run) return;
    run.closed = true;
    this.#seen(run, at);
  }

  #seen(run: RunTrack, at: number, first = at): void {
    if (at > run.end) run.end = at;
    if (first < run.start) run.start = first;
  }

  #project(run: RunTrack, name: string): ProjectTrack {
    let p = run.projects.get(name);
    if (!p) {
      p = new ProjectTrack(name);
      run.projects.set(name, p);
    }
    return p;
  }

  #days(project: string): Map<string, { requests: number; rpd: number | undefined }> {
    let days = this.digest.days.get(project);
    if (!days) {
      days = new Map();
      this.digest.days.set(project, days);
    }
    return days;
  }

  #dayOf(ms: number): string {
    if (ms < this.#dayStart || ms >= this.#dayEnd) {
      this.#dayName = this.#day.dayOf(ms);
      this.#dayEnd = this.#day.nextBoundary(ms);
      // Every day lasts at least 23 h (DST): instants from ms, or from 23 h before the boundary, to it are this day.
      this.#dayStart = Math.min(ms, this.#dayEnd - 23 * 3_600_000);
    }
    return this.#dayName;
  }
}
