import type { Services } from '../../services.ts';
import type { Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import { authorize } from '../../policy/index.ts';
import { writePlanAccess } from './writePlanAccess.ts';

/** The Super Admin's e-mail share (the route's guard): replaces the plan's `sharedWithEmails`. */
export async function setEmailShares(services: Services, caller: Caller, context: PlanContext, emails: string[]): Promise<string[]> {
  authorize(context.actor, 'writePlan', context);
  const sharedWithEmails = [...new Set(emails)];
  await writePlanAccess(services, caller, context, {
    set: { sharedWithEmails },
    action: 'plan.email-share',
    before: context.plan.sharedWithEmails,
    after: sharedWithEmails,
  });
  return sharedWithEmails;
}
