import type { DomainServices } from '../domainServices.ts';
import type { Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import type { Authorized } from '../../policy/authorize.ts';
import { writePlanAccess } from './writePlanAccess.ts';

/** The Super Admin's e-mail share: replaces the plan's `sharedWithEmails`. */
export async function setEmailShares(
  services: DomainServices,
  caller: Authorized<Caller, 'administerDistrict'>,
  context: Authorized<PlanContext, 'writePlan'>,
  emails: string[],
): Promise<string[]> {
  const sharedWithEmails = [...new Set(emails)];
  await writePlanAccess(services, caller, context, {
    set: { sharedWithEmails },
    action: 'plan.email-share',
    before: context.plan.sharedWithEmails,
    after: sharedWithEmails,
    event: {
      type: 'plan.emailSharesSet',
      formId: context.plan.id,
      emails: sharedWithEmails,
      added: sharedWithEmails.filter((email) => !context.plan.sharedWithEmails.includes(email)),
      by: { id: caller.auth.actor.id, name: caller.auth.actor.name },
    },
  });
  return sharedWithEmails;
}
