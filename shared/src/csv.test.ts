import { describe, expect, it } from 'vitest';
import { csvCell, csvRow, guardFormula, toCsv, unguardFormula } from './csv.ts';

describe('csv', () => {
  it('quotes every cell, doubles quotes and keeps line breaks and commas inside the cell', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell(null)).toBe('""');
    expect(csvCell('a "b", c\r\nd')).toBe('"a ""b"", c\r\nd"');
    expect(csvRow(['a', null, 3])).toBe('"a","","3"\r\n');
  });

  it('keeps text that a spreadsheet would run as a formula as text, and numbers as numbers', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(csvCell(`${start}1`)).toBe(`"'${start}1"`);
    expect(csvCell(-5)).toBe('"-5"');
    expect(guardFormula('plain')).toBe('plain');
  });

  it('reads a guarded cell back as what was written, and leaves other apostrophes alone', () => {
    for (const text of ['=SUM(A1)', '+1', '-2', '@me', '\tx', '\rx', 'plain', "'quoted"]) expect(unguardFormula(guardFormula(text))).toBe(text);
    expect(unguardFormula("'plain")).toBe("'plain");
  });

  it('writes a table as rows ending CRLF', () => {
    expect(
      toCsv([
        ['Status', 'Plans'],
        ['Draft', 3],
        ['=SUM(A1)', '"quoted", with comma'],
        ['-5', -5],
      ]),
    ).toBe('"Status","Plans"\r\n"Draft","3"\r\n"\'=SUM(A1)","""quoted"", with comma"\r\n"\'-5","-5"\r\n');
    expect(toCsv([])).toBe('');
  });
});
