import { and, eq } from 'drizzle-orm';
import { LEVEL, type TransferRecord } from '@csp/shared';
import type { DomainServices } from '../domainServices.ts';
import { plans, users } from '../../storage/schema.ts';
import { invalidInput } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import type { PlanRow } from '../../storage/rows.ts';
import type { Authorized } from '../../policy/authorize.ts';

/** Principals who can receive a plan: active, level 4, not demo users. */
export function transferCandidates({ storage }: Pick<DomainServices, 'storage'>) {
  return storage.db
    .select({ _id: users.id, name: users.name, email: users.email, schoolName: users.schoolName })
    .from(users)
    .where(and(eq(users.level, 4), eq(users.isActive, true), eq(users.isDemo, false)))
    .orderBy(users.schoolName, users.email);
}

/** Super Admin: a new owner (an active principal) takes the plan; owner and principal fields follow, history grows. */
export async function transferOwnership(
  services: DomainServices,
  caller: Authorized<Caller, 'administerDistrict'>,
  context: Authorized<PlanContext, 'writePlan'>,
  newOwnerEmail: string,
): Promise<PlanRow> {
  const db = services.storage.db;
  const [newOwner] = await db.select().from(users).where(eq(users.email, newOwnerEmail)).limit(1);
  if (!newOwner || newOwner.level !== LEVEL.principal || !newOwner.isActive || newOwner.isDemo) {
    throw invalidInput('The new owner must be an active principal (level 4)');
  }
  const { plan } = context;
  const [previousOwner] = plan.userId ? await db.select({ email: users.email }).from(users).where(eq(users.id, plan.userId)).limit(1) : [];
  const record: TransferRecord = {
    fromUserId: plan.userId,
    fromEmail: previousOwner?.email ?? null,
    toUserId: newOwner.id,
    toEmail: newOwner.email,
    transferredBy: caller.auth.actor.email,
    transferredAt: new Date().toISOString(),
  };
  return services.events.transaction(async (tx, recordEvent) => {
    const [updated] = await tx
      .update(plans)
      .set({ userId: newOwner.id, principalEmail: newOwner.email, transferHistory: [...plan.transferHistory, record], updatedAt: new Date() })
      .where(eq(plans.id, plan.id))
      .returning();
    await recordAudit(tx, caller, {
      action: 'plan.transfer',
      targetType: 'plan',
      targetId: plan.id,
      summary: {
        before: { ownerEmail: record.fromEmail, principalEmail: plan.principalEmail },
        after: { ownerEmail: newOwner.email, principalEmail: newOwner.email },
      },
    });
    recordEvent({ type: 'plan.ownershipTransferred', formId: plan.id, transfer: record, by: { id: caller.auth.actor.id, name: caller.auth.actor.name } });
    return updated!;
  });
}
