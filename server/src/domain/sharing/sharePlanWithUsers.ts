import { inArray } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { planShares, users } from '../../storage/schema.ts';
import { invalidInput } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import { stepKeysOf } from '../questionBank/bankCatalog.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import type { Authorized } from '../../policy/authorize.ts';

/** Shares (or re-shares) a plan with users: `view` or `edit`, limited to `sections` (empty: every step). */
export async function sharePlanWithUsers(
  services: DomainServices,
  caller: Caller,
  context: Authorized<PlanContext, 'sharePlan' | 'writePlan'>,
  input: { userIds: string[]; permissions: 'view' | 'edit'; sections: string[] },
): Promise<string[]> {
  const stepKeys = stepKeysOf(await services.banks.resolve(context.plan.questionBankVersion));
  const unknown = input.sections.filter((key) => !stepKeys.includes(key));
  if (unknown.length) throw invalidInput(`Unknown sections: ${unknown.join(', ')}`);
  const ids = [...new Set(input.userIds)];
  const found = await services.storage.db.select({ id: users.id }).from(users).where(inArray(users.id, ids));
  const missing = ids.filter((id) => !found.some((user) => user.id === id));
  if (missing.length) throw invalidInput(`Unknown users: ${missing.join(', ')}`);

  await services.events.transaction(async (tx, record) => {
    await tx
      .insert(planShares)
      .values(
        ids.map((userId) => ({ formId: context.plan.id, userId, permission: input.permissions, sections: input.sections, sharedBy: caller.auth.actor.id })),
      )
      .onConflictDoUpdate({
        target: [planShares.formId, planShares.userId],
        set: { permission: input.permissions, sections: input.sections, sharedBy: caller.auth.actor.id },
      });
    await recordAudit(tx, caller, {
      action: 'plan.share',
      targetType: 'plan',
      targetId: context.plan.id,
      summary: { userIds: ids, permissions: input.permissions, sections: input.sections },
    });
    const by = { id: caller.auth.actor.id, name: caller.auth.actor.name };
    record({ type: 'plan.sharedWithUsers', formId: context.plan.id, userIds: ids, permission: input.permissions, sections: input.sections, by });
  });
  return ids;
}
