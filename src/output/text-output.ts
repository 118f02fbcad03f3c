/**
 * Where a text output (CSV, TSV, JSONL) goes: the temporary file of its target, renamed onto the target on commit,
 * or stdout (`-`). Waits for 'drain' when the stream's buffer is full, so memory stays bounded.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { openTempFile, publishTempFile, removeTempFile, writeFailed } from './output-file.js';

/** A sink for the chunks of a text output. */
export interface TextOutput {
  /** Writes a chunk; resolves at once, or after 'drain' when the buffer is full. */
  write(chunk: string): Promise<void>;
  /** Ends the output: flushes, fsyncs and renames a file onto its target; waits for stdout to take everything. */
  commit(): Promise<void>;
  /** Drops a file output (the target is left as it was); stops writing to stdout. */
  abort(): Promise<void>;
}

/**
 * Opens the sink of `target` (`-` for `stdout`, the process's by default).
 * @throws UsageError code `OUTPUT_UNWRITABLE` (exit 2) when the temporary file cannot be created.
 */
export async function openTextOutput(target: string, stdout: NodeJS.WritableStream = process.stdout): Promise<TextOutput> {
  if (target === '-') return new StreamOutput(target, stdout as Writable, null);
  const { temp, stream } = await openTempFile(target);
  return new StreamOutput(target, stream, temp);
}

class StreamOutput implements TextOutput {
  private failure: Error | undefined;
  private state: 'open' | 'committed' | 'aborted' = 'open';
  private committing: Promise<void> | undefined;

  constructor(
    private readonly target: string,
    private readonly stream: Writable,
    /** Null for stdout. */
    private readonly temp: string | null,
  ) {
    stream.on('error', (error) => (this.failure ??= error));
  }

  async write(chunk: string): Promise<void> {
    if (this.failure !== undefined) throw writeFailed(this.target, this.failure);
    if (this.state !== 'open') throw writeFailed(this.target, new Error(`the output is already ${this.state}`));
    if (!this.stream.write(chunk)) {
      try {
        await once(this.stream, 'drain');
      } catch (error) {
        throw writeFailed(this.target, error);
      }
    }
  }

  commit(): Promise<void> {
    this.committing ??= this.finish();
    return this.committing;
  }

  /** Throws the stream's error, if it had one (a method: after an await, TypeScript still narrows `this.failure`). */
  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  private async finish(): Promise<void> {
    if (this.state === 'aborted') throw writeFailed(this.target, new Error('the output was aborted'));
    try {
      this.throwIfFailed();
      if (this.temp === null) {
        if (this.stream.writableNeedDrain) await once(this.stream, 'drain');
      } else {
        this.stream.end();
        await once(this.stream, 'close');
        this.throwIfFailed();
        await publishTempFile(this.temp, this.target);
      }
      this.state = 'committed';
    } catch (error) {
      throw writeFailed(this.target, error);
    }
  }

  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    if (this.committing) {
      await this.committing.catch(() => undefined);
      if (this.state !== 'open') return;
    }
    this.state = 'aborted';
    if (this.temp === null) return;
    this.stream.destroy();
    if (!this.stream.closed) await once(this.stream, 'close').catch(() => undefined);
    await removeTempFile(this.temp);
  }
}
