export { toCsv } from '@csp/shared/csv';

/** Saves text as a file the browser downloads. */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = Object.assign(document.createElement('a'), { href: url, download: fileName });
  link.click();
  URL.revokeObjectURL(url);
}

/**
 * Rows of comma-separated text as spreadsheets write it (RFC 4180): a cell that starts with a quote
 * may hold commas, line breaks and doubled quotes; rows end at CRLF, LF or CR.
 */
export function readCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  /** Whether the text so far ends with a row break (an empty text has no row). */
  let atRowStart = true;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    atRowStart = false;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      atRowStart = true;
    } else cell += char;
  }
  if (!atRowStart) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
