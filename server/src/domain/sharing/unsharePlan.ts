import { and, eq, inArray } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { planShares } from '../../storage/schema.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import { authorize } from '../../policy/index.ts';

/** Removes shares; returns the ids that had one. */
export async function unsharePlan(services: Services, caller: Caller, context: PlanContext, userIds: string[]): Promise<string[]> {
  authorize(caller.auth.actor, 'sharePlan', context);
  const removed = await services.storage.db.transaction(async (tx) => {
    const removed = await tx
      .delete(planShares)
      .where(and(eq(planShares.formId, context.plan.id), inArray(planShares.userId, userIds)))
      .returning({ userId: planShares.userId });
    await recordAudit(tx, caller, {
      action: 'plan.unshare',
      targetType: 'plan',
      targetId: context.plan.id,
      summary: { userIds: removed.map((r) => r.userId) },
    });
    return removed.map((r) => r.userId);
  });
  services.realtime.accessChanged({ formId: context.plan.id });
  return removed;
}
