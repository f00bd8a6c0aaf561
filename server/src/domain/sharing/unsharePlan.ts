import { and, eq, inArray } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { planShares } from '../../storage/schema.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import type { Authorized } from '../../policy/authorize.ts';

/** Removes shares; returns the ids that had one. */
export async function unsharePlan(
  services: DomainServices,
  caller: Caller,
  context: Authorized<PlanContext, 'sharePlan'>,
  userIds: string[],
): Promise<string[]> {
  return services.events.transaction(async (tx, record) => {
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
    record({ type: 'plan.unshared', formId: context.plan.id, userIds: removed.map((r) => r.userId) });
    return removed.map((r) => r.userId);
  });
}
