import ExcelJS from 'exceljs';
import { formatNumber } from './number-format.js';

/**
 * The text of an XLSX cell as the sheet displays it:
 * - numbers and dates through the cell's number format (`formatNumber`);
 * - rich text as its plain text; a hyperlink as its shown text; booleans `TRUE`/`FALSE`; errors as `#N/A`…;
 * - a formula as its cached result (the value Excel last computed and saved), '' when the file has none;
 * - an empty cell, and every cell of a merged range except its top-left one, as ''.
 * @param date1904 the workbook uses the 1904 date system.
 */
export function xlsxCellText(cell: ExcelJS.Cell, date1904: boolean): string {
  if (cell.type === ExcelJS.ValueType.Merge) return '';
  return valueText(cell.value, cell.numFmt, date1904);
}

function valueText(value: unknown, numFmt: string | undefined, date1904: boolean): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || value instanceof Date) return formatNumber(value, numFmt, date1904);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'bigint' || typeof value === 'symbol') return value.toString();
  if (typeof value !== 'object') return ''; // a function: no cell holds one
  if ('error' in value) return String((value as ExcelJS.CellErrorValue).error);
  if ('richText' in value) return (value as ExcelJS.CellRichTextValue).richText.map((run) => run.text).join('');
  if ('hyperlink' in value) return valueText((value as ExcelJS.CellHyperlinkValue).text, numFmt, date1904);
  if ('formula' in value || 'sharedFormula' in value) {
    return valueText((value as ExcelJS.CellFormulaValue).result, numFmt, date1904);
  }
  if ('text' in value) return valueText((value).text, numFmt, date1904);
  return '';
}
