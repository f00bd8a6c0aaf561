import { eq } from 'drizzle-orm';
import type { NeedsUpdateFlag } from '@csp/shared';
import type { DomainServices } from '../domainServices.ts';
import { plans } from '../../storage/schema.ts';
import { notFound } from '../../errors.ts';
import type { PlanContext } from './loadPlan.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { Authorized, Checks } from '../../policy/authorize.ts';

/**
 * "Mark reviewed": removes the question's flag (in one step when `stepKey` is given). The flags are
 * found under the plan's lock, so `editStep` of each one's step is checked there.
 */
export async function clearReviewFlag(
  services: DomainServices,
  caller: Caller,
  context: Authorized<PlanContext, 'changeAnswers'>,
  checks: Checks<'editStep'>,
  questionId: string,
  stepKey: string | undefined,
): Promise<{ cleared: NeedsUpdateFlag[]; needsUpdate: NeedsUpdateFlag[] }> {
  const matches = (flag: NeedsUpdateFlag) => flag.questionId === questionId && (stepKey === undefined || flag.stepKey === stepKey);
  // The row is re-read under a lock so two people marking different flags both land.
  return services.events.transaction(async (tx, record) => {
    const [plan] = await tx.select({ needsUpdate: plans.needsUpdate }).from(plans).where(eq(plans.id, context.plan.id)).for('update');
    const flags = plan?.needsUpdate ?? [];
    const cleared = flags.filter(matches);
    if (cleared.length === 0) throw notFound('No such review flag');
    for (const flag of cleared) checks.require('editStep', { plan: context, stepKey: flag.stepKey });
    const needsUpdate = flags.filter((flag) => !matches(flag));
    await tx.update(plans).set({ needsUpdate }).where(eq(plans.id, context.plan.id));
    await recordAudit(tx, caller, { action: 'plan.review-flag', targetType: 'plan', targetId: context.plan.id, summary: { cleared } });
    record({ type: 'plan.reviewFlagsCleared', formId: context.plan.id, cleared });
    return { cleared, needsUpdate };
  });
}
