import { describe, expect, it } from 'vitest';
import type { PlanListItem } from '@csp/shared/api/forms';
import { allPlans, planExportName, planExportRows, readPlanFilters, reviewEach } from './planList.ts';

const plan = (id: string, fields: Partial<PlanListItem> = {}) =>
  ({
    _id: id,
    schoolName: `School ${id}`,
    schoolYear: '2026-2027',
    status: 'submitted',
    principalEmail: null,
    completedSteps: ['a', 'b'],
    flagsToReview: 0,
    openComments: 0,
    updatedAt: '2026-11-20T10:00:00.000Z',
    ...fields,
  }) as PlanListItem;

describe('readPlanFilters', () => {
  it('reads the view from the address and ignores what it does not know', () => {
    const filters = readPlanFilters(new URLSearchParams('year=2025-2026&status=approved&q=harbor&sort=school&order=desc&page=3'), '2026-2027');
    expect(filters).toMatchObject({ schoolYear: '2025-2026', status: 'approved', q: 'harbor', order: 'desc', page: 3, limit: 50 });
    expect(readPlanFilters(new URLSearchParams('status=lost&sort=nope&page=-2'), '2026-2027')).toMatchObject({
      schoolYear: '2026-2027',
      status: undefined,
      sort: undefined,
      order: 'asc',
      page: 1,
    });
  });
});

describe('the CSV export', () => {
  it('reads every page of the filtered list and writes one row per plan under a header', async () => {
    const stored = Array.from({ length: 450 }, (_, index) => plan(String(index)));
    const pages: number[] = [];
    const rows = await allPlans({ schoolYear: '2026-2027', page: 2, limit: 50 }, async (query) => {
      pages.push(query.page!);
      const start = (query.page! - 1) * query.limit!;
      return { forms: stored.slice(start, start + query.limit!), total: stored.length };
    });
    expect(pages).toEqual([1, 2, 3]);
    expect(rows).toHaveLength(450);
    const [header, first] = planExportRows([plan('x', { principalEmail: 'p@example.org', flagsToReview: 1 })]);
    expect(header![0]).toBe('School');
    expect(first).toEqual(['School x', '2026-2027', 'p@example.org', 'Submitted', 2, 1, '2026-11-20T10:00:00.000Z']);
    expect(planExportName({ schoolYear: '2026-2027', status: 'approved' })).toBe('plans-2026-2027-approved.csv');
  });
});

describe('reviewEach', () => {
  it('moves the plans in the expected status, skips the others and keeps each refusal as that plan’s outcome', async () => {
    const known = { a: plan('a'), b: plan('b', { status: 'approved' }), c: plan('c') };
    const moved: string[] = [];
    const outcomes = await reviewEach(
      ['a', 'b', 'c'],
      known,
      'submitted',
      'under_review',
      async (id) => {
        if (id === 'c') throw new Error('Not yours');
        moved.push(id);
      },
      (error) => (error as Error).message,
    );
    expect(moved).toEqual(['a']);
    expect(outcomes).toEqual([
      { plan: 'School a 2026-2027', ok: true, message: 'now under review' },
      { plan: 'School b 2026-2027', ok: false, message: 'skipped: it is approved' },
      { plan: 'School c 2026-2027', ok: false, message: 'Not yours' },
    ]);
  });
});
