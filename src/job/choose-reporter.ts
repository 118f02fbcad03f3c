/**
 * Picks the reporter: NDJSON with --json; a progress bar when the stream is a TTY; plain lines otherwise. Progress goes
 * to stdout, or to stderr when the output itself goes to stdout (`-o -`).
 */
import type { ClassifyConfig } from '../config/classify-config.js';
import { JsonReporter } from '../report/json-reporter.js';
import { LineReporter } from '../report/line-reporter.js';
import type { Reporter } from '../report/reporter.js';
import { TtyReporter } from '../report/tty-reporter.js';
import type { Io } from '../io.js';

export function chooseReporter(config: ClassifyConfig, io: Io, outputOnStdout: boolean): Reporter {
  if (config.json) return new JsonReporter(io.stdout);
  const out = outputOnStdout ? io.stderr : io.stdout;
  if ((out as NodeJS.WriteStream).isTTY) return new TtyReporter(out as NodeJS.WriteStream);
  return new LineReporter(out);
}
