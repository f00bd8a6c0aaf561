import { eq } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { plans } from '../../storage/schema.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';

export interface PlanAccessChange {
  set: Partial<typeof plans.$inferInsert>;
  action: string;
  before: unknown;
  after: unknown;
}

/**
 * Writes plan columns that decide who may do what, with their audit record, in one transaction;
 * then the plan's open connections are checked again on every process.
 */
export async function writePlanAccess(services: Services, caller: Caller, context: PlanContext, change: PlanAccessChange): Promise<void> {
  await services.storage.db.transaction(async (tx) => {
    await tx
      .update(plans)
      .set({ ...change.set, updatedAt: new Date() })
      .where(eq(plans.id, context.plan.id));
    await recordAudit(tx, caller, {
      action: change.action,
      targetType: 'plan',
      targetId: context.plan.id,
      summary: { before: change.before, after: change.after },
    });
  });
  services.realtime.accessChanged({ formId: context.plan.id });
}
