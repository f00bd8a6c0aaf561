import { eq } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { plans } from '../../storage/schema.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import { authorize } from '../../policy/index.ts';

/** The Super Admin's e-mail share (the route's guard): replaces the plan's `sharedWithEmails`. */
export async function setEmailShares(services: Services, caller: Caller, context: PlanContext, emails: string[]): Promise<string[]> {
  authorize(context.actor, 'writePlan', context);
  const sharedWithEmails = [...new Set(emails)];
  await services.storage.db.transaction(async (tx) => {
    await tx.update(plans).set({ sharedWithEmails, updatedAt: new Date() }).where(eq(plans.id, context.plan.id));
    await recordAudit(tx, caller, {
      action: 'plan.email-share',
      targetType: 'plan',
      targetId: context.plan.id,
      summary: { before: context.plan.sharedWithEmails, after: sharedWithEmails },
    });
  });
  services.events.accessChanged({ formId: context.plan.id });
  return sharedWithEmails;
}
