import { eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { planSteps, users } from '../../storage/schema.ts';
import { can } from '../../policy/index.ts';
import { stepKeysOf } from '../questionBank/bankCatalog.ts';
import { listPlanShares } from '../sharing/listPlanShares.ts';
import type { PlanContext } from './loadPlan.ts';
import { loadThreads } from '../comments/threads.ts';

/** Everything the full plan shows: the steps the caller may read, every step's completion, collaborators, open threads the caller may read. */
export async function loadFullPlan({ storage, banks }: DomainServices, context: PlanContext) {
  const { plan, actor } = context;
  const db = storage.db;
  const [steps, activeComments, shares, [owner], bank] = await Promise.all([
    db.select().from(planSteps).where(eq(planSteps.formId, plan.id)),
    loadThreads(db, context, 'open'),
    listPlanShares(db, plan.id),
    plan.userId ? db.select({ _id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, plan.userId)) : Promise.resolve([]),
    banks.resolve(plan.questionBankVersion),
  ]);
  return {
    context,
    stepKeys: stepKeysOf(bank),
    readableSteps: steps.filter((step) => can(actor, 'readStep', { plan: context, stepKey: step.stepKey })),
    completedStepKeys: steps.filter((step) => step.completed).map((step) => step.stepKey),
    comments: activeComments,
    shares,
    owner: owner ?? null,
  };
}
export type FullPlanRows = Awaited<ReturnType<typeof loadFullPlan>>;
