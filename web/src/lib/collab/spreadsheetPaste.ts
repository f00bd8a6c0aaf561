/**
 * Rows of text copied from a spreadsheet: tab-separated (Excel, Google Sheets, Numbers) or, when
 * there is no tab, comma-separated with "quoted, cells" and "" for a quote.
 */
export function parseSpreadsheetText(text: string): string[][] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  if (!lines) return [];
  if (lines.includes('\t')) return lines.split('\n').map((line) => line.split('\t').map((cell) => cell.trim()));
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < lines.length; i++) {
    const char = lines[i]!;
    if (quoted) {
      if (char === '"' && lines[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === ',') {
      row.push(cell.trim());
      cell = '';
    } else if (char === '\n') {
      row.push(cell.trim());
      rows.push(row);
      row = [];
      cell = '';
    } else cell += char;
  }
  row.push(cell.trim());
  rows.push(row);
  return rows;
}

/** Whether a paste should become rows rather than text in one cell. */
export const isMultiCellPaste = (text: string) => /[\t\n]/.test(text.replace(/\r?\n$/, ''));
