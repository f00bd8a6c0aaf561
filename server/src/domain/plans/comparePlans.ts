import { and, eq } from 'drizzle-orm';
import { COMPARE_STEP_KEYS, answerAsText, isActive, previousSchoolYear } from '@csp/shared';
import type { CompareResponse } from '@csp/shared/api/forms';
import type { DomainServices } from '../domainServices.ts';
import { planSteps, plans, schoolYearSettings } from '../../storage/schema.ts';
import { can } from '../../policy/index.ts';
import type { PlanContext } from './loadPlan.ts';

const answersOf = async (services: DomainServices, formId: string | undefined) => {
  if (!formId) return new Map<string, Record<string, unknown>>();
  const rows = await services.storage.db.select({ stepKey: planSteps.stepKey, data: planSteps.data }).from(planSteps).where(eq(planSteps.formId, formId));
  return new Map(rows.map((row) => [row.stepKey, row.data as Record<string, unknown>]));
};

/**
 * This plan against the same school's plan of another year (the previous by default), question
 * by question, with values normalised as text; the attendance, temporary housing and counseling
 * steps unless every step is asked for.
 */
export async function comparePlans(
  services: DomainServices,
  context: PlanContext,
  compareYear: string | undefined,
  allSteps: boolean,
): Promise<CompareResponse> {
  const { plan, actor } = context;
  const year = compareYear ?? previousSchoolYear(plan.schoolYear);
  const db = services.storage.db;
  const [[previous], [settings], bank] = await Promise.all([
    db
      .select({ id: plans.id })
      .from(plans)
      .where(and(eq(plans.schoolName, plan.schoolName), eq(plans.schoolYear, year)))
      .limit(1),
    db.select({ districtGoals: schoolYearSettings.districtGoals }).from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, plan.schoolYear)).limit(1),
    services.banks.resolve(plan.questionBankVersion),
  ]);
  const [current, before] = await Promise.all([answersOf(services, plan.id), answersOf(services, previous?.id)]);
  const steps = bank.steps.filter(
    (step) => (allSteps || (COMPARE_STEP_KEYS as readonly string[]).includes(step.key)) && can(actor, 'readStep', { plan: context, stepKey: step.key }),
  );
  const rows = steps.flatMap((step) =>
    step.questions.filter(isActive).map((question) => {
      const previousValue = answerAsText(question, before.get(step.key)?.[question.id] as never);
      const currentValue = answerAsText(question, current.get(step.key)?.[question.id] as never);
      return {
        stepKey: step.key,
        stepTitle: step.title,
        questionId: question.id,
        questionNumber: question.number,
        title: question.title,
        previousValue,
        currentValue,
        changed: previousValue !== currentValue,
      };
    }),
  );
  return {
    schoolName: plan.schoolName,
    currentYear: plan.schoolYear,
    compareYear: year,
    currentFormId: plan.id,
    previousFormId: previous?.id ?? null,
    districtGoals: settings?.districtGoals ?? [],
    rows,
    changedCount: rows.filter((row) => row.changed).length,
  };
}
