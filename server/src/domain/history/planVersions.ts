import { and, desc, eq } from 'drizzle-orm';
import type { PlanStatus, StepAnswers } from '@csp/shared';
import type { VersionKind } from '@csp/shared/api/history';
import type { Database } from '../../storage/database.ts';
import { planSteps, planVersions, plans } from '../../storage/schema.ts';
import type { PlanVersionRow } from '../../storage/rows.ts';
import { newId } from '../../storage/ids.ts';
import { notFound } from '../../errors.ts';
import type { EventSubscriber } from '../../events/dispatcher.ts';
import type { Writer } from '../events.ts';

/** The version a status move takes; moves into a draft take none. */
const VERSION_OF_STATUS: Partial<Record<PlanStatus, VersionKind>> = {
  submitted: 'submitted',
  under_review: 'under_review',
  approved: 'approved',
  rejected: 'returned',
};

type StepSnapshot = Record<string, { data: StepAnswers; completed: boolean }>;

const snapshotOf = (steps: { stepKey: string; data: StepAnswers; completed: boolean }[]): StepSnapshot =>
  Object.fromEntries(steps.map((step) => [step.stepKey, { data: step.data, completed: step.completed }]));

/** Takes a version of the plan as the transaction sees it now. */
async function takePlanVersion(tx: Database, formId: string, kind: VersionKind, by: Writer | null, comment: string | null): Promise<string> {
  const steps = await tx
    .select({ stepKey: planSteps.stepKey, data: planSteps.data, completed: planSteps.completed })
    .from(planSteps)
    .where(eq(planSteps.formId, formId));
  const [plan] = await tx.select({ attestation: plans.attestation }).from(plans).where(eq(plans.id, formId)).limit(1);
  const id = newId();
  await tx.insert(planVersions).values({
    id,
    formId,
    kind,
    actorId: by?.id ?? null,
    actorName: by?.name ?? 'The district',
    comment,
    steps: snapshotOf(steps),
    attestation: plan?.attestation ?? null,
  });
  return id;
}

/** The version a copy begins with (duplicate or rollover): its answers as copied from last year. */
export function copiedVersionOf(
  formId: string,
  steps: { stepKey: string; data?: StepAnswers | undefined; completed?: boolean | undefined }[],
  by: Writer,
): typeof planVersions.$inferInsert {
  return {
    id: newId(),
    formId,
    kind: 'copied',
    actorId: by.id,
    actorName: by.name,
    comment: null,
    steps: snapshotOf(steps.map((step) => ({ stepKey: step.stepKey, data: step.data ?? {}, completed: step.completed ?? false }))),
    attestation: null,
  };
}

/** Every decision on a plan takes a version, in the decision's transaction: it exists exactly when the decision does. */
export const planVersionsOnDecisions: EventSubscriber = {
  name: 'plan versions',
  inTransaction: {
    'plan.statusChanged': async ({ plan, to, comment, by }, tx) => {
      const kind = VERSION_OF_STATUS[to];
      if (kind) await takePlanVersion(tx, plan.id, kind, by, comment?.trim() || null);
    },
  },
};

/** A plan's versions, newest first (without their answers). */
export function listPlanVersions(db: Database, formId: string) {
  return db
    .select({
      id: planVersions.id,
      kind: planVersions.kind,
      actorName: planVersions.actorName,
      comment: planVersions.comment,
      createdAt: planVersions.createdAt,
    })
    .from(planVersions)
    .where(eq(planVersions.formId, formId))
    .orderBy(desc(planVersions.createdAt), desc(planVersions.id));
}

/** One version of a plan; 404 when the plan has no such version. */
export async function loadPlanVersion(db: Database, formId: string, versionId: string): Promise<PlanVersionRow> {
  const [version] = await db
    .select()
    .from(planVersions)
    .where(and(eq(planVersions.formId, formId), eq(planVersions.id, versionId)))
    .limit(1);
  if (!version) throw notFound('Version not found');
  return version;
}
