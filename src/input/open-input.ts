import { open, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { InputError, UsageError } from '../errors.js';
import { inputFormat } from './input-format.js';
import type { InputOptions, InputSource } from './input-source.js';
import { normalizeInputOptions } from './normalize-options.js';
import { openCsv } from './read-csv.js';

/**
 * Opens a spreadsheet for reading: CSV/TSV/TXT (any delimiter among `,` `;` TAB `|`, UTF-8/UTF-16/Windows-1252…)
 * or XLSX. Detection reads only the head of a delimited file; `records()` streams it. XLSX workbooks are loaded
 * whole by exceljs (fine for the sizes Excel users classify; save very large sheets as CSV).
 * @param path the file as the user named it (relative paths resolve against the working directory).
 * @param options the `classify` reading flags; unset ones are detected.
 * @throws UsageError `USAGE_INVALID_*` for a bad option value; `USAGE_SHEET_NOT_XLSX` for `--sheet` with a file read
 *   as delimited text.
 * @throws InputError `INPUT_NOT_FOUND`, `INPUT_NOT_A_FILE`, `INPUT_UNSUPPORTED_FORMAT`, `INPUT_BINARY`, `INPUT_EMPTY`,
 *   `INPUT_ENCODING`, `INPUT_MALFORMED`, `INPUT_SHEET_NOT_FOUND`, and from `records()` `INPUT_COLUMN_COUNT`…
 */
export async function openInput(path: string, options: InputOptions): Promise<InputSource> {
  const normalized = normalizeInputOptions(options);
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') {
      throw new InputError('INPUT_NOT_FOUND', { file: path }, 'no such file. Check the path and the current directory.', {
        cause: error,
      });
    }
    throw new InputError('INPUT_UNREADABLE', { file: path }, `the file cannot be read (${error.code ?? error.message}).`, {
      cause: error,
    });
  });
  if (!info.isFile()) {
    throw new InputError(
      'INPUT_NOT_A_FILE',
      { file: path },
      info.isDirectory() ? 'this is a directory; name a CSV, TSV or XLSX file.' : 'this is not a regular file; name a CSV, TSV or XLSX file.',
    );
  }
  const head = await readMagic(path);
  const format = inputFormat(path, head);
  if (format === 'xlsx') {
    // exceljs takes ~0.3 s to load: only an XLSX job pays for it.
    const { openXlsx } = await import('./read-xlsx.js');
    return openXlsx({ path, displayPath: path, size: info.size }, normalized);
  }
  if (normalized.sheet !== undefined) {
    throw new UsageError(
      'USAGE_SHEET_NOT_XLSX',
      `--sheet applies to XLSX input only; ${path} is read as delimited text (CSV/TSV). Remove --sheet ${JSON.stringify(normalized.sheet)}.`,
    );
  }
  return openCsv(
    { path, displayPath: path, size: info.size, tsv: extname(path).toLowerCase() === '.tsv' },
    normalized,
  );
}

async function readMagic(path: string): Promise<Buffer> {
  const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new InputError('INPUT_UNREADABLE', { file: path }, `the file cannot be opened (${error.code ?? error.message}).`, {
      cause: error,
    });
  });
  try {
    const buffer = Buffer.alloc(8);
    const { bytesRead } = await handle.read(buffer, 0, 8, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
