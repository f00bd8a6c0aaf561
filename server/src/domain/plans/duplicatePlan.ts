import { and, eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { planVersions, planSteps, plans } from '../../storage/schema.ts';
import { invalidInput, conflict } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import { ensureYearSettings } from '../schoolYears/ensureYearSettings.ts';
import { copiedVersionOf } from '../history/planVersions.ts';
import { announceFills, buildPlanCopy, fillPlanFromSource, type YearCopyTarget } from './planCopy.ts';
import type { PlanContext } from './loadPlan.ts';
import type { Authorized } from '../../policy/authorize.ts';

export interface DuplicateResult {
  formId: string;
  created: boolean;
}

/**
 * Copies a plan into another school year (level 4+ who can edit it). When the school already has
 * a plan there: 409 with its id, or with `force` a fill-only merge into it.
 */
export async function duplicatePlan(
  services: DomainServices,
  caller: Caller,
  context: Authorized<PlanContext, 'duplicatePlan'>,
  schoolYear: string,
  force: boolean,
): Promise<DuplicateResult> {
  const { plan: source } = context;
  if (schoolYear === source.schoolYear) throw invalidInput('Choose a different school year to copy into');
  const db = services.storage.db;
  const settings = await ensureYearSettings(db, services.banks, schoolYear);
  if (settings.archived) throw invalidInput(`The ${schoolYear} school year is archived`);
  const target: YearCopyTarget = { schoolYear, bankVersion: settings.questionBankVersion, bank: await services.banks.resolve(settings.questionBankVersion) };
  const sourceBank = source.questionBankVersion ? await services.banks.version(source.questionBankVersion) : null;
  const sourceSteps = await db.select().from(planSteps).where(eq(planSteps.formId, source.id));

  const outcome = await db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(plans)
      .where(and(eq(plans.schoolName, source.schoolName), eq(plans.schoolYear, schoolYear)))
      .for('update');
    if (existing && !force) throw conflict(`${source.schoolName} already has a plan for ${schoolYear}`, { existingFormId: existing.id });
    if (existing) {
      const fills = await fillPlanFromSource(tx, existing, sourceSteps, sourceBank, target, caller.auth.actor.id);
      await recordAudit(tx, caller, {
        action: 'plan.duplicate.fill',
        targetType: 'plan',
        targetId: existing.id,
        summary: { sourceFormId: source.id, filled: fills.map((fill) => ({ stepKey: fill.step.key, questions: Object.keys(fill.filled).length })) },
      });
      return { formId: existing.id, created: false, fills };
    }
    const copy = buildPlanCopy(source, sourceSteps, sourceBank, target);
    await tx.insert(plans).values(copy.plan);
    await tx.insert(planSteps).values(copy.steps);
    await tx.insert(planVersions).values(copiedVersionOf(copy.plan.id, copy.steps, caller.auth.actor));
    await recordAudit(tx, caller, {
      action: 'plan.duplicate',
      targetType: 'plan',
      targetId: copy.plan.id,
      summary: { sourceFormId: source.id, sourceYear: source.schoolYear, schoolYear, flags: copy.plan.needsUpdate?.length ?? 0 },
    });
    return { formId: copy.plan.id, created: true, fills: [] };
  });
  announceFills(services, outcome.formId, caller.auth.actor, outcome.fills);
  return { formId: outcome.formId, created: outcome.created };
}
