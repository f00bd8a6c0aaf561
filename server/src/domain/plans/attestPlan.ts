import { eq } from 'drizzle-orm';
import type { Attestation } from '@csp/shared';
import type { Services } from '../../services.ts';
import { plans } from '../../storage/schema.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from './loadPlan.ts';
import { authorize } from '../../policy/index.ts';

/** The plan's own principal signs it (never another school's principal). */
export async function attestPlan(services: Services, caller: Caller, context: PlanContext, name: string): Promise<Attestation> {
  authorize(context.actor, 'writePlan', context);
  authorize(caller.auth.actor, 'attestPlan', context);
  const attestation: Attestation = { confirmed: true, name, signedAt: new Date().toISOString(), signedBy: caller.auth.actor.email };
  await services.storage.db.transaction(async (tx) => {
    await tx.update(plans).set({ attestation, updatedAt: new Date() }).where(eq(plans.id, context.plan.id));
    await recordAudit(tx, caller, {
      action: 'plan.attest',
      targetType: 'plan',
      targetId: context.plan.id,
      summary: { after: { name, signedBy: attestation.signedBy } },
    });
  });
  return attestation;
}
