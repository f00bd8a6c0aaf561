import { eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { plans } from '../../storage/schema.ts';
import { isUniqueViolation } from '../../storage/errors.ts';
import { conflict } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from './loadPlan.ts';
import type { PlanRow } from '../../storage/rows.ts';
import type { Authorized } from '../../policy/authorize.ts';

export interface PlanMetadata {
  schoolName?: string | undefined;
  principalEmail?: string | undefined;
  assignedTo?: string | null | undefined;
}

/**
 * Metadata only (school, principal, assignee): the school's principal or a Super Admin; status
 * moves elsewhere. The entry point also authorizes `movePlanToSchool` for a move to another school.
 */
export async function updatePlanMetadata(
  services: DomainServices,
  caller: Caller,
  context: Authorized<PlanContext, 'writePlan' | 'managePlan'>,
  changes: PlanMetadata,
): Promise<PlanRow> {
  const fields = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as PlanMetadata;
  try {
    return await services.events.transaction(async (tx, record) => {
      const [updated] = await tx
        .update(plans)
        .set({ ...fields, updatedAt: new Date() })
        .where(eq(plans.id, context.plan.id))
        .returning();
      const before = Object.fromEntries(Object.keys(fields).map((key) => [key, context.plan[key as keyof PlanMetadata]]));
      await recordAudit(tx, caller, { action: 'plan.update', targetType: 'plan', targetId: context.plan.id, summary: { before, after: fields } });
      record({ type: 'plan.detailsChanged', formId: context.plan.id, changes: fields });
      return updated!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('That school already has a plan for this year');
    throw error;
  }
}
