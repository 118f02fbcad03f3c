/**
 * `--json`: NDJSON events on stdout instead of the progress bar, one object a line:
 * `{"event":"start",…}`, `{"event":"progress",…}` (every `intervalMs`), `{"event":"notice","text":…}`,
 * `{"event":"summary",…}`. Keys never appear: pools are shown by alias.
 */
import type { ProgressSnapshot } from './progress-snapshot.js';
import type { JobHeader, Reporter } from './reporter.js';
import type { JobSummary } from './summary.js';

export class JsonReporter implements Reporter {
  readonly #out: NodeJS.WritableStream;
  readonly #intervalMs: number;
  #last = -Infinity;

  /** @param intervalMs time between progress events, ms (default 2 s). */
  constructor(out: NodeJS.WritableStream, intervalMs = 2_000) {
    this.#out = out;
    this.#intervalMs = intervalMs;
  }

  start(header: JobHeader): void {
    this.#emit({ event: 'start', ...header });
  }

  tick(snapshot: ProgressSnapshot): void {
    if (snapshot.elapsedMs - this.#last < this.#intervalMs) return;
    this.#last = snapshot.elapsedMs;
    this.#emit({ event: 'progress', ...snapshot });
  }

  notice(text: string): void {
    this.#emit({ event: 'notice', text });
  }

  finish(summary: JobSummary): void {
    this.#emit({ event: 'summary', ...summary });
  }

  #emit(event: Record<string, unknown>): void {
    this.#out.write(`${JSON.stringify(event)}\n`);
  }
}
