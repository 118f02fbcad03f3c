/**
 * Keeps our own process from becoming the bottleneck. Little's law (./concurrency.ts) assumes a request's latency is the
 * server's; when this process is saturated (a fast server at a huge rate, or the simulator in the same process) the
 * latency measured is our own queueing, and answering it with more requests in flight makes it worse: measured on this
 * project's 2-core machine, 20,000 requests to the in-process simulator at latency 0 went at 885/s with 64 in flight
 * and 546/s with 4,000 (p99 latency 0.26 s against 36 s), and a 30,000-row `--simulate --workers-per-key 100000` job
 * held 5,000 in flight and ran into 60 s timeouts.
 *
 * The signal is the event loop's utilization (node:perf_hooks performance.eventLoopUtilization: the share of time the
 * loop spent running callbacks rather than waiting for I/O), read by a timer every {@link LOAD_INTERVAL_MS} and averaged
 * over the last second (a burst of sending is no saturation; and a reading taken only when there is work to do would
 * always look busy, as measured: ELU 1.00 at every dispatch, 0.05 over the seconds between). While the average is above
 * {@link BUSY_UTILIZATION} the cap on requests in flight drops to 70 % of those in flight (never below
 * {@link LOAD_CAP_MIN}); while it is below {@link RELAXED_UTILIZATION} the cap grows by a tenth (at least 8) a step until
 * it no longer binds. A run holding 2,000 requests at seconds per answer uses a few per cent of the loop, so the cap
 * stays off there. (The event loop's delay is no signal here: a loop busy with thousands of small callbacks still
 * fires its timers on time, as measured at 5,000 in flight.)
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** Utilization of the event loop above which this process counts as saturated (0–1). */
export const BUSY_UTILIZATION = 0.9;
/** Utilization under which the cap may grow again (0–1). */
export const RELAXED_UTILIZATION = 0.75;
/** The cap never goes below this many requests in flight (what the earlier fixed default of 8 × 8 keys gave). */
export const LOAD_CAP_MIN = 64;
/** How often the utilization is read, ms. */
export const LOAD_INTERVAL_MS = 250;
/** Readings averaged (one second's worth). */
const READINGS = 4;

/** Where the utilization comes from: its share of busy time since the last call (0–1). */
export type UtilizationSource = () => number;

/** A {@link UtilizationSource} over performance.eventLoopUtilization. */
export function eventLoopUtilization(): UtilizationSource {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const delta = performance.eventLoopUtilization(now, last);
    last = now;
    return delta.utilization;
  };
}

export class LoadGuard {
  readonly #utilization: UtilizationSource;
  readonly #readings: number[] = [];
  #cap = Infinity;
  #last = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(utilization: UtilizationSource = eventLoopUtilization()) {
    this.#utilization = utilization;
  }

  /** Requests in flight this process can take now (Infinity: no cap). */
  get cap(): number {
    return this.#cap;
  }

  /** The utilization averaged over the last second (0–1). */
  get utilization(): number {
    return this.#last;
  }

  /**
   * Reads the utilization every {@link LOAD_INTERVAL_MS} until {@link stop} (the timer does not keep the process
   * alive).
   * @param inFlight requests in flight now.
   * @param ceiling the cap stops binding (becomes Infinity) once it grows past this.
   */
  watch(inFlight: () => number, ceiling: () => number): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.step(inFlight(), ceiling()), LOAD_INTERVAL_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One reading: adjusts the cap from the utilization averaged over the last {@link READINGS} readings. */
  step(inFlight: number, ceiling: number): number {
    this.#readings.push(this.#utilization());
    if (this.#readings.length > READINGS) this.#readings.shift();
    const busy = (this.#last = this.#readings.reduce((a, b) => a + b, 0) / this.#readings.length);
    if (busy > BUSY_UTILIZATION) {
      if (inFlight > LOAD_CAP_MIN) this.#cap = Math.max(LOAD_CAP_MIN, Math.floor(0.7 * Math.min(this.#cap, inFlight)));
    } else if (busy < RELAXED_UTILIZATION && this.#cap !== Infinity) {
      const grown = this.#cap + Math.max(8, Math.ceil(this.#cap / 10));
      this.#cap = grown >= ceiling ? Infinity : grown;
    }
    return this.#cap;
  }
}
