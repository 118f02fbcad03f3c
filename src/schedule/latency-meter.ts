/**
 * How long a project's requests hold their slot: from sending to the end of the request (answer, failure or abandon),
 * over the last {@link LATENCY_SAMPLES} requests, and how old the oldest request still in flight is. Little's law turns
 * this into the number of requests in flight a rate needs (./concurrency.ts). O(1) per request.
 */

/** Requests the mean looks back over. */
export const LATENCY_SAMPLES = 128;

/** One request in flight, as the meter tracks it. */
export interface Flight {
  readonly at: number;
  done: boolean;
}

export class LatencyMeter {
  readonly #samples = new Float64Array(LATENCY_SAMPLES);
  #count = 0;
  #next = 0;
  #sum = 0;
  #completions = 0;
  /** Requests in flight in the order they were sent; finished ones are dropped from the front lazily. */
  #flights: Flight[] = [];
  #head = 0;

  /** Records a request sent at `at` (ms). */
  start(at: number): Flight {
    const flight = { at, done: false };
    this.#flights.push(flight);
    return flight;
  }

  /** Records the end of a request, at `now` (ms). Idempotent. */
  finish(flight: Flight, now: number): void {
    if (flight.done) return;
    flight.done = true;
    const ms = Math.max(0, now - flight.at);
    if (this.#count === LATENCY_SAMPLES) this.#sum -= this.#samples[this.#next] as number;
    else this.#count++;
    this.#samples[this.#next] = ms;
    this.#sum += ms;
    this.#next = (this.#next + 1) % LATENCY_SAMPLES;
    this.#completions++;
  }

  /** Requests finished so far. */
  get completions(): number {
    return this.#completions;
  }

  /** Mean time a request held its slot over the last {@link LATENCY_SAMPLES}, ms; undefined before the first. */
  get meanMs(): number | undefined {
    return this.#count > 0 ? this.#sum / this.#count : undefined;
  }

  /** Age of the oldest request still in flight at `now`, ms; 0 when none is. */
  oldestAgeMs(now: number): number {
    const flights = this.#flights;
    let head = this.#head;
    while (head < flights.length && (flights[head] as Flight).done) head++;
    if (head > 1024 && head * 2 > flights.length) {
      this.#flights = flights.slice(head);
      head = 0;
    }
    this.#head = head;
    const oldest = this.#flights[head];
    return oldest ? Math.max(0, now - oldest.at) : 0;
  }
}
