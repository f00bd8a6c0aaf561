import { asc, eq, inArray } from 'drizzle-orm';
import { COMPARE_STEP_KEYS, answerAsText, isActive } from '@csp/shared';
import { toCsv } from '@csp/shared/csv';
import type { BaseDomainServices } from '../domainServices.ts';
import { planSteps, plans, users } from '../../storage/schema.ts';
import { alias } from 'drizzle-orm/pg-core';

const principals = alias(users, 'principals');

/**
 * One row per plan of the year: school, principal, e-mail, status, year, then one column per
 * active question of the attendance, temporary housing and counseling steps of the year's bank.
 */
export async function yearReportCsv({ storage, banks }: BaseDomainServices, schoolYear: string): Promise<string> {
  const db = storage.db;
  const rows = await db
    .select({ plan: plans, principalName: principals.name })
    .from(plans)
    .leftJoin(principals, eq(principals.email, plans.principalEmail))
    .where(eq(plans.schoolYear, schoolYear))
    .orderBy(asc(plans.schoolName));
  const bank = await banks.resolve(await banks.versionForYear(schoolYear));
  const columns = bank.steps
    .filter((step) => (COMPARE_STEP_KEYS as readonly string[]).includes(step.key))
    .flatMap((step) => step.questions.filter(isActive).map((question) => ({ step, question })));
  const steps = rows.length
    ? await db
        .select()
        .from(planSteps)
        .where(
          inArray(
            planSteps.formId,
            rows.map((row) => row.plan.id),
          ),
        )
    : [];
  const answers = new Map(steps.map((step) => [`${step.formId}:${step.stepKey}`, step.data]));

  const header = ['School', 'Principal', 'E-mail', 'Status', 'Year', ...columns.map(({ question }) => `${question.number} ${question.title}`)];
  const body = rows.map(({ plan, principalName }) => [
    plan.schoolName,
    principalName ?? '',
    plan.principalEmail ?? '',
    plan.status,
    plan.schoolYear,
    ...columns.map(({ step, question }) => answerAsText(question, answers.get(`${plan.id}:${step.key}`)?.[question.id])),
  ]);
  return toCsv([header, ...body]);
}
