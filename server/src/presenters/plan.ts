import { PRINCIPAL_LETTER_KEY } from '@csp/shared';
import type { FullPlan, PlanListItem, PlanSummary, StepResponse, StoredStep, UserPermission } from '@csp/shared/api/forms';
import type { FullPlanRows } from '../domain/plans/loadFullPlan.ts';
import { presentComment } from './comment.ts';
import { planAbilitiesOf } from '../policy/index.ts';
import type { PlanContext } from '../domain/plans/loadPlan.ts';
import type { planSteps } from '../storage/schema.ts';
import type { PlanRow } from '../storage/rows.ts';

type StepRow = Pick<typeof planSteps.$inferSelect, 'stepKey' | 'completed' | 'data' | 'revisionCount' | 'lastUpdated'>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** Completed steps in bank order, never counting the principal's letter. */
export function completedStepsOf(stepKeys: readonly string[], completed: Iterable<string>): string[] {
  const done = new Set(completed);
  return stepKeys.filter((key) => key !== PRINCIPAL_LETTER_KEY && done.has(key));
}

/** The plan fields every payload carries (list payloads omit `formData`). */
export function presentPlanSummary(plan: PlanRow, completedSteps: string[], yearArchived: boolean): PlanSummary {
  return {
    _id: plan.id,
    schoolName: plan.schoolName,
    schoolYear: plan.schoolYear,
    status: plan.status,
    completedSteps,
    locked: yearArchived,
    userId: plan.userId,
    principalEmail: plan.principalEmail,
    assignedTo: plan.assignedTo,
    sharedWithEmails: plan.sharedWithEmails,
    needsUpdate: plan.needsUpdate,
    attestation: plan.attestation,
    transferHistory: plan.transferHistory,
    notificationSent: plan.notificationSent,
    allowEditsWhenArchived: plan.allowEditsWhenArchived,
    questionBankVersion: plan.questionBankVersion,
    copiedFromId: plan.copiedFromId,
    reviewComment: plan.reviewComment,
    reviewedAt: iso(plan.reviewedAt),
    submittedAt: iso(plan.submittedAt),
    createdAt: plan.createdAt.toISOString(),
    updatedAt: plan.updatedAt.toISOString(),
  };
}

/** A plan in a light list: the summary with counts in place of its review flags and transfer history. */
export function presentPlanListItem(plan: PlanRow, completedSteps: string[], yearArchived: boolean, openComments: number): PlanListItem {
  const { needsUpdate, transferHistory: _transferHistory, ...summary } = presentPlanSummary(plan, completedSteps, yearArchived);
  return { ...summary, flagsToReview: needsUpdate.length, openComments };
}

function presentStep(step: StepRow): StoredStep {
  return { completed: step.completed, data: step.data, revisionCount: step.revisionCount, lastUpdated: iso(step.lastUpdated) };
}

/**
 * One step as GET and PUT /api/forms/:id/step/:n answer it: the stored step (null: a step added to
 * the bank after the plan was created, nothing stored yet) and, after a save, its conflicts and
 * warnings when there are any.
 */
export function presentStepResponse(
  stepKey: string,
  stepNumber: number,
  step: Omit<StepRow, 'stepKey'> | null,
  save: { conflicts: string[]; warnings: string[] } = { conflicts: [], warnings: [] },
): StepResponse {
  return {
    success: true,
    stepKey,
    stepNumber,
    stepData: { completed: step?.completed ?? false, data: step?.data ?? {} },
    lastUpdated: iso(step?.lastUpdated ?? null),
    revisionCount: step?.revisionCount ?? 0,
    ...(save.conflicts.length ? { conflicts: save.conflicts } : {}),
    ...(save.warnings.length ? { warning: save.warnings.join(' ') } : {}),
  };
}

/** The policy's answers for this plan and caller, as they are: the web app reads these, it never compares levels itself. */
function presentUserPermission(context: PlanContext): UserPermission {
  const { access } = context;
  const abilities = planAbilitiesOf(context.actor, context);
  return {
    canRead: abilities.read,
    canEdit: abilities.edit,
    canReview: abilities.review,
    canManage: abilities.manage,
    canAttest: abilities.attest,
    canShare: abilities.share,
    canSubmit: abilities.submit,
    canSeePresence: abilities.seePresence,
    canDiscuss: abilities.discuss,
    isOwner: access.owner,
    isPrincipal: access.principal,
    sections: access.editSections,
    readSections: access.readSections,
    readOnly: abilities.readOnly,
  };
}

/** GET /api/forms/:id: the plan with the answers the caller may read, permissions, collaborators and active comments. */
export function presentFullPlan(rows: FullPlanRows): FullPlan {
  const { context, stepKeys } = rows;
  const { plan } = context;
  return {
    ...presentPlanSummary(plan, completedStepsOf(stepKeys, rows.completedStepKeys), context.yearArchived),
    formData: Object.fromEntries(rows.readableSteps.map((step) => [step.stepKey, presentStep(step)])),
    stepKeys: [...stepKeys],
    userPermission: presentUserPermission(context),
    collaborationInfo: {
      owner: rows.owner,
      principalEmail: plan.principalEmail,
      assignedTo: plan.assignedTo,
      sharedWithEmails: plan.sharedWithEmails,
      shares: rows.shares,
    },
    comments: rows.comments.map(presentComment),
  };
}
