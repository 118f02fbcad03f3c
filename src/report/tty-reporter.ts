/**
 * The progress bar on a terminal (cli-progress): done/total, rows/s, ETA, 429s so far, tokens and cost.
 * Notices are printed above the bar.
 */
import cliProgress from 'cli-progress';
import { formatCount, formatDuration, type ProgressSnapshot } from './progress-snapshot.js';
import { LineReporter } from './line-reporter.js';
import type { JobHeader, Reporter } from './reporter.js';
import { formatSummary, type JobSummary } from './summary.js';

export class TtyReporter implements Reporter {
  readonly #out: NodeJS.WriteStream;
  readonly #bar: cliProgress.SingleBar;
  #started = false;
  #payload: Record<string, string | number> = { rate: '0.0', remaining: '–', r429: 0, tokens: '' };

  constructor(out: NodeJS.WriteStream) {
    this.#out = out;
    this.#bar = new cliProgress.SingleBar(
      {
        stream: out,
        format: '{bar} {value}/{total} rows | {rate} rows/s | ETA {remaining} | 429s {r429} | {tokens}',
        hideCursor: true,
        clearOnComplete: false,
        fps: 5,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  start(h: JobHeader): void {
    new LineReporter(this.#out).start(h);
    this.#bar.start(h.total, h.resumed, this.#payload);
    this.#started = true;
  }

  tick(s: ProgressSnapshot): void {
    if (!this.#started) return;
    this.#payload = {
      rate: s.rowsPerSecond.toFixed(1),
      remaining: formatDuration(s.etaMs),
      r429: s.rateLimited,
      tokens: `in ${formatCount(s.tokens.input)} out ${formatCount(s.tokens.output + s.tokens.thoughts)}${s.costUsd !== undefined ? ` $${s.costUsd.toFixed(4)}` : ''}`,
    };
    this.#bar.update(s.done, this.#payload);
  }

  notice(text: string): void {
    if (this.#started) this.#bar.stop();
    this.#out.write(`! ${text}\n`);
    if (this.#started) this.#bar.start(this.#bar.getTotal(), (this.#bar as unknown as { value: number }).value, this.#payload);
  }

  finish(summary: JobSummary): void {
    if (this.#started) this.#bar.stop();
    this.#started = false;
    this.#out.write(`${formatSummary(summary).join('\n')}\n`);
  }
}
