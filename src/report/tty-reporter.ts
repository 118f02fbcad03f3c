/**
 * The progress bar on a terminal (cli-progress draws it): done/total with the rows not ok, rows/s, ETA, what binds,
 * 429s so far, tokens and cost, fitted to the terminal's width (./progress-line.ts). Notices are printed above the bar.
 */
import cliProgress from 'cli-progress';
import { LineReporter } from './line-reporter.js';
import { progressLine } from './progress-line.js';
import type { ProgressSnapshot } from './progress-snapshot.js';
import type { JobHeader, Reporter } from './reporter.js';
import { formatSummary, type JobSummary } from './summary.js';

export class TtyReporter implements Reporter {
  readonly #out: NodeJS.WriteStream;
  readonly #bar: cliProgress.SingleBar;
  #started = false;
  #payload: { snapshot: ProgressSnapshot | undefined } = { snapshot: undefined };

  constructor(out: NodeJS.WriteStream) {
    this.#out = out;
    this.#bar = new cliProgress.SingleBar(
      {
        stream: out,
        format: (_options, params, payload: { snapshot: ProgressSnapshot | undefined }) =>
          payload.snapshot ? progressLine(payload.snapshot, params.maxWidth) : `${params.value}/${params.total} rows`,
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
    this.#payload = { snapshot: s };
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
