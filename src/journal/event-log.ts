/**
 * Appends a run's events to the job's event log (`<job-dir>/events.log`, grammar in ./event-log-format.ts): each
 * request (or, past {@link DETAIL_BUDGET_BYTES}, per-second sums of them), and what the scheduler's state was — requests
 * in flight and the concurrency bound, limits, 429 pauses and daily parks, what held the run back.
 *
 * Lines are buffered and handed to the OS by {@link EventLog.flush} (the recorder calls it every 250 ms) and at
 * {@link EventLog.close}: a run killed with SIGKILL loses at most its last quarter second of events, and its torn last
 * line is skipped by the reader and ended with a newline by the next run. The log is informative (the journal is the
 * truth): when it cannot be opened or written, nothing more is written this run ({@link EventLog.failure} says why)
 * and the run goes on.
 */
import fs from 'node:fs';
import { O_NOFOLLOW } from '../files/atomic-file.js';
import { DETAIL_BUDGET_BYTES, EVENT_LOG_MAGIC, latencyBucket, type EventRunHeader, type HoldKind, type RequestOutcome } from './event-log-format.js';

/** A second's requests of one project, summed (an `a` line). */
interface Aggregate {
  sec: number;
  project: number;
  requests: number;
  input: number;
  output: number;
  outcomes: Map<string, number>;
  latency: Map<number, number>;
}

/** Aggregates of seconds older than this before the newest event are written (late answers add another line), ms. */
const AGGREGATE_HOLD_MS = 60_000;
/** The buffer is handed to the OS when it holds this many characters, whatever the timer. */
const BUFFER_CHARS = 256 * 1024;

export interface EventLogOptions {
  /** Request lines are written while the file is under this many bytes; default {@link DETAIL_BUDGET_BYTES}. */
  detailBudgetBytes?: number;
}

export class EventLog {
  readonly #t0: number;
  readonly #budget: number;
  readonly #projects = new Map<string, number>();
  readonly #quotaIds = new Map<string, number>();
  readonly #poolProject: number[] = [];
  readonly #aggregates = new Map<number, Aggregate>();
  #fd: number | undefined;
  #buffer: string[] = [];
  #bufferChars = 0;
  #bytes = 0;
  #poolCount = 0;
  /** Why the log stopped being written this run, or undefined while it is written. */
  failure: unknown;

  /**
   * Opens (or creates) `file` for appending, never through a symbolic link, and starts the run's lines with its `R`
   * header. Does not throw: a log that cannot be opened is a {@link failure}.
   */
  constructor(file: string, header: EventRunHeader, options: EventLogOptions = {}) {
    this.#t0 = header.t0;
    this.#budget = options.detailBudgetBytes ?? DETAIL_BUDGET_BYTES;
    try {
      const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | O_NOFOLLOW, 0o644);
      this.#fd = fd;
      const size = fs.fstatSync(fd).size;
      this.#bytes = size;
      if (size === 0) this.#line(EVENT_LOG_MAGIC);
      else {
        // A run killed mid-line left a torn line: end it, so this run's first line is whole.
        const last = Buffer.alloc(1);
        fs.readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) this.#line('');
      }
    } catch (error) {
      this.failure = error;
      this.#fd = undefined;
    }
    this.#line(`R ${JSON.stringify(header)}`);
  }

  /** True while request lines are written (the file is under its detail budget). */
  get detailed(): boolean {
    return this.#bytes + this.#bufferChars < this.#budget;
  }

  /** The index of `project` in this run's lines (an entry is written the first time). */
  project(name: string): number {
    return this.#intern(this.#projects, 'J', name);
  }

  /** Declares a key's pool by its alias (never the key) and project; returns its index for {@link request}. */
  pool(alias: string, project: string): number {
    const j = this.project(project);
    const i = this.#poolCount++;
    this.#poolProject[i] = j;
    this.#line(`P ${i} ${j} ${JSON.stringify(alias)}`);
    return i;
  }

  /**
   * One request of pool `pool`, settled: sent at `sentAt` (ms since epoch), answered or failed `latencyMs` later, with
   * the answer's input and output tokens (0 when none came) and its outcome; `quotaIds` are the limits a 429 named.
   */
  request(pool: number, sentAt: number, latencyMs: number, inputTokens: number, outputTokens: number, outcome: RequestOutcome, quotaIds: readonly string[] = []): void {
    const ids = quotaIds.map((id) => this.#quotaId(id));
    const sent = Math.round(sentAt - this.#t0);
    const latency = Math.max(0, Math.round(latencyMs));
    if (this.detailed) {
      this.#line(`q ${sent} ${latency} ${pool} ${inputTokens} ${outputTokens} ${outcome}${ids.length > 0 ? ` ${ids.join(',')}` : ''}`);
      return;
    }
    const project = this.#poolProject[pool] ?? 0;
    const sec = Math.floor(sent / 1000);
    const key = sec * 4096 + project;
    let a = this.#aggregates.get(key);
    if (!a) {
      a = { sec, project, requests: 0, input: 0, output: 0, outcomes: new Map(), latency: new Map() };
      this.#aggregates.set(key, a);
    }
    a.requests++;
    a.input += inputTokens;
    a.output += outputTokens;
    const code = ids.length > 0 ? `${outcome}:${ids.join(':')}` : String(outcome);
    a.outcomes.set(code, (a.outcomes.get(code) ?? 0) + 1);
    if (outcome === 200) {
      const b = latencyBucket(latency);
      a.latency.set(b, (a.latency.get(b) ?? 0) + 1);
    }
  }

  /** Project `project` (an index from {@link project}) had at most `inFlight` requests in flight lately, with `bound` allowed. */
  inFlight(project: number, at: number, inFlight: number, bound: number): void {
    this.#line(`f ${Math.round(at - this.#t0)} ${project} ${inFlight} ${bound}`);
  }

  /** The project's limits in force from `at`: RPM, TPM, RPD (undefined: none). */
  limits(project: number, at: number, rpm: number | undefined, tpm: number | undefined, rpd: number | undefined): void {
    const v = (n: number | undefined) => (n === undefined ? '-' : String(n));
    this.#line(`L ${Math.round(at - this.#t0)} ${project} ${v(rpm)} ${v(tpm)} ${v(rpd)}`);
  }

  /** The project's hold from `at`: paused or parked until `until` (ms since epoch), disabled, or none; with why. */
  hold(project: number, at: number, kind: HoldKind, until: number | undefined, reason: string): void {
    this.#line(`H ${Math.round(at - this.#t0)} ${project} ${kind} ${until === undefined ? '-' : Math.round(until - this.#t0)} ${JSON.stringify(reason)}`);
  }

  /** What held the run back from `at` on (a schedule/binding.ts name). */
  binding(at: number, binding: string): void {
    this.#line(`b ${Math.round(at - this.#t0)} ${binding}`);
  }

  /** Hands the buffered lines to the OS; aggregates of seconds more than a minute before `now` are written first. */
  flush(now: number): void {
    this.#writeAggregates(now - AGGREGATE_HOLD_MS);
    this.#write();
  }

  /** Writes everything, an `E` line, and closes the file. Idempotent. */
  close(now: number): void {
    if (this.#fd === undefined && this.#buffer.length === 0) return;
    this.#writeAggregates(Infinity);
    this.#line(`E ${Math.round(now - this.#t0)}`);
    this.#write();
    if (this.#fd !== undefined) {
      try {
        fs.closeSync(this.#fd);
      } catch {
        // informative only
      }
      this.#fd = undefined;
    }
    this.#buffer = [];
  }

  /** The index of `name` in `names` (this run's), numbered in order of first use; the first use writes `<tag> <index> <name as JSON>`. */
  #intern(names: Map<string, number>, tag: string, name: string): number {
    let i = names.get(name);
    if (i === undefined) {
      i = names.size;
      names.set(name, i);
      this.#line(`${tag} ${i} ${JSON.stringify(name)}`);
    }
    return i;
  }

  #quotaId(id: string): number {
    return this.#intern(this.#quotaIds, 'Q', id);
  }

  #writeAggregates(before: number): void {
    for (const [key, a] of this.#aggregates) {
      if (this.#t0 + (a.sec + 1) * 1000 > before) continue;
      this.#aggregates.delete(key);
      const outcomes = [...a.outcomes].map(([code, n]) => `${code}x${n}`).join(',');
      const latency = [...a.latency].map(([b, n]) => `${b}:${n}`).join(',');
      this.#line(`a ${a.sec} ${a.project} ${a.requests} ${a.input} ${a.output} ${outcomes}${latency ? ` ${latency}` : ''}`);
    }
  }

  #line(text: string): void {
    if (this.#fd === undefined) return;
    this.#buffer.push(text);
    this.#bufferChars += text.length + 1;
    if (this.#bufferChars >= BUFFER_CHARS) this.#write();
  }

  #write(): void {
    if (this.#buffer.length === 0) return;
    const text = `${this.#buffer.join('\n')}\n`;
    this.#buffer = [];
    this.#bufferChars = 0;
    if (this.#fd === undefined) return;
    try {
      this.#bytes += fs.writeSync(this.#fd, text);
    } catch (error) {
      this.failure = error;
      try {
        fs.closeSync(this.#fd);
      } catch {
        // already failing
      }
      this.#fd = undefined;
    }
  }
}
