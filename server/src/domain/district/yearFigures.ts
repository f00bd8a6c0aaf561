import { eq, sql } from 'drizzle-orm';
import { PLAN_STATUSES, PRINCIPAL_LETTER_KEY } from '@csp/shared';
import type { YearFigures } from '@csp/shared/api/reports';
import type { BaseDomainServices } from '../domainServices.ts';
import { planSteps, plans, schoolYearSettings } from '../../storage/schema.ts';
import { countRows } from '../../storage/paging.ts';
import { notStartedOfYear } from './planStarted.ts';

/**
 * A year across the district: plans by status, how many plans completed each step, how many plans
 * nobody has started (planStarted.ts), each deadline with the plans still missing its step (and
 * those that passed). Counted in the database, so it stays cheap at 1,600 schools.
 */
export async function yearFigures({ storage, banks }: BaseDomainServices, schoolYear: string, today = new Date()): Promise<YearFigures> {
  const db = storage.db;
  const ofYear = eq(plans.schoolYear, schoolYear);
  const [statusRows, stepRows, notStartedCount, [settings], bank] = await Promise.all([
    db
      .select({ status: plans.status, count: sql<number>`count(*)::int` })
      .from(plans)
      .where(ofYear)
      .groupBy(plans.status),
    db
      .select({ stepKey: planSteps.stepKey, completed: sql<number>`(count(*) filter (where ${planSteps.completed}))::int` })
      .from(planSteps)
      .innerJoin(plans, eq(plans.id, planSteps.formId))
      .where(ofYear)
      .groupBy(planSteps.stepKey),
    countRows(db, plans, notStartedOfYear(schoolYear)),
    db.select({ deadlines: schoolYearSettings.deadlines }).from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, schoolYear)).limit(1),
    banks.resolve(await banks.versionForYear(schoolYear)),
  ]);
  const planCount = statusRows.reduce((sum, row) => sum + row.count, 0);
  const completed = new Map(stepRows.map((row) => [row.stepKey, row.completed]));
  const todayIso = today.toISOString().slice(0, 10);
  const deadlines = (settings?.deadlines ?? [])
    .map((deadline) => ({ ...deadline, plansNotComplete: planCount - (completed.get(deadline.stepKey) ?? 0) }))
    .sort((a, b) => a.dueDate.localeCompare(b.dueDate));
  return {
    schoolYear,
    planCount,
    byStatus: PLAN_STATUSES.map((status) => ({ status, count: statusRows.find((row) => row.status === status)?.count ?? 0 })),
    completionByStep: bank.steps
      .filter((step) => step.key !== PRINCIPAL_LETTER_KEY)
      .map((step) => ({ stepKey: step.key, title: step.title, completed: completed.get(step.key) ?? 0, total: planCount })),
    notStartedCount,
    overdue: deadlines.filter((deadline) => deadline.dueDate < todayIso && deadline.plansNotComplete > 0),
    deadlines,
  };
}
