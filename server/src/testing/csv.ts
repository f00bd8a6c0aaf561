import assert from 'node:assert/strict';

/**
 * RFC 4180 records: quoted fields may hold commas, quotes (doubled) and line breaks; records end
 * at CRLF, LF or CR. With
 * `whole`, the text must end with a complete record (every record ends with a line break).
 */
export function parseCsv(text: string, { whole = false } = {}): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += char;
  }
  if (whole) {
    assert.equal(field, '', 'the text ends with a complete record');
    assert.deepEqual(record, [], 'the text ends with a complete record');
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}
