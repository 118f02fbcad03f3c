/**
 * Takes a finished batch's results into the journal: each line joined to its row by key only, judged as an online
 * answer is (../answers/judge-answer.ts), and journaled **exactly once** — a row that already has an entry made since the
 * chunk was written (an earlier, interrupted collection of the same results; a duplicate line) is left alone, so
 * collecting the same results again changes nothing (docs/batch-runner.md "Exactly once").
 *
 * | line                                   | row                                                                     |
 * |----------------------------------------|-------------------------------------------------------------------------|
 * | an answer the judge accepts or refuses for good | journaled (`ok`, `blocked`, `invalid_label`…), billed at tier `batch` |
 * | an answer the judge would send again (cut, invalid label, recitation) | a later batch, with the request variant, each retry kind once |
 * | error code 1, 4, 8, 10, 13, 14 (transient) | a later batch                                                      |
 * | error with any other code (3 INVALID_ARGUMENT…) | `failed` with the code and message                             |
 * | unreadable, or no line for the row     | a later batch                                                           |
 *
 * A row whose requests reach --max-attempts ends with what it has: the judge's fallback, or `failed` with the last error.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { JournalEntry, RowTokens } from '../journal/journal-entry.js';
import type { Journal } from '../journal/journal.js';
import type { BatchResult, ModelAnswer } from '../providers/contract.js';
import { outcomeEntryFields, type RowOutcome, type Verdict } from '../schedule/work-item.js';
import { rowsOf, type CarriedRow, type ChunkRecord } from './batch-records.js';
import { parseResultKey } from './result-key.js';
import { RowSet } from './row-set.js';

/** gRPC codes worth another batch: CANCELLED, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNAVAILABLE. */
export const TRANSIENT_LINE_CODES: ReadonlySet<number> = new Set([1, 4, 8, 10, 13, 14]);

/** gRPC code names, for the `error` column. */
const CODE_NAMES: Readonly<Record<number, string>> = {
  1: 'CANCELLED',
  2: 'UNKNOWN',
  3: 'INVALID_ARGUMENT',
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  7: 'PERMISSION_DENIED',
  8: 'RESOURCE_EXHAUSTED',
  9: 'FAILED_PRECONDITION',
  10: 'ABORTED',
  13: 'INTERNAL',
  14: 'UNAVAILABLE',
  16: 'UNAUTHENTICATED',
};

export interface CollectOptions {
  chunk: ChunkRecord;
  /** Our copy of the chunk's input (to find a row's fingerprint when no line came back). */
  copy: string;
  results: AsyncIterable<BatchResult>;
  journal: Journal;
  judge(answer: ModelAnswer): Verdict;
  maxAttempts: number;
  /** The alias of the key the batch ran under (journaled as the row's key). */
  keyAlias: string;
  /** Journals one row (and counts it). */
  finish(entry: JournalEntry): void;
  /** Why rows without a line have none (`no line for the row in the results of batches/…`). */
  missingReason: string;
}

/** What became of the chunk's rows. */
export interface Collected {
  /** Result lines read. */
  lines: number;
  /** Rows journaled now. */
  journaled: number;
  ok: number;
  /** Rows for a later batch, with their history. */
  requeue: CarriedRow[];
  /** Rows that had no line (already in `requeue` or journaled failed). */
  missing: number[];
  /** Lines whose key is not a row of this chunk, or that carry none. */
  strays: number;
}

/** One line's error as the `error` column shows it: `batch line error 13 INTERNAL: An internal error has occurred.` */
export function lineError(code: number, status: string | undefined, message: string): string {
  return `batch line error ${code} ${status ?? CODE_NAMES[code] ?? 'UNKNOWN'}: ${message}`;
}

/** Reads the results of one chunk into the journal. @throws what `results` throws (the download failed). */
export async function collectResults(o: CollectOptions): Promise<Collected> {
  const { chunk, journal } = o;
  const inChunk = new RowSet();
  for (const row of rowsOf(chunk.rows)) inChunk.add(row);
  const again = new RowSet();
  for (const row of rowsOf(chunk.again)) again.add(row);
  const carried = new Map(chunk.carry.map((c) => [c.row, c]));
  const seen = new RowSet();
  const out: Collected = { lines: 0, journaled: 0, ok: 0, requeue: [], missing: [], strays: 0 };
  /** The row has an entry made since the chunk was written: its result is in already. */
  const done = (row: number) => (again.has(row) ? (journal.entryOffset(row) ?? -1) >= chunk.journalEnd : journal.has(row));
  const base = (row: number): CarriedRow => carried.get(row) ?? { row, attempts: 0, tokens: { input: 0, output: 0, thoughts: 0 } };

  const journalRow = (row: number, fp: string, outcome: RowOutcome, attempts: number, tokens: RowTokens) => {
    o.finish({
      row,
      fp,
      ...outcomeEntryFields(outcome),
      tokens,
      attempts,
      key: o.keyAlias,
      tier: 'batch',
      time: new Date().toISOString(),
    });
    out.journaled++;
    if (outcome.status === 'ok') out.ok++;
  };
  const failedOutcome = (error: string): RowOutcome => ({ status: 'failed', label: null, raw: null, finishReason: null, error });
  /** Another batch for the row, unless its attempts are spent: then it ends `failed` with `error`. */
  const retryLater = (row: number, fp: string | undefined, next: CarriedRow) => {
    if (next.attempts >= o.maxAttempts && fp !== undefined) journalRow(row, fp, failedOutcome(next.error ?? 'no answer'), next.attempts, next.tokens);
    else out.requeue.push(next);
  };

  for await (const result of o.results) {
    out.lines++;
    const key = parseResultKey(result.key);
    if (!key || !inChunk.has(key.row)) {
      out.strays++;
      continue;
    }
    const { row, fingerprint: fp } = key;
    if (seen.has(row) || done(row)) continue;
    seen.add(row);
    const before = base(row);
    const attempts = before.attempts + 1;
    const history = { ...(before.retried ? { retried: before.retried } : {}), ...(before.moreOutput ? { moreOutput: true } : {}) };
    if (result.kind === 'answer') {
      const usage = result.answer.usage;
      const tokens = { input: before.tokens.input + usage.inputTokens, output: before.tokens.output + usage.outputTokens, thoughts: before.tokens.thoughts + usage.reasoningTokens };
      const verdict = o.judge(result.answer);
      if (verdict.kind === 'final') journalRow(row, fp, verdict.outcome, attempts, tokens);
      else if ((before.retried ?? []).includes(verdict.retryKind) || attempts >= o.maxAttempts) journalRow(row, fp, verdict.fallback, attempts, tokens);
      else {
        out.requeue.push({
          row,
          attempts,
          tokens,
          retried: [...(before.retried ?? []), verdict.retryKind],
          ...(verdict.variant?.moreOutput ? { moreOutput: true } : {}),
          ...(verdict.fallback.error ? { error: verdict.fallback.error } : {}),
        });
      }
    } else if (result.kind === 'error') {
      const error = lineError(result.code, result.status, result.message);
      if (TRANSIENT_LINE_CODES.has(result.code)) retryLater(row, fp, { row, attempts, tokens: before.tokens, ...history, error });
      else journalRow(row, fp, failedOutcome(error), attempts, before.tokens);
    } else {
      retryLater(row, fp, { row, attempts, tokens: before.tokens, ...history, error: `unreadable result line: ${result.problem}` });
    }
  }

  // Rows the results did not answer.
  const missing: number[] = [];
  for (const row of rowsOf(chunk.rows)) if (!seen.has(row) && !done(row)) missing.push(row);
  if (missing.length > 0) {
    const fps = await fingerprintsOf(o.copy, missing);
    for (const row of missing) {
      const before = base(row);
      retryLater(row, fps.get(row), { ...before, attempts: before.attempts + 1, error: o.missingReason });
    }
  }
  out.missing = missing;
  return out;
}

/** The fingerprints of `rows` from the keys of our copy; rows not found (the copy is gone) are absent. */
export async function fingerprintsOf(copy: string, rows: readonly number[]): Promise<Map<number, string>> {
  const wanted = new Set(rows);
  const out = new Map<number, string>();
  try {
    const lines = createInterface({ input: createReadStream(copy, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      const key = parseResultKey(/^\{"key":"([^"]*)"/.exec(line)?.[1]);
      if (key && wanted.has(key.row)) out.set(key.row, key.fingerprint);
      if (out.size === wanted.size) break;
    }
  } catch {
    // The copy is gone: those rows go to a later batch whatever their attempts.
  }
  return out;
}
