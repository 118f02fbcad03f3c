/**
 * Writes the output: every input record in input order, its cells, then the result columns, `status` and `error`
 * (docs/design.md "Output"). The input is streamed a second time and joined with the journal by row id, so nothing
 * is held whole; rows without a result are `pending`. Each answer is checked against its row: the fingerprint of the
 * row's prompt inputs must be the one the entry was computed from (./answer-fingerprint.ts), else the row is written
 * `pending` (the input changed under it) — no row ever carries another row's answer.
 */
import type { InputSource } from '../input/input-source.js';
import type { JournalEntry } from '../journal/journal-entry.js';
import type { Journal } from '../journal/journal.js';
import { createOutputWriter } from '../output/create-output-writer.js';
import { needsFormulaEscape } from '../output/escape-formula.js';
import type { OutputSpec } from '../output/output-writer.js';

export interface ResultLayout {
  /** Names of the columns after the input's: `label` (or the --schema properties), `status`, `error` — made unique. */
  header: string[];
  /** The result cells of a row (without status and error). */
  resultCells(entry: JournalEntry | undefined): string[];
}

/**
 * The output header and the result cells: the input's columns with their header cells as written
 * (InputSource.headerCells), then the answer column (`label`, `answer` in free-form mode, or --answer-column) or the
 * --schema properties, `status`, `error`. A name the input already uses gets a `_2` suffix, as repeated header names
 * do; `status` and `error` are the tool's own, so a schema property of that name is the one renamed.
 * @param properties the --schema properties, or undefined for the single answer column.
 * @param answerColumn the name of the single answer column (docs/design.md "Output"). Default `label`.
 */
export function resultLayout(
  inputColumns: readonly string[],
  headerCells: readonly string[],
  properties: readonly string[] | undefined,
  answerColumn = 'label',
): ResultLayout {
  const taken = new Set([...inputColumns, ...headerCells]);
  const unique = (name: string) => {
    let candidate = name;
    for (let n = 2; taken.has(candidate); n++) candidate = `${name}_${n}`;
    taken.add(candidate);
    return candidate;
  };
  const status = unique('status');
  const error = unique('error');
  const resultNames = (properties ?? [answerColumn]).map(unique);
  return {
    header: [...headerCells, ...resultNames, status, error],
    resultCells: properties ? (entry) => properties.map((p) => entry?.fields?.[p] ?? '') : (entry) => [entry?.label ?? ''],
  };
}

export interface WriteResultsOptions {
  input: InputSource;
  total: number;
  journal: Journal;
  layout: ResultLayout;
  /** The fingerprint of a row's cells, as journal entries record it (`fp`). */
  fingerprint(cells: readonly string[]): string;
  /** The `error` of rows without a result (`pending`): why the run left them unanswered. Default ''. */
  pendingError?: string;
  spec: Omit<OutputSpec, 'columns'>;
}

/** How the output file should be written so that it opens the way the input did (docs/design.md "Output"). */
export function outputDialect(input: InputSource): Pick<OutputSpec, 'delimiter' | 'bom' | 'lineBreak' | 'sepLine'> {
  const d = input.dialect;
  return {
    delimiter: d.delimiter,
    // A UTF-8 input keeps its BOM or its absence; any other encoding is written as UTF-8 with a BOM, which Excel reads
    // right (writing Windows-1252 back would lose any character the model answers with that it cannot hold).
    bom: d.bom || d.encoding !== 'utf-8',
    lineBreak: d.lineBreak,
    sepLine: d.sepLine,
  };
}

/** What writing the output did. */
export interface WrittenOutput {
  /** Data rows written. */
  rows: number;
  /**
   * Cells (header included) that a spreadsheet would run as formulas and were neutralized (output/escape-formula.ts):
   * 0 with --no-escape-formulas and for JSONL, which is not escaped.
   */
  escapedCells: number;
  /** Rows whose answer was computed from other prompt inputs than the row has now, written `pending`. */
  stale: number;
}

/** The error of a row whose answer was computed from other prompt inputs than the row has now. */
export const STALE_ANSWER_ERROR = 'not answered: the row changed after its answer was computed (the input was edited during the run); run the same command again to send it';

/** Streams the output file; resolves once it is renamed into place. */
export async function writeResults(o: WriteResultsOptions): Promise<WrittenOutput> {
  const writer = await createOutputWriter({ ...o.spec, columns: o.layout.header });
  const escaping = o.spec.escapeFormulas !== false && writer.format !== 'jsonl';
  const countEscapes = (cells: readonly string[]) => {
    if (escaping) for (const cell of cells) if (needsFormulaEscape(cell)) escapedCells++;
  };
  let rows = 0;
  let escapedCells = 0;
  let stale = 0;
  countEscapes(o.layout.header);
  try {
    if (o.total > 0) {
      for await (const record of o.input.records()) {
        if (record.index >= o.total) break;
        let entry = o.journal.has(record.index) ? o.journal.get(record.index) : undefined;
        let error = entry ? (entry.error ?? '') : (o.pendingError ?? '');
        if (entry && entry.fp !== o.fingerprint(record.cells)) {
          entry = undefined;
          error = STALE_ANSWER_ERROR;
          stale++;
        }
        const cells = [...record.cells, ...o.layout.resultCells(entry), entry?.status ?? 'pending', error];
        countEscapes(cells);
        await writer.write(cells);
        rows++;
      }
    }
    await writer.commit();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return { rows, escapedCells, stale };
}
