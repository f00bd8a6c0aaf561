import { describe, expect, it } from 'vitest';
import { importTemplate, parseCsv, readImport } from './importCsv.ts';

describe('parseCsv', () => {
  it('reads quoted cells with commas, doubled quotes and line breaks, and CRLF rows', () => {
    expect(parseCsv('a,b\r\n"x, y","say ""hi"""\n"two\nlines",z\n')).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"'],
      ['two\nlines', 'z'],
    ]);
  });
  it('skips blank lines and a byte-order mark, and keeps a last row without a line break', () => {
    expect(parseCsv('\uFEFFa,b\n\n,\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });
});

describe('readImport', () => {
  it('maps headers to the import columns in any order and case, numbers the level, drops empty titles', () => {
    const preview = readImport('Email,Name,School Name,LEVEL,title,extra\nA@example.org,Ann,Harbor,2,,x\nb@example.org,Bo,Harbor,two,Coach,y\n');
    expect(preview.problems).toEqual([]);
    expect(preview.ignored).toEqual(['extra']);
    expect(preview.rows).toEqual([
      { email: 'A@example.org', name: 'Ann', schoolName: 'Harbor', level: 2 },
      { email: 'b@example.org', name: 'Bo', schoolName: 'Harbor', level: 'two', title: 'Coach' },
    ]);
  });
  it('names the missing columns and an empty file', () => {
    expect(readImport('name,email\nA,a@example.org').problems).toEqual(['The first row must name the columns; missing: level, schoolName.']);
    expect(readImport('').problems).toEqual(['The file is empty.']);
    expect(readImport('name,email,level,schoolName\n').problems).toEqual(['The file has no rows under its header.']);
  });
  it('reads its own template back', () => {
    const preview = readImport(importTemplate('=Harbor'));
    expect(preview.problems).toEqual([]);
    expect(preview.rows[0]).toMatchObject({ name: 'Jordan Lee', level: 1, schoolName: '=Harbor' });
  });
});
