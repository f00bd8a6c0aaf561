import { LEVEL } from '@csp/shared';
import { and, eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { planSteps, plans, users } from '../../storage/schema.ts';
import { ensureYearSettings } from '../schoolYears/ensureYearSettings.ts';
import { newId } from '../../storage/ids.ts';
import { isUniqueViolation } from '../../storage/errors.ts';
import { invalidInput, conflict } from '../../errors.ts';
import { stepKeysOf } from '../questionBank/bankCatalog.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { Authorized } from '../../policy/authorize.ts';

export interface NewPlan {
  schoolName: string;
  schoolYear: string;
  initialOwnerEmail?: string | undefined;
}

/**
 * Creates a school's plan for a year: principals for their own school, Super Admins for any (with
 * an optional level-4 owner). The plan pins the year's bank version and gets one row per step.
 */
export async function createPlan(services: DomainServices, caller: Caller, input: Authorized<NewPlan, 'createPlans' | 'createPlanForSchool'>): Promise<string> {
  const actor = caller.auth.actor;
  const db = services.storage.db;

  const settings = await ensureYearSettings(db, services.banks, input.schoolYear);
  if (settings.archived) throw invalidInput(`The ${input.schoolYear} school year is archived`);

  let owner = actor;
  if (input.initialOwnerEmail !== undefined) {
    const [chosen] = await db.select().from(users).where(eq(users.email, input.initialOwnerEmail)).limit(1);
    if (!chosen || chosen.level !== LEVEL.principal || !chosen.isActive || chosen.isDemo)
      throw invalidInput('initialOwnerEmail must belong to an active principal (level 4)');
    owner = chosen;
  }
  // The school's principal signs the plan; a Super Admin owner still leaves the school's principal in charge.
  const principalEmail =
    owner.level === LEVEL.principal
      ? owner.email
      : ((
          await db
            .select({ email: users.email })
            .from(users)
            .where(and(eq(users.schoolName, input.schoolName), eq(users.level, 4), eq(users.isActive, true), eq(users.isDemo, false)))
            .limit(1)
        )[0]?.email ?? null);

  const bankVersion = settings.questionBankVersion;
  const stepKeys = stepKeysOf(bankVersion ? await services.banks.version(bankVersion) : null);
  const id = newId();
  try {
    await db.transaction(async (tx) => {
      await tx.insert(plans).values({
        id,
        schoolName: input.schoolName,
        schoolYear: input.schoolYear,
        userId: owner.id,
        principalEmail,
        questionBankVersion: bankVersion,
      });
      await tx.insert(planSteps).values(stepKeys.map((stepKey) => ({ formId: id, stepKey })));
      await recordAudit(tx, caller, {
        action: 'plan.create',
        targetType: 'plan',
        targetId: id,
        summary: { after: { schoolName: input.schoolName, schoolYear: input.schoolYear, ownerEmail: owner.email, principalEmail } },
      });
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const [existing] = await db
      .select({ id: plans.id })
      .from(plans)
      .where(and(eq(plans.schoolName, input.schoolName), eq(plans.schoolYear, input.schoolYear)))
      .limit(1);
    throw conflict(`${input.schoolName} already has a plan for ${input.schoolYear}`, { existingFormId: existing?.id ?? null });
  }
  return id;
}
