import { describe, expect, it } from 'vitest';
import { toCsv } from './csv.ts';

describe('toCsv', () => {
  it('quotes every cell, doubles quotes and keeps formula-looking text as text', () => {
    expect(
      toCsv([
        ['Status', 'Plans'],
        ['Draft', 3],
        ['=SUM(A1)', '"quoted", with comma'],
        ['-5', -5],
      ]),
    ).toBe('"Status","Plans"\r\n"Draft","3"\r\n"\'=SUM(A1)","""quoted"", with comma"\r\n"\'-5","-5"\r\n');
  });
});
