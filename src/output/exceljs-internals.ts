/**
 * Every use gemini-batch makes of exceljs's internals, in one place, for exceljs 4.4.0 exactly (package.json pins it;
 * test/output/exceljs-internals.test.ts fails when any of these changes). Each function degrades to a safe default
 * when the internals are not as expected, and the test says which one broke.
 *
 * 1. {@link quotePrefixStyle}: the streaming WorkbookWriter's style manager (`workbook.styles`, a StylesXform), to give
 *    cells Excel's quotePrefix, which exceljs's public style model cannot express.
 * 2. {@link sheetEntryStream}: the zip entry stream a worksheet writer writes into (`sheet.stream.pipes[0]`), to wait
 *    for it to drain (exceljs's sheet stream never pushes back).
 * 3. {@link needsDrain}: `_writableState.needDrain` of readable-stream 2 streams (archiver's), which lack
 *    `writableNeedDrain`.
 */
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';

/** The exceljs version these internals were written against. */
export const EXCELJS_VERSION = '4.4.0';

/** What {@link quotePrefixStyle} uses of exceljs 4.4's style manager (`WorkbookWriter.styles`, a StylesXform). */
interface ExcelJsStyleManager {
  addStyleModel(model: Partial<ExcelJS.Style>, cellType?: ExcelJS.ValueType): number;
  model: { styles: unknown[] };
  weakMap: WeakMap<object, number>;
}

/**
 * A cell style with `quotePrefix="1"` on its `xf` (ECMA-376 Part 1, §18.8.45): what Excel sets when a user types
 * `'=x`. The cell shows its text unchanged, and Excel keeps it text when the cell is edited instead of turning it
 * into a formula. exceljs 4.4 has no such style property (its StyleXform writes number format, font, fill, border,
 * alignment and protection only), so the `xf` is added to its style manager as XML: the manager's own `xf` for
 * `base` with the attribute added, appended to `model.styles` (the `cellXfs` written at commit), and the returned
 * style object is entered in the manager's cache (`weakMap`), which `addStyleModel` consults before anything else
 * when a cell with that style is written.
 * @returns the style to give cells, or undefined when those internals are not as expected (the caller then
 *   prefixes the text with `'`).
 */
export function quotePrefixStyle(workbook: ExcelJS.stream.xlsx.WorkbookWriter, base: Partial<ExcelJS.Style>): Partial<ExcelJS.Style> | undefined {
  const styles = (workbook as unknown as { styles?: Partial<ExcelJsStyleManager> }).styles;
  if (typeof styles?.addStyleModel !== 'function' || !Array.isArray(styles.model?.styles) || !(styles.weakMap instanceof WeakMap)) {
    return undefined;
  }
  const baseXml = styles.model.styles[styles.addStyleModel({ ...base }, ExcelJS.ValueType.RichText)];
  if (typeof baseXml !== 'string' || !/^<xf\s[^>]*\/>$/.test(baseXml) || baseXml.includes('quotePrefix')) return undefined;
  const style: Partial<ExcelJS.Style> = {};
  styles.weakMap.set(style, styles.model.styles.length);
  styles.model.styles.push(baseXml.replace(/\s*\/>$/, ' quotePrefix="1"/>'));
  return style;
}

/**
 * The zip entry stream a worksheet writer writes its XML into (archiver's readable-stream PassThrough, consumed at
 * deflate's pace): exceljs 4.4's WorksheetWriter keeps its own stream in `stream`, piped to that entry (`pipes[0]`).
 * @returns the entry stream, or undefined when those internals are not as expected (the caller then only yields).
 */
export function sheetEntryStream(sheet: ExcelJS.Worksheet): Writable | undefined {
  const pipes = (sheet as unknown as { stream?: { pipes?: unknown } }).stream?.pipes;
  const entry = Array.isArray(pipes) ? (pipes[0] as Writable | undefined) : undefined;
  return entry && typeof entry.write === 'function' && typeof entry.once === 'function' ? entry : undefined;
}

/** True when a writable (Node's, or readable-stream 2's, which lacks `writableNeedDrain`) asked for 'drain'. */
export function needsDrain(stream: Writable): boolean {
  const legacy = stream as unknown as { _writableState?: { needDrain?: boolean } };
  return stream.writableNeedDrain ?? legacy._writableState?.needDrain === true;
}
