import { and, asc, eq, ne } from 'drizzle-orm';
import type { FullPlan } from '@csp/shared/api/forms';
import type { Services } from '../../services.ts';
import { comments, planShares, planSteps, users } from '../../storage/schema.ts';
import { canReadStep } from '../../policy/plans.ts';
import { stepKeysOf } from '../questionBank/bankCatalog.ts';
import { completedStepsOf, presentPlanSummary, presentStep, presentUserPermission } from '../../presenters/plan.ts';
import { presentComment } from '../../presenters/comment.ts';
import type { PlanContext } from './loadPlan.ts';

/** The full plan: answers of the steps the caller may read, permissions, collaborators, active comments. */
export async function readFullPlan({ storage, banks }: Services, context: PlanContext): Promise<FullPlan> {
  const { plan, access } = context;
  const db = storage.db;
  const [steps, activeComments, shares, [owner], bank] = await Promise.all([
    db.select().from(planSteps).where(eq(planSteps.formId, plan.id)),
    db
      .select()
      .from(comments)
      .where(and(eq(comments.formId, plan.id), ne(comments.status, 'fixed')))
      .orderBy(asc(comments.createdAt)),
    db
      .select({ userId: users.id, name: users.name, email: users.email, level: users.level, permissions: planShares.permission, sections: planShares.sections })
      .from(planShares)
      .innerJoin(users, eq(users.id, planShares.userId))
      .where(eq(planShares.formId, plan.id)),
    plan.userId ? db.select({ _id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, plan.userId)) : Promise.resolve([]),
    banks.resolve(plan.questionBankVersion),
  ]);
  const stepKeys = stepKeysOf(bank);
  const formData = Object.fromEntries(steps.filter((step) => canReadStep(access, step.stepKey)).map((step) => [step.stepKey, presentStep(step)]));
  return {
    ...presentPlanSummary(
      plan,
      completedStepsOf(
        stepKeys,
        steps.filter((s) => s.completed).map((s) => s.stepKey),
      ),
      context.yearArchived,
    ),
    formData,
    stepKeys: [...stepKeys],
    userPermission: presentUserPermission(access, context.writable),
    collaborationInfo: {
      owner: owner ?? null,
      principalEmail: plan.principalEmail,
      assignedTo: plan.assignedTo,
      sharedWithEmails: plan.sharedWithEmails,
      shares,
    },
    comments: activeComments.map(presentComment),
  };
}
