/**
 * Plain progress lines for logs and pipes (stdout not a TTY): one line every `intervalMs`, notices as they come, then
 * the summary.
 */
import { bindingField, notOkCounts } from './progress-line.js';
import { formatCount, formatDuration, type ProgressSnapshot } from './progress-snapshot.js';
import type { JobHeader, Reporter } from './reporter.js';
import { describeRows } from './describe-rows.js';
import { formatSummary, type JobSummary } from './summary.js';

export class LineReporter implements Reporter {
  readonly #out: NodeJS.WritableStream;
  readonly #intervalMs: number;
  #lastLine = -Infinity;

  /** @param intervalMs time between progress lines, ms (default 10 s). */
  constructor(out: NodeJS.WritableStream, intervalMs = 10_000) {
    this.#out = out;
    this.#intervalMs = intervalMs;
  }

  start(h: JobHeader): void {
    const lines = [
      `gemini-batch: ${h.input} (${h.inputDescription})`,
      ...h.headerNotes.map((n) => `  note: ${n}`),
      `model ${h.model} at ${h.endpoint} · ${describeRows(h)}`,
      ...h.pools.map((p) => `  ${p}`),
      ...h.limits.map((l) => `  ${l}`),
      `  job ${h.jobDir} → ${h.output}`,
    ];
    this.#write(lines);
  }

  tick(s: ProgressSnapshot): void {
    if (s.elapsedMs - this.#lastLine < this.#intervalMs) return;
    this.#lastLine = s.elapsedMs;
    const pct = s.total > 0 ? Math.floor((100 * s.done) / s.total) : 100;
    const notOk = notOkCounts(s);
    const binding = bindingField(s);
    this.#write([
      `[${formatDuration(s.elapsedMs)}] ${formatCount(s.done)}/${formatCount(s.total)} rows (${pct}%)${notOk ? ` · ${notOk}` : ''} · ${s.rowsPerSecond.toFixed(1)} rows/s · ETA ${formatDuration(s.etaMs)}${binding ? ` · ${binding}` : ''}${s.rowsPerRequest !== undefined ? ` · requests ${formatCount(s.requests)}` : ''} · 429s ${s.rateLimited} · retries ${s.retries}${s.batches ? ` · ${s.batches}` : ''}`,
    ]);
  }

  notice(text: string): void {
    this.#write([`! ${text}`]);
  }

  finish(summary: JobSummary): void {
    this.#write(formatSummary(summary));
  }

  #write(lines: string[]): void {
    this.#out.write(`${lines.join('\n')}\n`);
  }
}
