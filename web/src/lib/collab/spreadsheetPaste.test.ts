import { describe, expect, it } from 'vitest';
import { isMultiCellPaste, parseSpreadsheetText } from './spreadsheetPaste.ts';

describe('rows pasted from a spreadsheet', () => {
  it('reads tab-separated rows (Excel, Google Sheets) with Windows line ends and a trailing newline', () => {
    expect(parseSpreadsheetText('Maria\tAlvarez\tAP\r\nKwame\tMensah\tCounselor\r\n')).toEqual([
      ['Maria', 'Alvarez', 'AP'],
      ['Kwame', 'Mensah', 'Counselor'],
    ]);
  });

  it('reads comma-separated rows with quoted cells, commas and quotes inside them', () => {
    expect(parseSpreadsheetText('"Chen, Mei",Social Worker,"says ""hi"""\nLuis,Ortiz,')).toEqual([
      ['Chen, Mei', 'Social Worker', 'says "hi"'],
      ['Luis', 'Ortiz', ''],
    ]);
  });

  it('treats one line without tabs as text for one cell', () => {
    expect(isMultiCellPaste('just a name\n')).toBe(false);
    expect(isMultiCellPaste('a\tb')).toBe(true);
    expect(isMultiCellPaste('a\nb')).toBe(true);
  });
});
