/** Plans, steps and users for the live-collaboration tests, through the real API. */
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, readAnswers, type Step, type StepAnswers } from '@csp/shared';
import type * as Y from 'yjs';
import type { HttpClient } from './httpClient.ts';

export const SUPERADMIN = 'superadmin@example.org';
export const PRINCIPAL_HARBOR = 'principal.harbor@example.org';
export const HARBOR = 'Harbor View Academy';

export function stepOf(stepKey: string): { step: Step; stepNumber: number } {
  const index = BUNDLED_BANK.steps.findIndex((step) => step.key === stepKey);
  if (index < 0) throw new Error(`no step ${stepKey} in the bundled bank`);
  return { step: BUNDLED_BANK.steps[index]!, stepNumber: index + 1 };
}

export function stepPath(formId: string, stepKey: string, suffix = ''): string {
  return `/api/forms/${formId}/step/${stepOf(stepKey).stepNumber}${suffix}`;
}

export interface UserRef {
  id: string;
  name: string;
  email: string;
}

export async function whoAmI(client: HttpClient): Promise<UserRef> {
  const { status, body } = await client.get('/api/auth/session');
  if (status !== 200) throw new Error(`session lookup failed: ${status} ${JSON.stringify(body)}`);
  return { id: body.user._id, name: body.user.name, email: body.user.email };
}

/** The plan of a school for a year, as listed by GET /api/forms. */
export async function planIdOf(client: HttpClient, schoolName: string, schoolYear = currentSchoolYear()): Promise<string> {
  const { status, body } = await client.get(`/api/forms?schoolYear=${schoolYear}`);
  if (status !== 200) throw new Error(`listing plans failed: ${status} ${JSON.stringify(body)}`);
  const plan = (body.forms as { _id: string; schoolName: string }[]).find((form) => form.schoolName === schoolName);
  if (!plan) throw new Error(`no ${schoolYear} plan listed for ${schoolName}`);
  return plan._id;
}

let counter = 0;

/** A fresh current-year plan for a made-up school, created by a Super Admin, owned by `ownerEmail` (a principal). */
export async function createPlan(admin: HttpClient, label: string, ownerEmail = PRINCIPAL_HARBOR): Promise<string> {
  const schoolName = `${label} ${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  const { status, body } = await admin.post('/api/forms', { schoolName, schoolYear: currentSchoolYear(), initialOwnerEmail: ownerEmail });
  if (status !== 200) throw new Error(`creating a plan failed: ${status} ${JSON.stringify(body)}`);
  return body.formId as string;
}

export interface StoredStep {
  data: StepAnswers;
  completed: boolean;
  revisionCount: number;
  lastUpdated: string | null;
}

export async function readStep(client: HttpClient, formId: string, stepKey: string): Promise<StoredStep> {
  const { status, body } = await client.get(stepPath(formId, stepKey));
  if (status !== 200) throw new Error(`GET step failed: ${status} ${JSON.stringify(body)}`);
  return { data: body.stepData.data, completed: body.stepData.completed, revisionCount: body.revisionCount, lastUpdated: body.lastUpdated };
}

/** An autosave as the web client sends it: the live document's answers, its base revision, merge. */
export function autosave(client: HttpClient, formId: string, stepKey: string, doc: Y.Doc, revisionCount: number) {
  return client.put(stepPath(formId, stepKey), { stepData: { data: readAnswers(doc) }, revisionCount, mergeStrategy: 'merge' });
}

export async function shareWith(admin: HttpClient, formId: string, userIds: string[], permissions: 'view' | 'edit', sections: string[] = []) {
  const { status, body } = await admin.post('/api/admin/forms/share', { formId, userIds, permissions, sections });
  if (status !== 200) throw new Error(`sharing failed: ${status} ${JSON.stringify(body)}`);
}
