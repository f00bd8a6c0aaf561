/**
 * The user import file: CSV with a header row (name, email, level, schoolName, title), read as a
 * spreadsheet writes it (RFC 4180: quoted cells may hold commas, quotes doubled, line breaks).
 * Rows are sent as read; the server validates each one and reports every refusal by row.
 */
import { unguardFormula } from '@csp/shared/csv';
import { readCsv, toCsv } from '#lib/csv.ts';

export const IMPORT_COLUMNS = ['name', 'email', 'level', 'schoolName', 'title'] as const;
const REQUIRED_COLUMNS = ['name', 'email', 'level', 'schoolName'] as const;
/** The route takes at most this many rows at once. */
export const MAX_IMPORT_ROWS = 2000;

/** Cells of a CSV text, row by row (quotes and line breaks inside quotes kept), blank rows left out. */
export function parseCsv(text: string): string[][] {
  return readCsv(text.replace(/^\uFEFF/, '')).filter((cells) => cells.some((value) => value.trim() !== ''));
}

export interface ImportPreview {
  /** One object per data row, keyed by the known columns (row 0 is the first data row). */
  rows: Record<string, string | number>[];
  /** Problems with the file as a whole (no header, missing columns, too many rows). */
  problems: string[];
  /** Header names that are not import columns (ignored). */
  ignored: string[];
}

const normalise = (header: string) =>
  header
    .trim()
    .replace(/[\s_-]+/g, '')
    .toLowerCase();
const COLUMN_BY_KEY = Object.fromEntries(IMPORT_COLUMNS.map((column) => [column.toLowerCase(), column]));

/** Reads an import file into the rows the import route takes, and what is wrong with the file itself. */
export function readImport(text: string): ImportPreview {
  const [header, ...data] = parseCsv(text);
  if (!header) return { rows: [], problems: ['The file is empty.'], ignored: [] };
  const columns = header.map((name) => COLUMN_BY_KEY[normalise(name)] ?? null);
  const missing = REQUIRED_COLUMNS.filter((column) => !columns.includes(column));
  const ignored = header.filter((_, index) => columns[index] === null).map((name) => name.trim());
  const problems: string[] = [];
  if (missing.length) problems.push(`The first row must name the columns; missing: ${missing.join(', ')}.`);
  if (data.length === 0) problems.push('The file has no rows under its header.');
  if (data.length > MAX_IMPORT_ROWS) problems.push(`The file has ${data.length} rows; import at most ${MAX_IMPORT_ROWS} at a time.`);
  const rows = data.map((cells) => {
    const row: Record<string, string | number> = {};
    columns.forEach((column, index) => {
      if (!column) return;
      // A cell a spreadsheet guarded against formula injection ('=…) is read back without the guard.
      const value = unguardFormula((cells[index] ?? '').trim());
      if (column === 'title' && value === '') return;
      // The level goes as a number when it is one; anything else goes as written, for the server to refuse by row.
      row[column] = column === 'level' && /^\d+$/.test(value) ? Number(value) : value;
    });
    return row;
  });
  return { rows, problems, ignored };
}

/** The template offered for download: the header and two example rows. */
export function importTemplate(schoolName: string): string {
  return toCsv([
    [...IMPORT_COLUMNS],
    ['Jordan Lee', 'jordan.lee@example.org', 1, schoolName, 'Grade 3 teacher'],
    ['Sam Rivera', 'sam.rivera@example.org', 2, schoolName, 'Attendance coordinator'],
  ]);
}
