import { readCsv } from '#lib/csv.ts';

/**
 * Rows of text copied from a spreadsheet: tab-separated (Excel, Google Sheets, Numbers) or, when
 * there is no tab, comma-separated with "quoted, cells" and "" for a quote.
 */
export function parseSpreadsheetText(text: string): string[][] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  if (!lines) return [];
  if (lines.includes('\t')) return lines.split('\n').map((line) => line.split('\t').map((cell) => cell.trim()));
  return readCsv(lines).map((row) => row.map((cell) => cell.trim()));
}

/** Whether a paste should become rows rather than text in one cell. */
export const isMultiCellPaste = (text: string) => /[\t\n]/.test(text.replace(/\r?\n$/, ''));
