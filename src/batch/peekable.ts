/**
 * An async iterator that can look at its next item without taking it: a chunk that is full leaves the row that did
 * not fit for the next chunk.
 */
export class Peekable<T> {
  readonly #iterator: AsyncIterator<T>;
  #next: Promise<IteratorResult<T>> | undefined;
  #done = false;

  constructor(source: AsyncIterable<T>) {
    this.#iterator = source[Symbol.asyncIterator]();
  }

  /** The next item, left in place; undefined at the end. */
  async peek(): Promise<T | undefined> {
    if (this.#done) return undefined;
    this.#next ??= this.#iterator.next();
    const result = await this.#next;
    if (result.done) this.#done = true;
    return result.done ? undefined : result.value;
  }

  /** Takes the next item; undefined at the end. */
  async take(): Promise<T | undefined> {
    const item = await this.peek();
    this.#next = undefined;
    return item;
  }

  /** True once the source is exhausted. */
  get done(): boolean {
    return this.#done;
  }

  /** Ends the source early (its finally blocks run). */
  async close(): Promise<void> {
    this.#done = true;
    await this.#iterator.return?.();
  }
}
