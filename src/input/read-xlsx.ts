import ExcelJS from 'exceljs';
import { InputError } from '../errors.js';
import { describeDialect } from './describe-dialect.js';
import { cleanHeader } from './header.js';
import type { InputDialect, InputRecord, InputSource } from './input-source.js';
import type { NormalizedInputOptions } from './normalize-options.js';
import { LazyRecord } from './row-identity.js';
import { xlsxCellText } from './xlsx-cell-text.js';

/** What `openXlsx` needs besides the options. */
export interface XlsxFile {
  path: string;
  displayPath: string;
  size: number;
}

/**
 * Opens an XLSX workbook (loaded whole by exceljs) and one of its sheets: `--sheet` by exact name, else by 1-based
 * position in the workbook's tab order (hidden sheets count) when it is a number, else by name ignoring case; by
 * default the first visible sheet.
 * The header is the first non-empty row at or after `--header-row`. Columns run to the rightmost non-empty cell of
 * the header or of any row below it (a sheet is a grid: there are no column-count errors; cells beyond the header
 * get `column_N` names). Empty rows are skipped. Every cell is the text the sheet displays (`xlsxCellText`).
 * @throws InputError `INPUT_MALFORMED` (not a readable workbook), `INPUT_SHEET_NOT_FOUND` (listing the sheets),
 *   `INPUT_EMPTY` (no header row).
 */
export async function openXlsx(file: XlsxFile, options: NormalizedInputOptions): Promise<InputSource> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.readFile(file.path);
  } catch (error) {
    throw new InputError(
      'INPUT_MALFORMED',
      { file: file.displayPath },
      `the file cannot be read as an Excel workbook (${(error as Error).message}). Open it in Excel and save it again as .xlsx, or save it as CSV UTF-8.`,
      { cause: error },
    );
  }
  const date1904 = workbook.properties.date1904 === true;
  const sheet = pickSheet(workbook, options.sheet, file.displayPath);
  const lastRow = sheet.rowCount;

  let headerRow = options.headerRow;
  while (headerRow <= lastRow && rowWidth(sheet.findRow(headerRow)) === 0) headerRow += 1;
  if (headerRow > lastRow) {
    throw new InputError(
      'INPUT_EMPTY',
      { file: file.displayPath },
      `sheet ${JSON.stringify(sheet.name)} has no non-empty row at or after row ${options.headerRow} to use as the header.`,
    );
  }
  let width = 0;
  for (let r = headerRow; r <= lastRow; r += 1) width = Math.max(width, rowWidth(sheet.findRow(r)));

  const rawHeader = rowCells(sheet.findRow(headerRow), width, date1904);
  const { columns, headerCells, notes, ambiguous } = cleanHeader(rawHeader);
  const headerFields = rowWidth(sheet.findRow(headerRow));
  if (width > headerFields) {
    const extra = columns.slice(headerFields);
    notes.push(
      `cells to the right of the header's last cell (column ${headerFields}) are in ` +
        `${extra.length === 1 ? 'a column' : 'columns'} named ${extra.join(', ')}`,
    );
  }
  const dialect: InputDialect = {
    format: 'xlsx',
    encoding: 'utf-8',
    bom: false,
    delimiter: ',',
    quote: '"',
    sepLine: false,
    lineBreak: '\n',
    sheet: sheet.name,
  };
  return {
    path: file.displayPath,
    dialect,
    columns,
    headerCells,
    headerNotes: notes,
    ambiguousColumns: ambiguous,
    size: file.size,
    describe: () => describeDialect(dialect, headerRow, columns.length),
    records: (options) => xlsxRecords(sheet, options?.from ? options.from.line - 1 : headerRow, lastRow, width, date1904, options?.from?.index ?? 0),
  };
}

/** Records of the rows after `afterRow` (the header row, or the row before a resume position), numbered from `firstIndex`. */
async function* xlsxRecords(
  sheet: ExcelJS.Worksheet,
  afterRow: number,
  lastRow: number,
  width: number,
  date1904: boolean,
  firstIndex: number,
): AsyncGenerator<InputRecord> {
  let index = firstIndex;
  for (let r = afterRow + 1; r <= lastRow; r += 1) {
    const row = sheet.findRow(r);
    if (rowWidth(row) === 0) continue;
    const cells = rowCells(row, width, date1904);
    if (cells.every((cell) => cell === '')) continue;
    yield new LazyRecord(index, r, cells);
    index += 1;
  }
}

/** The sheet `--sheet` names (see `openXlsx`). */
function pickSheet(workbook: ExcelJS.Workbook, wanted: string | undefined, displayPath: string): ExcelJS.Worksheet {
  const sheets = workbook.worksheets;
  const first = sheets.find((s) => s.state === 'visible' || s.state === undefined) ?? sheets[0];
  if (first === undefined) {
    throw new InputError('INPUT_EMPTY', { file: displayPath }, 'the workbook has no sheets.');
  }
  if (wanted === undefined) return first;
  const byName = sheets.find((s) => s.name === wanted);
  if (byName) return byName;
  if (/^\d+$/.test(wanted)) {
    const byIndex = sheets[Number(wanted) - 1];
    if (byIndex) return byIndex;
  }
  const byFold = sheets.find((s) => s.name.toLowerCase() === wanted.toLowerCase());
  if (byFold) return byFold;
  throw new InputError(
    'INPUT_SHEET_NOT_FOUND',
    { file: displayPath },
    `the workbook has no sheet ${JSON.stringify(wanted)}. Its sheets: ` +
      `${sheets.map((s, i) => `${i + 1} ${JSON.stringify(s.name)}`).join(', ')}. Pass --sheet with a name or a number.`,
  );
}

/** 1-based column of the row's last cell that displays something (0 for a missing or empty row). */
function rowWidth(row: ExcelJS.Row | undefined): number {
  if (row === undefined) return 0;
  let width = 0;
  row.eachCell({ includeEmpty: false }, (cell, column) => {
    if (column > width && cell.type !== ExcelJS.ValueType.Merge && cell.value !== null && cell.value !== undefined && xlsxCellText(cell, false) !== '') {
      width = column;
    }
  });
  return width;
}

function rowCells(row: ExcelJS.Row | undefined, width: number, date1904: boolean): string[] {
  const cells = new Array<string>(width).fill('');
  row?.eachCell({ includeEmpty: false }, (cell, column) => {
    if (column <= width) cells[column - 1] = xlsxCellText(cell, date1904);
  });
  return cells;
}
