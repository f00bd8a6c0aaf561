import { describe, expect, it } from 'vitest';
import { currentSchoolYear, inferSchoolYear, isValidSchoolYear, latestSchoolYear, nextSchoolYear, previousSchoolYear, schoolYearTerm } from './schoolYear.ts';

describe('school-year helpers', () => {
  it('turns over on July 1 (month index 6), not before', () => {
    expect(currentSchoolYear(new Date('2026-06-30T23:59:59Z'))).toBe('2025-2026');
    expect(currentSchoolYear(new Date('2026-07-01T00:00:00Z'))).toBe('2026-2027');
    expect(currentSchoolYear(new Date('2026-12-31T12:00:00Z'))).toBe('2026-2027');
    expect(currentSchoolYear(new Date('2027-01-01T00:00:00Z'))).toBe('2026-2027');
  });

  it('steps one year back and forward, across decades and centuries', () => {
    expect(previousSchoolYear('2026-2027')).toBe('2025-2026');
    expect(nextSchoolYear('2026-2027')).toBe('2027-2028');
    expect(nextSchoolYear('2099-2100')).toBe('2100-2101');
    expect(previousSchoolYear('2000-2001')).toBe('1999-2000');
  });

  it('refuses to step from a bad label', () => {
    expect(() => nextSchoolYear('2026/2027')).toThrow(RangeError);
    expect(() => previousSchoolYear('')).toThrow(RangeError);
  });

  it('validates labels by pattern', () => {
    expect(isValidSchoolYear('2026-2027')).toBe(true);
    for (const bad of ['2026-27', '26-2027', '2026–2027', ' 2026-2027', '2026-2027 ', 'abcd-efgh', '', null, 2026]) {
      expect(isValidSchoolYear(bad)).toBe(false);
    }
  });

  it('finds the latest valid label', () => {
    expect(latestSchoolYear(['2024-2025', '2026-2027', '2025-2026'])).toBe('2026-2027');
    expect(latestSchoolYear(['bad', '2019-2020'])).toBe('2019-2020');
    expect(latestSchoolYear([])).toBeNull();
  });

  it('gives the July-to-June term', () => {
    expect(schoolYearTerm('2026-2027')).toEqual({
      start: '2026-07-01',
      end: '2027-06-30',
      startLabel: 'July 1, 2026',
      endLabel: 'June 30, 2027',
    });
  });

  it('infers a plan year from its label, else its creation date', () => {
    expect(inferSchoolYear({ schoolYear: '2024-2025', createdAt: '2026-09-01' })).toBe('2024-2025');
    expect(inferSchoolYear({ schoolYear: null, createdAt: '2026-06-30T12:00:00Z' })).toBe('2025-2026');
    expect(inferSchoolYear({ createdAt: new Date('2026-07-01T00:00:00Z') })).toBe('2026-2027');
    expect(inferSchoolYear({ schoolYear: 'junk', createdAt: 'not a date' })).toBeNull();
    expect(inferSchoolYear({})).toBeNull();
  });
});
