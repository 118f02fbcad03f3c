/**
 * Reporters show a job's progress: a cli-progress bar on a TTY, plain periodic lines otherwise, NDJSON events with
 * --json. All three take the same calls in the same order: start → (tick | notice)* → finish.
 */
import type { ProgressSnapshot } from './progress-snapshot.js';
import type { JobSummary } from './summary.js';

export interface JobHeader {
  input: string;
  /** How the input was read (encoding, delimiter, header line…). */
  inputDescription: string;
  headerNotes: string[];
  model: string;
  total: number;
  /** Rows already finished by earlier runs. */
  resumed: number;
  /** Rows to send this run. */
  toSend: number;
  /** Rows whose earlier result stays: `kept + toSend = total`. */
  kept: number;
  /** Rows to send that had a result before: skipped ones, and with --retry-errors those that ended in an error. */
  again: { skipped: number; errors: number };
  /** Kept results that are not ok (without --retry-errors). */
  keptNotOk: number;
  /** `key-1 …x7Qa → project p1` lines. */
  pools: string[];
  /** Per project: `RPM 1000 (default) · TPM 1,000,000 (given) · RPD –`. */
  limits: string[];
  jobDir: string;
  output: string;
  endpoint: string;
}

export interface Reporter {
  start(header: JobHeader): void;
  tick(snapshot: ProgressSnapshot): void;
  /** A message shown once (quota lowered, key refused, project parked…). */
  notice(text: string): void;
  finish(summary: JobSummary): void;
}
