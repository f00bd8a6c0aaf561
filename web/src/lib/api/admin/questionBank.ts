// The question-bank administration routes (Super Admins): every answer parsed with the shared schemas.
import { successSchema } from '@csp/shared/api/common';
import { adminBankSchema, adminBankViewSchema, publishResponseSchema, type NewQuestion, type QuestionChanges } from '@csp/shared/api/questionBankAdmin';
import { request } from '#lib/api/client.ts';

const BANK = '/api/admin/question-bank';

export const questionBankAdmin = {
  /** The published bank, the draft (null until the first edit), their differences and every version. */
  view: (signal?: AbortSignal) => request('GET', BANK, adminBankViewSchema, undefined, signal),
  /** Changes some fields of a draft question; null removes an optional field. */
  updateQuestion: (questionId: string, changes: QuestionChanges) =>
    request('PUT', `${BANK}/questions/${encodeURIComponent(questionId)}`, adminBankSchema, changes),
  /** A new question (the server gives it a new id), at `position` in the step or at its end. */
  addQuestion: (stepKey: string, question: NewQuestion, position?: number) =>
    request('POST', `${BANK}/questions`, adminBankSchema, { stepKey, question, ...(position === undefined ? {} : { position }) }),
  setActive: (questionId: string, active: boolean) =>
    request('POST', `${BANK}/questions/${encodeURIComponent(questionId)}/active`, adminBankSchema, { active }),
  addStep: (key: string, title: string, intro: string) => request('POST', `${BANK}/steps`, adminBankSchema, { key, title, intro }),
  updateStep: (stepKey: string, changes: { title?: string; intro?: string }) =>
    request('PUT', `${BANK}/steps/${encodeURIComponent(stepKey)}`, adminBankSchema, changes),
  /** The step's questions in a new order: every id of the step exactly once. */
  reorder: (stepKey: string, questionIds: string[]) => request('PUT', `${BANK}/steps/${encodeURIComponent(stepKey)}/order`, adminBankSchema, { questionIds }),
  discard: () => request('DELETE', `${BANK}/draft`, successSchema),
  publish: (schoolYear: string | null) => request('POST', `${BANK}/publish`, publishResponseSchema, schoolYear ? { schoolYear } : {}),
};
