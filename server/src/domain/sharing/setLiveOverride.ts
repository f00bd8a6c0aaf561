import { eq } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { plans } from '../../storage/schema.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';

/** Super Admin (the route's guard): makes one plan of an archived year editable (`live: true`) or read-only again. */
export async function setLiveOverride(services: Services, caller: Caller, context: PlanContext, live: boolean): Promise<void> {
  await services.storage.db.transaction(async (tx) => {
    await tx.update(plans).set({ allowEditsWhenArchived: live, updatedAt: new Date() }).where(eq(plans.id, context.plan.id));
    await recordAudit(tx, caller, {
      action: 'plan.live-override',
      targetType: 'plan',
      targetId: context.plan.id,
      summary: { before: context.plan.allowEditsWhenArchived, after: live },
    });
  });
  services.events.accessChanged({ formId: context.plan.id });
}
