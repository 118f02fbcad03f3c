/**
 * One line per run of a job (`<job-dir>/runs.jsonl`): when it ran, what it sent, how many 429s and retries, how it
 * ended. `status` sums it; the journal holds the rows, this holds what the rows do not show (429s, requests).
 */
import { appendFile, readFile } from 'node:fs/promises';


export interface RunRecord {
  startedAt: string;
  endedAt: string;
  exitCode: number;
  requests: number;
  rateLimited: number;
  retries: number;
  /** Rows finished by this run. */
  finished: number;
}

/** Appends one run's record. Failures to write are ignored: the log is informative, the journal is the truth. */
export async function appendRunLog(file: string, record: RunRecord): Promise<void> {
  await appendFile(file, `${JSON.stringify(record)}\n`).catch(() => undefined);
}

/** Reads every complete, valid line; a torn or foreign line is skipped. */
export async function readRunLog(file: string): Promise<RunRecord[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  const runs: RunRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as RunRecord;
      if (typeof r.requests === 'number' && typeof r.rateLimited === 'number') runs.push(r);
    } catch {
      // torn last line
    }
  }
  return runs;
}
