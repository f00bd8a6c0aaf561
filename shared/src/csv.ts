/**
 * CSV as the server's exports and the web app's downloads write it (RFC 4180): every cell quoted,
 * quotes doubled (commas and line breaks stay inside the cell), rows ending CRLF, and text a
 * spreadsheet would run as a formula kept as text.
 */

/** Spreadsheet programs run a cell that starts with =, +, -, @, a tab or a carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;
const GUARDED_FORMULA = /^'[=+\-@\t\r]/;

/** Text that would run as a formula, kept as text by a leading apostrophe (as spreadsheets do). */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** A cell read back from a spreadsheet: what it was before `guardFormula` (or a spreadsheet's own guard). */
export function unguardFormula(text: string): string {
  return GUARDED_FORMULA.test(text) ? text.slice(1) : text;
}

/** One cell: text guarded, numbers as they are (a negative number stays a number), null empty. */
export function csvCell(value: string | number | null): string {
  const text = typeof value === 'number' ? String(value) : guardFormula(value ?? '');
  return `"${text.replaceAll('"', '""')}"`;
}

/** One row, with its line break. */
export function csvRow(cells: readonly (string | number | null)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** A whole table. */
export function toCsv(rows: readonly (readonly (string | number | null)[])[]): string {
  return rows.map(csvRow).join('');
}
