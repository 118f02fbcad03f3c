/**
 * Builds the XLSX workbooks the input tests read, with exceljs (the same library that reads them, but through a
 * file: the writer's XML goes through the reader's parser).
 */
import ExcelJS from 'exceljs';

/** Cells of the "Data" sheet and what the sheet displays for each, row by row from row 4. */
export const DATA_SHEET = {
  name: 'Data',
  /** Rows 1–2 are a title block, row 3 the header. */
  headerRow: 3,
  header: ['Code', 'Name', 'Price', 'Share', 'Date', 'Long date', 'Formula', 'Merged', 'Rich', 'Flag', '', 'Phone'],
} as const;

/**
 * Writes a workbook with sheets "Notes" (first) and "Data" (second) to `path`.
 * "Data": title in A1 (merged A1:C1), blank row 2, header on row 3 (K3 blank), records on rows 4, 5 and 7 (row 6 empty).
 */
export async function writeTestWorkbook(path: string): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  const notes = workbook.addWorksheet('Notes');
  notes.getCell('A1').value = 'note';
  notes.getCell('A2').value = 'first sheet, read by default';

  const sheet = workbook.addWorksheet(DATA_SHEET.name);
  sheet.getCell('A1').value = 'Quarterly price list';
  sheet.mergeCells('A1:C1');
  DATA_SHEET.header.forEach((name, i) => {
    if (name !== '') sheet.getCell(3, i + 1).value = name;
  });

  // Row 4
  sheet.getCell('A4').value = '007';
  sheet.getCell('B4').value = 'Widget';
  sheet.getCell('C4').value = 1234.5;
  sheet.getCell('C4').numFmt = '#,##0.00';
  sheet.getCell('D4').value = 0.256;
  sheet.getCell('D4').numFmt = '0.0%';
  sheet.getCell('E4').value = new Date(Date.UTC(2024, 0, 15));
  sheet.getCell('E4').numFmt = 'yyyy-mm-dd';
  sheet.getCell('F4').value = new Date(Date.UTC(2024, 0, 15, 14, 30));
  sheet.getCell('F4').numFmt = 'dddd, mmmm d, yyyy h:mm AM/PM';
  sheet.getCell('G4').value = { formula: 'C4*2', result: 2469 };
  sheet.getCell('G4').numFmt = '#,##0';
  sheet.getCell('H4').value = 'spans two rows';
  sheet.mergeCells('H4:H5');
  sheet.getCell('I4').value = { richText: [{ text: 'bold ', font: { bold: true } }, { text: 'and plain' }] };
  sheet.getCell('J4').value = true;
  sheet.getCell('K4').value = 'under a blank header';
  sheet.getCell('L4').value = 5551234567;
  sheet.getCell('L4').numFmt = '(###) ###-####';

  // Row 5
  sheet.getCell('A5').value = 42;
  sheet.getCell('A5').numFmt = '000';
  sheet.getCell('B5').value = 'Gadget';
  sheet.getCell('C5').value = -1234.5;
  sheet.getCell('C5').numFmt = '#,##0.00;(#,##0.00)';
  sheet.getCell('D5').value = 0.1 + 0.2;
  sheet.getCell('E5').value = new Date(Date.UTC(2023, 11, 31));
  sheet.getCell('E5').numFmt = 'dd/mm/yyyy';
  sheet.getCell('G5').value = { formula: 'B5&"!"', result: 'Gadget!' };
  sheet.getCell('J5').value = false;

  // Row 6 left empty; row 7 has a single cell far to the left.
  sheet.getCell('B7').value = 'Only a name';
  sheet.getCell('C7').value = 12345678901234;

  await workbook.xlsx.writeFile(path);
}
