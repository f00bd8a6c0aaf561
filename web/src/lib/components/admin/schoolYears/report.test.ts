import { describe, expect, it } from 'vitest';
import { rolloverResultSchema } from '@csp/shared/api/admin';
import { reportCsv, reportRows } from './report.ts';

const result = rolloverResultSchema.parse({
  success: true,
  sourceYear: '2026-2027',
  targetYear: '2027-2028',
  considered: 5,
  created: [
    { school: 'Oak School', formId: 'a'.repeat(24) },
    { school: 'Birch School', formId: 'b'.repeat(24) },
  ],
  skipped: [{ school: 'Cedar School', existingFormId: 'c'.repeat(24) }],
  filled: [{ school: 'Elm School', formId: 'e'.repeat(24) }],
  errors: [{ school: '=Maple School', error: 'duplicate key "plans_school_year"' }],
  archivedYear: '2026-2027',
});

describe('the rollover report', () => {
  it('lists errors first, then created, filled and skipped schools, each group by name', () => {
    expect(reportRows(result).map((row) => [row.outcome, row.school, row.formId])).toEqual([
      ['Error', '=Maple School', null],
      ['Created', 'Birch School', 'b'.repeat(24)],
      ['Created', 'Oak School', 'a'.repeat(24)],
      ['Filled', 'Elm School', 'e'.repeat(24)],
      ['Skipped', 'Cedar School', 'c'.repeat(24)],
    ]);
  });

  it('downloads as CSV with the target year’s plan ids, quotes doubled and formula-like names kept as text', () => {
    expect(reportCsv(result).split('\r\n')).toEqual([
      '"School","Outcome","2027-2028 plan id","Error"',
      `"'=Maple School","Error","","duplicate key ""plans_school_year"""`,
      `"Birch School","Created","${'b'.repeat(24)}",""`,
      `"Oak School","Created","${'a'.repeat(24)}",""`,
      `"Elm School","Filled","${'e'.repeat(24)}",""`,
      `"Cedar School","Skipped","${'c'.repeat(24)}",""`,
      '',
    ]);
  });
});
