import { eq, like } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { collabUpdates, plans } from '../../storage/schema.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from './loadPlan.ts';
import type { Authorized } from '../../policy/authorize.ts';

/** Super Admin only; steps, shares, comments and documents go with the plan. */
export async function deletePlan(services: DomainServices, caller: Authorized<Caller, 'administerDistrict'>, context: PlanContext): Promise<void> {
  const { plan } = context;
  await services.events.transaction(async (tx, record) => {
    await tx.delete(plans).where(eq(plans.id, plan.id));
    // The write-ahead has no foreign key (an append must never wait on one): its rows go by name.
    await tx.delete(collabUpdates).where(like(collabUpdates.name, `plan:${plan.id}:%`));
    await recordAudit(tx, caller, {
      action: 'plan.delete',
      targetType: 'plan',
      targetId: plan.id,
      summary: { before: { schoolName: plan.schoolName, schoolYear: plan.schoolYear, status: plan.status } },
    });
    record({ type: 'plan.deleted', formId: plan.id });
  });
}
