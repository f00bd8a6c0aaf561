import { describe, expect, it } from 'vitest';
import { answerChange, type AnswerChange, type DiffPart } from './answerDiff.ts';

const text = { type: 'textarea' as const, options: undefined, columns: undefined };
const table = {
  type: 'table' as const,
  options: undefined,
  columns: [
    { header: 'Goal', type: 'text' as const },
    { header: 'Owner', type: 'text' as const },
  ],
};
const select = { type: 'select' as const, options: [{ value: 'k8', label: 'Grades K–8' }], columns: undefined };

/** "[+added] [-removed] kept" as one line, to read a diff at a glance. */
function read(change: AnswerChange | DiffPart[]): string {
  if (!Array.isArray(change) && change.kind !== 'text') throw new Error(`not text: ${change.kind}`);
  return (Array.isArray(change) ? change : change.parts)
    .map((part) => (part.change === 'added' ? `[+${part.text}]` : part.change === 'removed' ? `[-${part.text}]` : part.text))
    .join('');
}

describe('answerChange', () => {
  it('diffs text word by word', () => {
    expect(read(answerChange(text, 'Buses arrive late', 'Buses arrive early'))).toBe('Buses arrive [-late][+early]');
    expect(read(answerChange(text, null, 'New text'))).toBe('[+New text]');
    expect(read(answerChange(text, 'Old text', ''))).toBe('[-Old text]');
  });

  it('counts blank text, no value and an empty table as the same', () => {
    expect(answerChange(text, null, '  ')).toEqual({ kind: 'same' });
    expect(answerChange(table, null, { headers: ['Goal', 'Owner'], rows: [['', '']] })).toEqual({ kind: 'same' });
    expect(answerChange(text, 'Same', 'Same')).toEqual({ kind: 'same' });
  });

  it('shows yes/no and choices as whole values, by their labels', () => {
    expect(answerChange({ type: 'yesno', options: undefined, columns: undefined }, true, false)).toEqual({ kind: 'choice', before: 'Yes', after: 'No' });
    expect(answerChange({ type: 'checkbox', options: undefined, columns: undefined }, null, true)).toEqual({
      kind: 'choice',
      before: 'No answer',
      after: 'Yes',
    });
    expect(answerChange(select, null, 'k8')).toEqual({ kind: 'choice', before: 'No answer', after: 'Grades K–8' });
  });

  it('reads a table as rows added, removed and changed cell by cell', () => {
    const before = {
      headers: ['Goal', 'Owner'],
      rows: [
        ['Attendance 95%', 'Ms. Chen'],
        ['Reading', 'Mr. Diaz'],
        ['Math', 'Ms. Ali'],
      ],
    };
    const after = {
      headers: ['Goal', 'Owner'],
      rows: [
        ['Attendance 96%', 'Ms. Chen'],
        ['Math', 'Ms. Ali'],
        ['Science', ''],
      ],
    };
    const change = answerChange(table, before, after);
    expect(change.kind).toBe('table');
    if (change.kind !== 'table') return;
    expect(change.rows.map((row) => `${row.change} ${row.row}: ${row.cells.map((cell) => cell.column).join(',')}`)).toEqual([
      'changed 1: Goal',
      'removed 2: Goal,Owner',
      'added 3: Goal',
    ]);
    expect(read(change.rows[0]!.cells[0]!.parts)).toBe('Attendance [-95][+96]%');
  });
});
