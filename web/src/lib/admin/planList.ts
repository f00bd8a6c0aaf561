import { currentSchoolYear, PLAN_STATUSES, type PlanStatus } from '@csp/shared';
import { PLAN_SORTS, type ListFormsQuery, type PlanSort, type PlanListItem } from '@csp/shared/api/forms';
import { statusLabel } from '#lib/format.ts';

/** Rows a page of the admin plan list shows. */
export const PLAN_PAGE_SIZE = 50;
/** Rows each request of the CSV export reads. */
const EXPORT_PAGE_SIZE = 200;

/** The list's dialogs, one open at a time for one plan. */
export type PlanDialog = 'review' | 'transfer' | 'share' | 'email' | 'delete';

/** The list's request, with what the page always sends. */
export type PlanFilters = ListFormsQuery & { schoolYear: string; order: 'asc' | 'desc'; page: number };

/** The plan list's view, as the address holds it: anything unknown in it is ignored. */
export function readPlanFilters(params: { get(name: string): string | null }, thisYear = currentSchoolYear()): PlanFilters {
  const status = params.get('status') ?? '';
  const sort = params.get('sort') ?? '';
  const q = params.get('q') ?? '';
  return {
    schoolYear: params.get('year') ?? thisYear,
    status: (PLAN_STATUSES as readonly string[]).includes(status) ? (status as PlanStatus) : undefined,
    q: q || undefined,
    sort: (PLAN_SORTS as readonly string[]).includes(sort) ? (sort as PlanSort) : undefined,
    order: params.get('order') === 'desc' ? 'desc' : 'asc',
    page: Math.max(1, Number(params.get('page')) || 1),
    limit: PLAN_PAGE_SIZE,
  };
}

/** Every plan the filters match, read a large page at a time (the export's rows, whatever page is shown). */
export async function allPlans(
  filters: ListFormsQuery,
  list: (query: ListFormsQuery) => Promise<{ forms: PlanListItem[]; total: number }>,
): Promise<PlanListItem[]> {
  const rows: PlanListItem[] = [];
  for (let page = 1; ; page++) {
    const answer = await list({ ...filters, page, limit: EXPORT_PAGE_SIZE });
    rows.push(...answer.forms);
    if (rows.length >= answer.total || answer.forms.length === 0) return rows;
  }
}

/** The export's table: a header row, then one row per plan. */
export function planExportRows(plans: PlanListItem[]): (string | number)[][] {
  return [
    ['School', 'School year', 'Principal', 'Status', 'Steps complete', 'Review flags', 'Last edit'],
    ...plans.map((plan) => [
      plan.schoolName,
      plan.schoolYear,
      plan.principalEmail ?? '',
      statusLabel(plan.status),
      plan.completedSteps.length,
      plan.flagsToReview,
      plan.updatedAt,
    ]),
  ];
}

/** The export's file name: the year, and the status when the list is filtered by one. */
export const planExportName = (filters: ListFormsQuery) => `plans-${filters.schoolYear}${filters.status ? `-${filters.status}` : ''}.csv`;

export interface ReviewOutcome {
  plan: string;
  ok: boolean;
  message: string;
}

/**
 * Moves each chosen plan from `from` to `to`, one after another: a plan known to be in another
 * status is skipped, and a refusal is kept as that plan's outcome rather than stopping the rest.
 */
export async function reviewEach(
  ids: string[],
  known: Record<string, PlanListItem>,
  from: PlanStatus,
  to: PlanStatus,
  review: (id: string, status: PlanStatus) => Promise<unknown>,
  reason: (error: unknown) => string,
): Promise<ReviewOutcome[]> {
  const outcomes: ReviewOutcome[] = [];
  for (const id of ids) {
    const plan = known[id];
    const name = plan ? `${plan.schoolName} ${plan.schoolYear}` : id;
    if (plan && plan.status !== from) {
      outcomes.push({ plan: name, ok: false, message: `skipped: it is ${statusLabel(plan.status).toLowerCase()}` });
      continue;
    }
    try {
      await review(id, to);
      outcomes.push({ plan: name, ok: true, message: `now ${statusLabel(to).toLowerCase()}` });
    } catch (error) {
      outcomes.push({ plan: name, ok: false, message: reason(error) });
    }
  }
  return outcomes;
}
