import { extname } from 'node:path';
import { InputError } from '../errors.js';

/** Formats of spreadsheet gemini-batch reads. */
export type InputFormat = 'csv' | 'xlsx';

/** Extensions of spreadsheet formats that are not read, with their kind (article included) for the message. */
const UNSUPPORTED: Record<string, string> = {
  '.xls': 'an Excel 97-2003 workbook',
  '.xlsb': 'an Excel binary workbook',
  '.ods': 'an OpenDocument spreadsheet',
  '.fods': 'an OpenDocument spreadsheet',
  '.numbers': 'an Apple Numbers document',
  '.xml': 'an XML spreadsheet',
  '.json': 'a JSON file',
  '.jsonl': 'a JSON Lines file',
  '.parquet': 'a Parquet file',
};

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0];

function startsWith(head: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((byte, i) => head[i] === byte);
}

/**
 * The format to read a file as, from its extension and first bytes: `.xlsx`/`.xlsm` are XLSX; anything else
 * (`.csv`, `.tsv`, `.txt`, no extension…) is delimited text, unless its bytes show a workbook.
 * @param displayPath the path as the user gave it, for messages.
 * @param head the first bytes of the file (at least 4 when the file has them).
 * @throws InputError `INPUT_UNSUPPORTED_FORMAT` for .xls, .ods and other formats, and for a text-named file that is
 *   really a workbook (zip or OLE bytes), saying to save it as CSV or XLSX.
 */
export function inputFormat(displayPath: string, head: Uint8Array): InputFormat {
  const extension = extname(displayPath).toLowerCase();
  if (extension === '.xlsx' || extension === '.xlsm') {
    if (!startsWith(head, ZIP_MAGIC)) {
      throw new InputError(
        'INPUT_UNSUPPORTED_FORMAT',
        { file: displayPath },
        `the file is named ${extension} but is not an Excel workbook (no zip signature). ` +
          'If it is a CSV file, rename it to .csv; otherwise open it in Excel and save it as "Excel Workbook (.xlsx)".',
      );
    }
    return 'xlsx';
  }
  const kind = UNSUPPORTED[extension];
  if (kind !== undefined) throw unsupported(displayPath, `${kind} (${extension})`);
  if (startsWith(head, ZIP_MAGIC)) throw unsupported(displayPath, 'a zip archive (perhaps an .xlsx or .ods workbook with another name)');
  if (startsWith(head, OLE_MAGIC)) throw unsupported(displayPath, 'an Excel 97-2003 (.xls) workbook');
  return 'csv';
}

function unsupported(displayPath: string, what: string): InputError {
  return new InputError(
    'INPUT_UNSUPPORTED_FORMAT',
    { file: displayPath },
    `gemini-batch cannot read ${what}. Open it in Excel, LibreOffice or Google Sheets and save or download it as ` +
      'CSV (UTF-8) or Excel Workbook (.xlsx).',
  );
}
