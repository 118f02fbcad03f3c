/**
 * One pass over the whole input: counts its records and notes where every 50,000th starts (the manifest's
 * checkpoints); when the input changed since the journal's entries were written, also matches its rows to those
 * entries by fingerprint (./row-matcher.ts, ./answer-fingerprint.ts) and rewrites the journal under the new row ids
 * (../journal/journal-rewrite.ts). Rows whose prompt inputs are unchanged keep their answers wherever they moved; new
 * or edited rows have none and are sent; answers of rows no longer in the input leave the journal.
 */
import type { InputSource, RecordPosition } from '../input/input-source.js';
import type { Journal } from '../journal/journal.js';
import { rewriteJournal } from '../journal/journal-rewrite.js';
import { RowMatcher } from './row-matcher.js';

/** Records between two checkpoints of the manifest. */
export const CHECKPOINT_EVERY = 50_000;

/** What a pass over the input found. */
export interface InputPass {
  /** Data records in the input. */
  records: number;
  /** Where every {@link CHECKPOINT_EVERY}th record starts. */
  checkpoints: RecordPosition[];
}

/** What {@link reconcileInput} did. */
export interface Reconciled extends InputPass {
  /** The journal to use from now on: rewritten under the input's row ids, or the same one when nothing moved. */
  journal: Journal;
  /** Rows of the input that found their answer. */
  kept: number;
  /** Rows of the input without an answer: new, edited, or never answered. */
  unanswered: number;
  /** Answers that matched no row of the input (their rows were removed or edited), left out of the journal. */
  removed: number;
  /** True when the journal was rewritten. */
  rewritten: boolean;
}

/**
 * Counts the records and notes the checkpoints (the first run's scan: a bad record at line 900,000 stops the job
 * before any request).
 * @throws InputError from reading the input.
 */
export async function scanInput(source: InputSource): Promise<InputPass> {
  let records = 0;
  const checkpoints: RecordPosition[] = [];
  for await (const record of source.records()) {
    if (record.index % CHECKPOINT_EVERY === 0) checkpoints.push({ index: record.index, line: record.line });
    records++;
  }
  return { records, checkpoints };
}

/** How the rows of an input match a journal's entries (see {@link matchInput}). */
export interface InputMatch extends InputPass {
  /** For each row of the input, the journal row whose entry is its answer, or -1. Length ≥ `records`. */
  from: Int32Array;
  /** Rows of the input that found their answer. */
  kept: number;
  /** Rows of the input without an answer: new, edited, or never answered. */
  unanswered: number;
  /** Answers that matched no row of the input (their rows were removed or edited). */
  removed: number;
  /** True when some answer changes row id. */
  moved: boolean;
}

/**
 * Matches the input's rows to the journal's entries by fingerprint, reading only (`plan` uses it as is).
 * Cost: one pass over the input hashing each row's prompt inputs, one sequential read of the journal; memory about
 * 34 bytes per entry and 4 per row.
 * @param fingerprint the fingerprint of a row's cells, as the journal's entries were written with.
 * @throws InputError from reading the input.
 */
export async function matchInput(source: InputSource, journal: Journal, fingerprint: (cells: readonly string[]) => string): Promise<InputMatch> {
  const matcher = new RowMatcher(journal.size);
  journal.forEachLatest((row, _line, fp) => matcher.add(fp, row));
  let from = new Int32Array(1024);
  let records = 0;
  let kept = 0;
  let moved = false;
  const checkpoints: RecordPosition[] = [];
  for await (const record of source.records()) {
    if (record.index % CHECKPOINT_EVERY === 0) checkpoints.push({ index: record.index, line: record.line });
    if (records === from.length) {
      const bigger = new Int32Array(from.length * 2);
      bigger.set(from);
      from = bigger;
    }
    const old = matcher.take(fingerprint(record.cells));
    from[records] = old;
    if (old >= 0) kept++;
    if (old >= 0 && old !== records) moved = true;
    records++;
  }
  return { from, records, checkpoints, kept, unanswered: records - kept, removed: journal.size - kept, moved };
}

/**
 * {@link matchInput}, then rewrites the journal when any entry moves or leaves (a journal whose every entry keeps its
 * row id is left as it is: rows appended at the end cost no rewrite). Closes `journal` when it returns another one.
 * @throws InputError from reading the input; GeminiBatchError `JOURNAL_WRITE_FAILED` when the rewrite fails.
 */
export async function reconcileInput(source: InputSource, journal: Journal, fingerprint: (cells: readonly string[]) => string): Promise<Reconciled> {
  const m = await matchInput(source, journal, fingerprint);
  const rewritten = m.moved || m.removed > 0;
  let current = journal;
  if (rewritten) {
    let highest = -1;
    for (const row of journal.rows()) highest = row;
    const to = new Int32Array(highest + 1).fill(-1);
    for (let row = 0; row < m.records; row++) if (m.from[row]! >= 0) to[m.from[row]!] = row;
    current = await rewriteJournal(journal, to);
  }
  return { journal: current, records: m.records, checkpoints: m.checkpoints, kept: m.kept, unanswered: m.unanswered, removed: m.removed, rewritten };
}
