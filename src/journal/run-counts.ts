/**
 * How many requests a job sent and which run finished which rows, as `status` and the HTML report count them: one
 * source of truth. Each run's record in runs.jsonl (./run-log.ts) holds the figures its summary printed; a run that
 * ended without its last record (killed with SIGKILL, or still working) is lifted to what is durable: the journal's
 * rows finished in its time window and the requests those rows prove, and — for the report — the requests its event
 * log recorded. A packed request (--rows-per-request) counts once, however many rows it answered (the journal's `pack`
 * field, ./journal-entry.ts); rows answered by the Batch API (tier `batch`) are no online requests.
 */
import type { Journal } from './journal.js';
import type { JournalEntry } from './journal-entry.js';
import type { RunRecord } from './run-log.js';

/** What the journal proves, per run window and for the whole job. */
export interface JournalCounts {
  /**
   * Online requests the journal's latest entries prove for the whole job: the attempts of every row answered alone,
   * plus, for each pack, the fewest attempts among its rows (a pack's rows share its requests).
   */
  requests: number;
  /** Rows answered through the Batch API (tier `batch`). */
  batchRows: number;
  /**
   * Per run, in the order of the `starts` given: rows whose latest entry is stamped within the run's window (from its
   * start to the next run's), and the requests at least that many entries prove — one per pack, one per row answered
   * alone with any attempt (a row's attempts add up over runs, so only one is sure to be the run's).
   */
  perRun: Array<{ finished: number; requests: number }>;
}

/**
 * Reads the latest entry of every row of `journal` (its head, tier, pack id and time, without JSON.parse): about 3× a
 * bare pass over the latest entries — 10.3/10.7/12.9 s against 4.1/3.5 s for 1,000,000 packed rows on the shared
 * 2-core machine at load 13–21 (the commit message of this file's introduction).
 * @param starts the runs' start times, ms since epoch, ascending (runs of a job never overlap: the job lock). An entry
 *   stamped before the first start counts for the first run.
 */
export function countJournal(journal: Journal, starts: readonly number[]): JournalCounts {
  const perRun = starts.map(() => ({ finished: 0, requests: 0 }));
  const packsPerRun = starts.map(() => new Set<string>());
  const packAttempts = new Map<string, number>();
  let alone = 0;
  let batchRows = 0;
  journal.forEachLatest((_row, line, _fp, head) => {
    const attempts = head.attempts;
    const at = timeAt(line);
    const batch = at >= BATCH.length && line.compare(BATCH, 0, BATCH.length, at - BATCH.length, at) === 0;
    const timeFrom = at + TIME.length;
    const time = starts.length < 2 || at < 0 ? Number.NaN : Date.parse(line.toString('latin1', timeFrom, line.indexOf(QUOTE, timeFrom)));
    const pack = packId(line, at < 0 ? line.length : at);
    if (batch) batchRows += 1;
    else if (pack !== undefined) packAttempts.set(pack, Math.min(packAttempts.get(pack) ?? Infinity, attempts));
    else alone += attempts;
    const i = runIndex(starts, time);
    const run = perRun[i];
    if (run === undefined) return;
    run.finished += 1;
    if (batch) return;
    if (pack !== undefined) (packsPerRun[i] as Set<string>).add(pack);
    else if (attempts > 0) run.requests += 1;
  });
  perRun.forEach((r, i) => (r.requests += (packsPerRun[i] as Set<string>).size));
  let requests = alone;
  for (const n of packAttempts.values()) requests += Math.max(1, n);
  return { requests, batchRows, perRun };
}

/** A run's record as counted: {@link RunRecord} and whether durable files lifted its figures. */
export interface CountedRun extends RunRecord {
  /** True when the run ended without its last record and the journal or event log showed more than it held. */
  fromJournal?: boolean;
}

/**
 * The runs with the figures of those that ended without their last record (exit code null) lifted to what
 * `counts.perRun` (same order as `runs`) and `eventRequests` (requests per run id, from the event log) show. Records of
 * runs that ended are kept as written: they are the summaries' figures.
 */
export function countRuns(runs: readonly RunRecord[], counts: JournalCounts, eventRequests: ReadonlyMap<string, number> = new Map()): CountedRun[] {
  return runs.map((r, i) => {
    if (r.exitCode !== null) return r;
    const journal = counts.perRun[i] ?? { finished: 0, requests: 0 };
    const requests = Math.max(r.requests, journal.requests, eventRequests.get(r.run) ?? 0);
    const finished = Math.max(r.finished ?? 0, journal.finished);
    if (requests === r.requests && finished === (r.finished ?? 0)) return r;
    return { ...r, requests, finished, fromJournal: true };
  });
}

/** The runs' start times (ms since epoch), in order, for {@link countJournal}. */
export function runStarts(runs: readonly RunRecord[]): number[] {
  return runs.map((r) => Date.parse(r.startedAt));
}

/** ./journal-line.ts's serializeEntry writes `time` last and the tier, when not standard, just before it. */
const TIME = Buffer.from(',"time":"', 'latin1');
const BATCH = Buffer.from(',"tier":"batch"', 'latin1');
/** Bytes after `,"time":"`: an ISO 8601 UTC time (24) and `"}`. */
const TIME_TAIL = 26;
/** How ./journal-line.ts's serializeEntry starts the `pack` field: quotes inside JSON strings are escaped, so these bytes are the field. */
const PACK = Buffer.from(',"pack":{"id":"', 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Where `,"time":"` starts in the journal line `line` (its place when the time is 24 characters long, else searched); -1 when absent. */
function timeAt(line: Buffer): number {
  const at = line.length - TIME_TAIL - TIME.length;
  if (at >= 0 && line.compare(TIME, 0, TIME.length, at, at + TIME.length) === 0) return at;
  return line.lastIndexOf(TIME);
}

/** The pack id of the journal line `line` (before byte `end`), without JSON.parse unless the id has an escape. */
function packId(line: Buffer, end: number): string | undefined {
  const at = line.lastIndexOf(PACK, end);
  if (at < 0) return undefined;
  const from = at + PACK.length;
  const quote = line.indexOf(QUOTE, from);
  if (quote < 0) return undefined;
  if (!line.subarray(from, quote).includes(BACKSLASH)) return line.toString('utf8', from, quote);
  try {
    return (JSON.parse(line.toString('utf8')) as JournalEntry).pack?.id;
  } catch {
    return undefined;
  }
}

/** Index of the last start at or before `at` (0 when before every start or unknown); -1 when there is no run. */
function runIndex(starts: readonly number[], at: number): number {
  if (starts.length === 0) return -1;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** What {@link countJobRuns} gives `status` and the report. */
export interface JobRunCounts {
  runs: CountedRun[];
  /** Online requests of the job: the runs' sum, never below what the journal proves when it was read. */
  requests: number;
  /** Rows answered through the Batch API. */
  batchRows: number;
}

/**
 * The runs of a job as counted ({@link countRuns}). The journal's entries are read ({@link countJournal}: seconds for a
 * 1,000,000-row journal) only when a run ended without its last record or runs.jsonl holds none; otherwise the
 * runs' records are the summaries' figures and the journal's index gives the Batch API rows.
 */
export function countJobRuns(journal: Journal, logged: readonly RunRecord[], eventRequests: ReadonlyMap<string, number> = new Map()): JobRunCounts {
  const batchRows = journal.tierTotals().batch.rows;
  if (logged.length > 0 && logged.every((r) => r.exitCode !== null)) {
    return { runs: [...logged], requests: logged.reduce((n, r) => n + r.requests, 0), batchRows };
  }
  const counts = countJournal(journal, runStarts(logged));
  const runs = countRuns(logged, counts, eventRequests);
  return { runs, requests: Math.max(runs.reduce((n, r) => n + r.requests, 0), counts.requests), batchRows };
}
