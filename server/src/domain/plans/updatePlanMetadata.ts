import { eq } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { plans } from '../../storage/schema.ts';
import { isUniqueViolation } from '../../storage/errors.ts';
import { conflict } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from './loadPlan.ts';
import type { PlanRow } from '../../storage/rows.ts';
import { authorize } from '../../policy/index.ts';

export interface PlanMetadata {
  schoolName?: string | undefined;
  principalEmail?: string | undefined;
  assignedTo?: string | null | undefined;
}

/** Metadata only (school, principal, assignee): the school's principal or a Super Admin; status moves elsewhere. */
export async function updatePlanMetadata(services: Services, caller: Caller, context: PlanContext, changes: PlanMetadata): Promise<PlanRow> {
  authorize(context.actor, 'writePlan', context);
  authorize(caller.auth.actor, 'managePlan', context);
  if (changes.schoolName !== undefined && changes.schoolName !== context.plan.schoolName) authorize(caller.auth.actor, 'movePlanToSchool', context);
  const fields = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as PlanMetadata;
  try {
    const updated = await services.storage.db.transaction(async (tx) => {
      const [updated] = await tx
        .update(plans)
        .set({ ...fields, updatedAt: new Date() })
        .where(eq(plans.id, context.plan.id))
        .returning();
      const before = Object.fromEntries(Object.keys(fields).map((key) => [key, context.plan[key as keyof PlanMetadata]]));
      await recordAudit(tx, caller, { action: 'plan.update', targetType: 'plan', targetId: context.plan.id, summary: { before, after: fields } });
      return updated!;
    });
    services.realtime.accessChanged({ formId: context.plan.id });
    return updated;
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('That school already has a plan for this year');
    throw error;
  }
}
