/**
 * Issue 11 item 15: gemini-batch reaches into exceljs's internals (src/output/exceljs-internals.ts). This test fails
 * when the installed exceljs is not the version package.json pins, or when any internal it relies on changed shape —
 * each function would otherwise silently fall back (a `'` before formula-like cells, no backpressure).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXCELJS_VERSION, needsDrain, quotePrefixStyle, sheetEntryStream } from '../../src/output/exceljs-internals.js';
import { repoRoot } from '../support/fixtures.js';
import { quotePrefixedCells } from './read-back.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gb-exceljs-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('exceljs internals (issue 11 item 15)', () => {
  it('package.json pins exceljs exactly, the lockfile agrees, and that version is installed', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; dependencies?: Record<string, string> }> };
    expect(pkg.dependencies.exceljs).toBe(EXCELJS_VERSION);
    expect(lock.packages['']?.dependencies?.exceljs).toBe(EXCELJS_VERSION);
    expect(lock.packages['node_modules/exceljs']?.version).toBe(EXCELJS_VERSION);
    const installed = createRequire(import.meta.url)('exceljs/package.json') as { version: string };
    expect(installed.version).toBe(EXCELJS_VERSION);
  });

  it('the style manager takes a quotePrefix xf, and the cell given that style carries it in the file', async () => {
    const file = path.join(dir, 'q.xlsx');
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useStyles: true, useSharedStrings: false });
    const style = quotePrefixStyle(workbook, {});
    expect(style, 'workbook.styles no longer has addStyleModel / model.styles / weakMap as exceljs 4.4.0 has').toBeDefined();
    const sheet = workbook.addWorksheet('s');
    const row = sheet.addRow([{ richText: [{ text: '=SUM(A1)' }] }, { richText: [{ text: 'plain' }] }]);
    row.getCell(1).style = style!;
    row.commit();
    sheet.commit();
    await workbook.commit();
    expect(await quotePrefixedCells(file)).toEqual(['A1']);
  });

  it('a worksheet writer pipes into a zip entry stream whose need to drain can be read', async () => {
    const file = path.join(dir, 'e.xlsx');
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useStyles: true, useSharedStrings: false });
    const sheet = workbook.addWorksheet('s');
    sheet.addRow(['a']).commit();
    const entry = sheetEntryStream(sheet);
    expect(entry, 'sheet.stream.pipes[0] is no longer the zip entry stream').toBeDefined();
    expect(typeof needsDrain(entry!)).toBe('boolean');
    const legacy = entry as unknown as { writableNeedDrain?: boolean; _writableState?: { needDrain?: unknown } };
    expect(typeof legacy.writableNeedDrain === 'boolean' || typeof legacy._writableState?.needDrain === 'boolean').toBe(true);
    sheet.commit();
    await workbook.commit();
  });
});
