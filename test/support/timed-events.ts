/**
 * Many timed callbacks with few fake timers pending, for fake servers on vitest's fake clock. Each time a fake timer
 * fires, vitest (@sinonjs/fake-timers) looks through every pending timer for the next one, so a fake server with a
 * timer per request in flight pays (timers fired × requests in flight): in the Dispatcher tests that scan was a third
 * of the CPU. Here a callback gets its own `setTimeout` only once no other is due before it; until then it waits in a
 * heap. So a few timers are pending, not one per request in flight.
 *
 * Each callback still runs in its own timer callback, in the fake clock's order (by due time, then by when it was
 * scheduled), so the promise jobs one of them starts run before the next one, as they would with a timer each. Against
 * the code under test's own timers due at the same millisecond, the order may differ: the fake clock runs timers due
 * together in the order they were created, and these are created later than a timer each would have been.
 */
import { EventHeap } from './event-heap.js';

/** Timed callbacks, each with its own fake timer once it is among the earliest due. */
export class TimedEvents {
  /** Callbacks without a timer yet: all due later than every armed one. */
  readonly #waiting = new EventHeap<() => void>();
  /** Callbacks with a timer armed, by due time: how many. */
  readonly #armed = new Map<number, number>();

  /**
   * Runs `run` `delayMs` after now (`Date.now()`: the fake clock once installed), the delay cut to whole ms and at least
   * 0 as the fake clock's `setTimeout` takes it. An exception `run` throws comes out of its timer callback, as it would
   * from its own `setTimeout`.
   */
  after(delayMs: number, run: () => void): void {
    const at = Date.now() + Math.max(0, Math.trunc(delayMs));
    if (at <= this.#firstArmed()) this.#setTimer(at, run);
    else this.#waiting.push(at, run);
  }

  #firstArmed(): number {
    let first = Infinity;
    for (const at of this.#armed.keys()) first = Math.min(first, at);
    return first;
  }

  #setTimer(at: number, run: () => void): void {
    this.#armed.set(at, (this.#armed.get(at) ?? 0) + 1);
    setTimeout(() => {
      const left = (this.#armed.get(at) ?? 1) - 1;
      if (left === 0) this.#armed.delete(at);
      else this.#armed.set(at, left);
      try {
        run();
      } finally {
        this.#armWaiting();
      }
    }, Math.max(0, at - Date.now()));
  }

  /** Gives a timer to every waiting callback due no later than the first armed one (to the next due, if none is). */
  #armWaiting(): void {
    let first = this.#firstArmed();
    if (first === Infinity && this.#waiting.size > 0) first = this.#waiting.nextAt;
    while (this.#waiting.size > 0 && this.#waiting.nextAt <= first) {
      const at = this.#waiting.nextAt;
      this.#setTimer(at, this.#waiting.pop());
    }
  }
}
