// The one typed client of the REST API: every answer is parsed with the zod schema in shared/.
import { previewResponseSchema, sessionSchema } from '@csp/shared/api/auth';
import { planSharesSchema, shareResponseSchema, unshareResponseSchema } from '@csp/shared/api/admin';
import { successSchema } from '@csp/shared/api/common';
import {
  attestResponseSchema,
  compareResponseSchema,
  createFormResponseSchema,
  duplicateResponseSchema,
  commentResponseSchema,
  editorsResponseSchema,
  fullPlanSchema,
  locksResponseSchema,
  lightPlanListSchema,
  mentionListSchema,
  planUpdateResponseSchema,
  reviewFlagResponseSchema,
  stepResponseSchema,
  threadListSchema,
  transferCandidatesSchema,
  unlockResponseSchema,
  type MergeStrategy,
} from '@csp/shared/api/forms';
import { historyResponseSchema, planVersionSchema, restoreResponseSchema, versionListSchema } from '@csp/shared/api/history';
import { markNotificationReadResponseSchema, notificationListSchema } from '@csp/shared/api/notifications';
import { mailboxSchema, mailSettingsSchema, unsubscribeResponseSchema, type MailPreferences } from '@csp/shared/mail';
import { publicOverviewSchema } from '@csp/shared/api/public';
import { questionBankResponseSchema } from '@csp/shared/api/questionBank';
import { yearSettingsSchema } from '@csp/shared/api/schoolYears';
import { userListSchema } from '@csp/shared/api/users';
import { notStartedListSchema, yearFiguresSchema } from '@csp/shared/api/reports';
import type { PlanStatus, StepAnswers } from '@csp/shared';
import { query, request } from './client.ts';

export { ApiError } from './client.ts';

const plan = (id: string) => `/api/forms/${id}`;
const step = (id: string, stepNumber: number) => `${plan(id)}/step/${stepNumber}`;

export interface StepSave {
  data: StepAnswers;
  completed?: boolean;
  revisionCount?: number;
  mergeStrategy: MergeStrategy;
}

export const api = {
  session: (signal?: AbortSignal) => request('GET', '/api/auth/session', sessionSchema, undefined, signal),
  signOut: () => request('POST', '/api/auth/signout', successSchema, {}),
  stopPreview: () => request('DELETE', '/api/auth/preview', previewResponseSchema, {}),
  publicOverview: (signal?: AbortSignal) => request('GET', '/api/public/overview', publicOverviewSchema, undefined, signal),

  plans: (schoolYear?: string, signal?: AbortSignal, paging?: { page: number; limit: number }) =>
    request('GET', `/api/forms${query({ schoolYear, ...paging, view: 'light' })}`, lightPlanListSchema, undefined, signal),
  plan: (id: string, signal?: AbortSignal) => request('GET', plan(id), fullPlanSchema, undefined, signal),
  step: (id: string, stepNumber: number, signal?: AbortSignal) => request('GET', step(id, stepNumber), stepResponseSchema, undefined, signal),
  saveStep: (id: string, stepNumber: number, save: StepSave) =>
    request('PUT', step(id, stepNumber), stepResponseSchema, {
      stepData: { data: save.data, ...(save.completed === undefined ? {} : { completed: save.completed }) },
      ...(save.revisionCount === undefined ? {} : { revisionCount: save.revisionCount }),
      mergeStrategy: save.mergeStrategy,
    }),
  unlockStep: (id: string, stepNumber: number) => request('POST', `${step(id, stepNumber)}/unlock`, unlockResponseSchema, {}),
  locks: (id: string, signal?: AbortSignal) => request('GET', `${plan(id)}/locks`, locksResponseSchema, undefined, signal),
  editors: (id: string, signal?: AbortSignal) => request('GET', `${plan(id)}/editors`, editorsResponseSchema, undefined, signal),

  compare: (id: string, allSteps: boolean, signal?: AbortSignal) =>
    request('GET', `${plan(id)}/compare${query({ steps: allSteps ? 'all' : undefined })}`, compareResponseSchema, undefined, signal),
  attest: (id: string, name: string) => request('POST', `${plan(id)}/attest`, attestResponseSchema, { name }),
  submit: (id: string) => request('PUT', plan(id), planUpdateResponseSchema, { action: 'submit' }),
  review: (id: string, status: PlanStatus, comment?: string) =>
    request('PUT', plan(id), planUpdateResponseSchema, { action: 'review', status, ...(comment ? { comment } : {}) }),
  clearReviewFlag: (id: string, questionId: string, stepKey: string) =>
    request('POST', `${plan(id)}/review-flag`, reviewFlagResponseSchema, { questionId, stepKey }),

  /** A review thread at a question (`questionId`), a step (`stepKey` alone) or the whole plan (neither). */
  createComment: (id: string, comment: string, anchor: { stepKey?: string | undefined; questionId?: string | undefined }, mentions: string[] = []) =>
    request('POST', `${plan(id)}/comments`, commentResponseSchema, {
      comment,
      ...(anchor.stepKey ? { stepKey: anchor.stepKey } : {}),
      ...(anchor.questionId ? { questionId: anchor.questionId } : {}),
      ...(mentions.length ? { mentions } : {}),
    }),
  setCommentStatus: (id: string, commentId: string, action: 'read' | 'fixed') =>
    request('PUT', `${plan(id)}/comments/${commentId}`, commentResponseSchema, { action }),
  /** Every thread the caller may read, open and resolved, each with its replies. */
  threads: (id: string, signal?: AbortSignal) => request('GET', `${plan(id)}/comments${query({ status: 'all' })}`, threadListSchema, undefined, signal),
  reply: (id: string, commentId: string, body: string, mentions: string[] = []) =>
    request('POST', `${plan(id)}/comments/${commentId}/replies`, commentResponseSchema, { body, ...(mentions.length ? { mentions } : {}) }),
  resolveThread: (id: string, commentId: string) => request('POST', `${plan(id)}/comments/${commentId}/resolve`, commentResponseSchema, {}),
  reopenThread: (id: string, commentId: string) => request('POST', `${plan(id)}/comments/${commentId}/reopen`, commentResponseSchema, {}),
  /** People who can read the plan whose name or e-mail starts with `q`: whom a comment may mention. */
  mentionable: (id: string, q: string, signal?: AbortSignal) => request('GET', `${plan(id)}/mentions${query({ q })}`, mentionListSchema, undefined, signal),

  mailSettings: (signal?: AbortSignal) => request('GET', '/api/profile/mail', mailSettingsSchema, undefined, signal),
  saveMailPreferences: (preferences: MailPreferences) => request('PUT', '/api/profile/mail', mailSettingsSchema, preferences),
  unsubscribe: (token: string) => request('POST', `/api/mail/unsubscribe/${encodeURIComponent(token)}`, unsubscribeResponseSchema, {}),
  devMailbox: (paging: { page: number; limit: number }, signal?: AbortSignal) =>
    request('GET', `/api/dev/mailbox${query(paging)}`, mailboxSchema, undefined, signal),

  shares: (formId: string, signal?: AbortSignal) => request('GET', `/api/admin/forms/share${query({ formId })}`, planSharesSchema, undefined, signal),
  share: (formId: string, userIds: string[], permissions: 'view' | 'edit', sections: string[]) =>
    request('POST', '/api/admin/forms/share', shareResponseSchema, { formId, userIds, permissions, sections }),
  unshare: (formId: string, userIds: string[]) => request('DELETE', '/api/admin/forms/share', unshareResponseSchema, { formId, userIds }),
  schoolUsers: (schoolName: string, signal?: AbortSignal) =>
    request('GET', `/api/users${query({ schoolName, limit: 200 })}`, userListSchema, undefined, signal),

  questionBank: (version: number | null, signal?: AbortSignal) =>
    request('GET', `/api/question-bank${query({ version })}`, questionBankResponseSchema, undefined, signal),
  schoolYear: (schoolYear: string, signal?: AbortSignal) => request('GET', `/api/school-year${query({ schoolYear })}`, yearSettingsSchema, undefined, signal),
  notifications: (signal?: AbortSignal) => request('GET', '/api/notifications', notificationListSchema, undefined, signal),
  markNotificationRead: (notificationId: string) => request('POST', '/api/notifications', markNotificationReadResponseSchema, { notificationId }),
  createPlan: (schoolName: string, schoolYear: string, initialOwnerEmail?: string) =>
    request('POST', '/api/forms', createFormResponseSchema, {
      schoolName,
      schoolYear,
      ...(initialOwnerEmail ? { initialOwnerEmail } : {}),
    }),
  duplicate: (id: string, schoolYear: string) => request('POST', `${plan(id)}/duplicate`, duplicateResponseSchema, { schoolYear }),
  demoUsers: (signal?: AbortSignal) => request('GET', `/api/users${query({ q: 'demo', limit: 200 })}`, userListSchema, undefined, signal),
  principals: (signal?: AbortSignal) => request('GET', '/api/forms/transfer-ownership', transferCandidatesSchema, undefined, signal),
  startPreview: (userId: string) => request('POST', '/api/auth/preview', previewResponseSchema, { userId }),

  /** One answer's changes (`questionId` with `stepKey`), one step's, or the plan's; newest first. */
  history: (id: string, filter: { stepKey?: string; questionId?: string; page?: number; limit?: number }, signal?: AbortSignal) =>
    request('GET', `${plan(id)}/history${query(filter)}`, historyResponseSchema, undefined, signal),
  restoreRevision: (id: string, revisionId: string, to: 'after' | 'before') =>
    request('POST', `${plan(id)}/history/${revisionId}/restore`, restoreResponseSchema, { to }),
  versions: (id: string, signal?: AbortSignal) => request('GET', `${plan(id)}/versions`, versionListSchema, undefined, signal),
  version: (id: string, versionId: string, signal?: AbortSignal) => request('GET', `${plan(id)}/versions/${versionId}`, planVersionSchema, undefined, signal),
  restoreVersionStep: (id: string, versionId: string, stepKey: string) =>
    request('POST', `${plan(id)}/versions/${versionId}/restore`, restoreResponseSchema, { stepKey }),

  /** The plan as it is now, or as one of its versions held it. */
  exportUrl: (id: string, kind: 'pdf' | 'docx', version?: string) => `${plan(id)}/export/${kind}${query({ version })}`,
  yearFigures: (schoolYear: string, signal?: AbortSignal) =>
    request('GET', `/api/admin/reports/figures${query({ schoolYear })}`, yearFiguresSchema, undefined, signal),
  notStarted: (schoolYear: string, paging: { page: number; limit: number }, signal?: AbortSignal) =>
    request('GET', `/api/admin/reports/not-started${query({ schoolYear, ...paging })}`, notStartedListSchema, undefined, signal),
};

/** Sign-in URL that comes back to `callbackUrl` (a same-origin path) afterwards. */
export function signInUrl(callbackUrl: string): string {
  return `/api/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl).replaceAll('%2F', '/')}`;
}
