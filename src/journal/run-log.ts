/**
 * One record per run of a job (`<job-dir>/runs.jsonl`): when it ran, what it sent, how many 429s and retries, how it
 * ended. The journal holds the rows; this holds what the rows do not show. A run appends its record when it starts,
 * every 2 seconds while it works and when it ends, so a run killed with SIGKILL still counts up to its last update;
 * readers keep the last record of each run.
 */
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { O_NOFOLLOW } from '../files/atomic-file.js';

export interface RunRecord {
  /** Identifies the run: its start time and process id. */
  run: string;
  startedAt: string;
  updatedAt: string;
  /** null while the run works, or when it was killed. */
  exitCode: number | null;
  requests: number;
  rateLimited: number;
  retries: number;
  /** Rows finished by this run. */
  finished: number;
}

/**
 * Appends one record, never through a symbolic link (O_NOFOLLOW). Failures to write are ignored: the log is
 * informative, the journal is the truth.
 */
export async function appendRunLog(file: string, record: RunRecord): Promise<void> {
  const flag = constants.O_APPEND | constants.O_CREAT | constants.O_WRONLY | O_NOFOLLOW;
  await appendFile(file, `${JSON.stringify(record)}\n`, { flag }).catch(() => undefined);
}

/** Appends one record synchronously, for a process about to exit (a second Ctrl-C); as above otherwise. */
export function appendRunLogSync(file: string, record: RunRecord): void {
  try {
    const fd = openSync(file, constants.O_APPEND | constants.O_CREAT | constants.O_WRONLY | O_NOFOLLOW, 0o644);
    try {
      writeSync(fd, `${JSON.stringify(record)}\n`);
    } finally {
      closeSync(fd);
    }
  } catch {
    // informative only, as above
  }
}

/** The last record of every run, in order of first appearance; torn or foreign lines are skipped. */
export async function readRunLog(file: string): Promise<RunRecord[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  const runs = new Map<string, RunRecord>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as RunRecord;
      if (typeof r.requests === 'number' && typeof r.rateLimited === 'number') runs.set(r.run ?? r.startedAt, r);
    } catch {
      // torn last line
    }
  }
  return [...runs.values()];
}
