/**
 * XLSX output with exceljs's streaming WorkbookWriter: one sheet named `classified`, a bold header row frozen at the
 * top, column widths from the header and the first rows. Every cell is an inline string (`t="inlineStr"`), so
 * `01.0101` or `1e5` stay text and no cell is ever a formula when the file opens; a cell that would become one when
 * edited (`=…`, `- …`) gets Excel's quotePrefix style. Rows are written as they come, never held whole.
 */
import { once } from 'node:events';
import type fs from 'node:fs';
import ExcelJS from 'exceljs';
import { UsageError } from '../errors.js';
import { escapeFormula, needsFormulaEscape } from './escape-formula.js';
import { needsDrain, quotePrefixStyle, sheetEntryStream } from './exceljs-internals.js';

import { openTempFile, publishTempFile, removeTempFile, writeFailed } from './output-file.js';
import type { OutputSpec, OutputWriter } from './output-writer.js';
import { checkCellCount } from './text-writer.js';

// Excel's limits: https://support.microsoft.com/en-us/office/excel-specifications-and-limits-1672b34d-7043-467e-8e27-269d656771c3
/** Rows of a sheet, the header included. */
export const XLSX_MAX_ROWS = 1_048_576;
/** Columns of a sheet. */
export const XLSX_MAX_COLUMNS = 16_384;
/** Characters of a cell. */
export const XLSX_MAX_CELL_CHARS = 32_767;

/** Rows held before the column widths are fixed (they must be written before the first row). */
const WIDTH_SAMPLE_ROWS = 100;
/** Column widths (characters): at least, at most. */
const MIN_WIDTH = 8;
const MAX_WIDTH = 60;
/** Rows between two checks of the file stream's backlog. */
const ROWS_PER_YIELD = 256;

type Cell = { richText: { text: string }[] };

/** A cell ready for the sheet: its text as XLSX stores it, and whether it gets the quotePrefix style. */
interface PreparedCell {
  text: string;
  quotePrefix: boolean;
}

/** The first cell cut to Excel's limit, for the warning. */
interface CutCell {
  column: string | undefined;
  /** The sheet row, e.g. `row 2`. */
  where: string;
  length: number;
}

/**
 * Writes `spec.target` as XLSX. A cell that could run as a formula (./escape-formula.ts) keeps its text and gets the
 * quotePrefix style (see {@link quotePrefixStyle}), unless `spec.escapeFormulas` is false; control characters and CR
 * are stored as Excel stores them (`_x000D_`); a cell longer than Excel's 32,767 characters is cut, and `commit()`
 * calls `spec.onWarning` once with the number of cells cut.
 * @throws UsageError code `OUTPUT_XLSX_LIMIT` (exit 2) for more than 16,384 columns, and from `write()` for more
 *   than 1,048,575 data rows; `OUTPUT_UNWRITABLE` when the target cannot be created.
 */
export async function createXlsxWriter(spec: OutputSpec): Promise<OutputWriter> {
  if (spec.columns.length > XLSX_MAX_COLUMNS) {
    throw new UsageError('OUTPUT_XLSX_LIMIT', `${spec.target}: an XLSX sheet holds at most ${XLSX_MAX_COLUMNS} columns, this output has ${spec.columns.length}; write .csv instead`);
  }
  const { temp, stream } = await openTempFile(spec.target);
  return new XlsxWriter(spec, temp, stream);
}

class XlsxWriter implements OutputWriter {
  readonly format = 'xlsx' as const;
  private readonly workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  private readonly sheet: ExcelJS.Worksheet;
  private sample: PreparedCell[][] | null = [];
  private rows = 0;
  /** Styles with quotePrefix for data and header cells; undefined when exceljs cannot carry it (then a `'` is added). */
  private readonly quoted: { data: Partial<ExcelJS.Style>; header: Partial<ExcelJS.Style> } | undefined;
  private cutCells = 0;
  private firstCut: CutCell | undefined;
  private failure: Error | undefined;
  private state: 'open' | 'committing' | 'committed' | 'aborted' = 'open';
  private committing: Promise<void> | undefined;

  constructor(
    private readonly spec: OutputSpec,
    private readonly temp: string,
    private readonly stream: fs.WriteStream,
  ) {
    stream.on('error', (error) => (this.failure ??= error));
    this.workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: true, useSharedStrings: false });
    this.sheet = this.workbook.addWorksheet('classified', { views: [{ state: 'frozen', ySplit: 1 }] });
    if (spec.escapeFormulas !== false) {
      const data = quotePrefixStyle(this.workbook, {});
      const header = quotePrefixStyle(this.workbook, { font: HEADER_FONT });
      this.quoted = data && header ? { data, header } : undefined;
    }
  }

  async write(cells: readonly string[]): Promise<void> {
    checkCellCount(cells, this.spec.columns.length);
    if (this.failure !== undefined) throw writeFailed(this.spec.target, this.failure);
    if (this.state !== 'open') throw writeFailed(this.spec.target, new Error(`the output is already ${this.state}`));
    if (++this.rows >= XLSX_MAX_ROWS) {
      throw new UsageError('OUTPUT_XLSX_LIMIT', `${this.spec.target}: an XLSX sheet holds at most ${XLSX_MAX_ROWS - 1} rows under its header; write .csv instead`);
    }
    const prepared = cells.map((cell, i) => this.prepare(cell, i, `row ${this.rows + 1}`));
    if (this.sample) {
      this.sample.push(prepared);
      if (this.sample.length >= WIDTH_SAMPLE_ROWS) this.start();
      return;
    }
    this.addRow(prepared, false);
    if (this.rows % ROWS_PER_YIELD === 0) await this.backpressure();
  }

  commit(): Promise<void> {
    this.committing ??= this.finish();
    return this.committing;
  }

  async abort(): Promise<void> {
    if (this.committing) await this.committing.catch(() => undefined);
    if (this.state === 'committed' || this.state === 'aborted') return;
    this.state = 'aborted';
    this.stream.destroy();
    if (!this.stream.closed) await once(this.stream, 'close').catch(() => undefined);
    await removeTempFile(this.temp);
  }

  private async finish(): Promise<void> {
    if (this.state !== 'open') throw writeFailed(this.spec.target, new Error(`the output is already ${this.state}`));
    this.state = 'committing';
    try {
      if (this.sample) this.start();
      this.sheet.commit();
      await this.workbook.commit();
      if (!this.stream.closed) await once(this.stream, 'close');
      if (this.failure !== undefined) throw this.failure;
      await publishTempFile(this.temp, this.spec.target);
      this.state = 'committed';
    } catch (error) {
      this.state = 'open'; // abort() may still remove the temporary file
      throw writeFailed(this.spec.target, error);
    }
    this.warnAboutCutCells();
  }

  /** One warning for the whole output: how many cells were cut to Excel's limit, and where the first one is. */
  private warnAboutCutCells(): void {
    const first = this.firstCut;
    if (first === undefined) return;
    const count = this.cutCells === 1 ? '1 cell was' : `${this.cutCells.toLocaleString('en-US')} cells were`;
    this.spec.onWarning?.(
      `${this.spec.target}: ${count} longer than Excel's ${XLSX_MAX_CELL_CHARS.toLocaleString('en-US')} characters and ` +
        `cut to that length (the first: column ${JSON.stringify(first.column)} in ${first.where}, ` +
        `${first.length.toLocaleString('en-US')} characters); write .csv or .jsonl to keep every character`,
    );
  }

  /** Adds one row of prepared cells to the sheet and commits it (the header row in bold). */
  private addRow(cells: readonly PreparedCell[], header: boolean): void {
    const row = this.sheet.addRow(cells.map((cell) => inline(cell.text)));
    if (header) row.font = HEADER_FONT;
    const style = header ? this.quoted?.header : this.quoted?.data;
    if (style) {
      cells.forEach((cell, i) => {
        if (cell.quotePrefix) row.getCell(i + 1).style = style;
      });
    }
    row.commit();
  }

  /** Fixes the column widths from the header and the sampled rows, then writes them. */
  private start(): void {
    const sample = this.sample ?? [];
    this.sample = null;
    const header = this.spec.columns.map((c, i) => this.prepare(c, i, 'row 1 (the header)'));
    this.sheet.columns = header.map((name, i) => {
      let width = displayWidth(name.text) + 2; // room for the filter arrow a user may add
      for (const row of sample) width = Math.max(width, displayWidth(row[i]?.text ?? ''));
      return { width: Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, width + 1)) };
    });
    this.addRow(header, true);
    for (const row of sample) this.addRow(row, false);
  }

  /**
   * Waits while the sheet's zip entry or the file has a backlog. exceljs's sheet stream never pushes back: it writes
   * whatever it is given into the zip entry's stream (archiver's readable-stream PassThrough, consumed at deflate's
   * pace), so a fast producer would pile the sheet's XML up in memory (about 240 bytes a row). That stream is reached
   * through exceljs's internals (./exceljs-internals.ts); if they change, this only yields to the event loop.
   */
  private async backpressure(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const stream of [sheetEntryStream(this.sheet), this.stream]) {
      while (stream && needsDrain(stream) && this.failure === undefined && !stream.destroyed) await once(stream, 'drain');
    }
  }

  /**
   * The cell as XLSX stores it: marked quotePrefix (or, without that style, prefixed with `'`) when it could run as a
   * formula, cut to Excel's limit (counted for the warning), special characters encoded.
   */
  private prepare(cell: string, column: number, where: string): PreparedCell {
    const neutralize = this.spec.escapeFormulas !== false && needsFormulaEscape(cell);
    let text = neutralize && this.quoted === undefined ? escapeFormula(cell) : cell;
    if (text.length > XLSX_MAX_CELL_CHARS) {
      this.cutCells += 1;
      this.firstCut ??= { column: this.spec.columns[column], where, length: text.length };
      text = cutToCellLimit(text);
    }
    return { text: encodeXlsxText(text), quotePrefix: neutralize && this.quoted !== undefined };
  }
}

/**
 * Encodes what an XLSX string cannot hold as is, the way Excel does: `_xHHHH_` for control characters, CR (XML
 * readers turn CR into LF) and U+FFFE/U+FFFF, and `_x005F_` for an underscore that would otherwise start such an
 * escape (ECMA-376 Part 1, §22.9.2.19 ST_Xstring).
 */
export function encodeXlsxText(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what this escapes
  return text.replace(/_(?=x[0-9A-Fa-f]{4}_)|[\u0000-\u0008\u000b-\u001f\ufffe\uffff]/g, (c) =>
    `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`,
  );
}

/** `text` cut to Excel's 32,767 characters, one fewer when the cut would split a surrogate pair (an emoji). */
function cutToCellLimit(text: string): string {
  const last = text.charCodeAt(XLSX_MAX_CELL_CHARS - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? XLSX_MAX_CELL_CHARS - 1 : XLSX_MAX_CELL_CHARS);
}

/** The font of the header row. */
const HEADER_FONT: Partial<ExcelJS.Font> = { bold: true };

/** An inline rich-text cell; null (no cell at all) for an empty one. */
function inline(text: string): Cell | null {
  return text === '' ? null : { richText: [{ text }] };
}

/** Width of the longest line of an encoded cell, in characters (code points; an `_xHHHH_` escape counts one). */
function displayWidth(text: string): number {
  let widest = 0;
  for (const line of text.replace(/_x[0-9A-F]{4}_/g, ' ').split('\n')) widest = Math.max(widest, [...line].length);
  return widest;
}
