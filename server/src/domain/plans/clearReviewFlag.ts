import { eq } from 'drizzle-orm';
import type { NeedsUpdateFlag } from '@csp/shared';
import type { Services } from '../../services.ts';
import { plans } from '../../storage/schema.ts';
import { notFound } from '../../errors.ts';
import type { PlanContext } from './loadPlan.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import { authorize } from '../../policy/index.ts';

/** "Mark reviewed": removes the question's flag (in one step when `stepKey` is given). */
export async function clearReviewFlag(
  services: Services,
  caller: Caller,
  context: PlanContext,
  questionId: string,
  stepKey: string | undefined,
): Promise<{ cleared: NeedsUpdateFlag[]; needsUpdate: NeedsUpdateFlag[] }> {
  authorize(context.actor, 'changeAnswers', context);
  const matches = (flag: NeedsUpdateFlag) => flag.questionId === questionId && (stepKey === undefined || flag.stepKey === stepKey);
  // The row is re-read under a lock so two people marking different flags both land.
  const result = await services.storage.db.transaction(async (tx) => {
    const [plan] = await tx.select({ needsUpdate: plans.needsUpdate }).from(plans).where(eq(plans.id, context.plan.id)).for('update');
    const flags = plan?.needsUpdate ?? [];
    const cleared = flags.filter(matches);
    if (cleared.length === 0) throw notFound('No such review flag');
    for (const flag of cleared) authorize(caller.auth.actor, 'editStep', { plan: context, stepKey: flag.stepKey });
    const needsUpdate = flags.filter((flag) => !matches(flag));
    await tx.update(plans).set({ needsUpdate }).where(eq(plans.id, context.plan.id));
    await recordAudit(tx, caller, { action: 'plan.review-flag', targetType: 'plan', targetId: context.plan.id, summary: { cleared } });
    return { cleared, needsUpdate };
  });
  for (const flag of result.cleared) services.realtime.toPlan(context.plan.id, 'flag', { stepKey: flag.stepKey, questionId: flag.questionId });
  return result;
}
