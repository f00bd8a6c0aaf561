import { PRINCIPAL_LETTER_KEY } from '@csp/shared';
import type { PlanAccess } from '../policy/plans.ts';
import type { planSteps } from '../storage/schema.ts';
import type { PlanRow } from '../domain/plans/loadPlan.ts';

type StepRow = Pick<typeof planSteps.$inferSelect, 'stepKey' | 'completed' | 'data' | 'revisionCount' | 'lastUpdated'>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** Completed steps in bank order, never counting the principal's letter. */
export function completedStepsOf(stepKeys: readonly string[], completed: Iterable<string>): string[] {
  const done = new Set(completed);
  return stepKeys.filter((key) => key !== PRINCIPAL_LETTER_KEY && done.has(key));
}

/** The plan fields every payload carries (list payloads omit `formData`). */
export function presentPlanSummary(plan: PlanRow, completedSteps: string[], yearArchived: boolean) {
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
    createdAt: iso(plan.createdAt),
    updatedAt: iso(plan.updatedAt),
  };
}

export function presentStep(step: StepRow) {
  return { completed: step.completed, data: step.data, revisionCount: step.revisionCount, lastUpdated: iso(step.lastUpdated) };
}

export function presentUserPermission(access: PlanAccess, writable: boolean) {
  return {
    canRead: access.read,
    canEdit: access.edit && writable,
    canReview: access.superAdmin,
    canManage: access.superAdmin || access.principal,
    canAttest: access.principal && writable,
    canSeePresence: access.presence,
    isOwner: access.owner,
    isPrincipal: access.principal,
    sections: access.editSections,
    readSections: access.readSections,
    readOnly: !writable || !access.edit,
  };
}
