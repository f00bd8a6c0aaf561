/**
 * Plans and their steps through the real API (list, create, read, save, share, locks), and a
 * step's stored row read straight from the database. Steps are named by number or key (bundledBank.ts).
 * Every helper throws when the server does not answer as expected.
 */
import { and, eq } from 'drizzle-orm';
import { currentSchoolYear, readAnswers, type Answer } from '@csp/shared';
import type * as Y from 'yjs';
import type { HttpClient } from './httpClient.ts';
import type { TestServer } from './testServer.ts';
import { stepAt, stepNumberOf, type StepRef } from './bundledBank.ts';
import { PRINCIPAL_HARBOR } from './demoNames.ts';
import { planSteps } from '../storage/schema.ts';

export const YEAR = currentSchoolYear();

/** A well-formed id that names no record. */
export const UNKNOWN_ID = 'a'.repeat(24);

const failed = (what: string, response: { status: number; body: unknown }) => new Error(`${what} failed: ${response.status} ${JSON.stringify(response.body)}`);

export function planPath(formId: string, suffix = ''): string {
  return `/api/forms/${formId}${suffix}`;
}

export function stepPath(formId: string, step: StepRef, suffix = ''): string {
  return planPath(formId, `/step/${stepNumberOf(step)}${suffix}`);
}

export interface UserRef {
  id: string;
  name: string;
  email: string;
}

/** The signed-in user, from the session route. */
export async function whoAmI(client: HttpClient): Promise<UserRef> {
  const response = await client.get('/api/auth/session');
  if (response.status !== 200) throw failed('session lookup', response);
  const user = response.body.user as { _id?: string; id?: string; name: string; email: string };
  return { id: (user._id ?? user.id)!, name: user.name, email: user.email };
}

/** The plan of a school for a year, as listed by GET /api/forms. */
export async function formIdOf(client: HttpClient, schoolName: string, schoolYear = YEAR): Promise<string> {
  const response = await client.get(`/api/forms?schoolYear=${schoolYear}`);
  if (response.status !== 200) throw failed('listing plans', response);
  const plan = (response.body.forms as { _id: string; schoolName: string }[]).find((form) => form.schoolName === schoolName);
  if (!plan) throw new Error(`no ${schoolYear} plan listed for ${schoolName}`);
  return plan._id;
}

let schoolCounter = 0;

/**
 * A current-year plan for a made-up school (so every test has its own plan and rate-limit budget),
 * created by a Super Admin and owned by `ownerEmail` (a principal).
 */
export async function createPlan(admin: HttpClient, label: string, ownerEmail = PRINCIPAL_HARBOR): Promise<string> {
  const schoolName = `${label} School ${process.pid}-${++schoolCounter}-${Math.random().toString(36).slice(2, 8)}`;
  const response = await admin.post('/api/forms', { schoolName, schoolYear: YEAR, initialOwnerEmail: ownerEmail });
  if (response.status !== 200 || !/^[0-9a-f]{24}$/.test(String(response.body?.formId))) throw failed('creating a plan', response);
  return response.body.formId as string;
}

export async function shareWith(admin: HttpClient, formId: string, userIds: string[], permissions: 'view' | 'edit', sections: string[] = []): Promise<void> {
  const response = await admin.post('/api/admin/forms/share', { formId, userIds, permissions, sections });
  if (response.status !== 200) throw failed('sharing', response);
}

export interface StepSaveBody {
  stepData: { completed?: boolean; data: Record<string, unknown> };
  lastUpdated?: string | null;
  revisionCount?: number;
  mergeStrategy?: string;
}

export function saveBody(data: Record<string, unknown>, options: Omit<StepSaveBody, 'stepData'> & { completed?: boolean } = {}): StepSaveBody {
  const { completed, ...rest } = options;
  return { stepData: { ...(completed === undefined ? {} : { completed }), data }, ...rest };
}

/** An autosave as the web client sends it: the live document's answers, its base revision, merge. */
export function autosave(client: HttpClient, formId: string, step: StepRef, doc: Y.Doc, revisionCount: number) {
  return client.put(stepPath(formId, step), { stepData: { data: readAnswers(doc) }, revisionCount, mergeStrategy: 'merge' });
}

/** A step as GET /api/forms/:id/step/:n answers it. */
export interface StepView {
  success: boolean;
  stepKey: string;
  stepNumber: number;
  stepData: { completed: boolean; data: Record<string, Answer> };
  lastUpdated: string | null;
  revisionCount: number;
}

export async function readStep(client: HttpClient, formId: string, step: StepRef): Promise<StepView> {
  const response = await client.get(stepPath(formId, step));
  if (response.status !== 200) throw failed(`reading step ${step}`, response);
  return response.body as StepView;
}

export interface LockView {
  stepKey: string;
  lockedBy: { userId: string; name: string; email: string };
  lockedAt: string;
  expiresAt: string;
  isCurrentUser: boolean;
}

/** The plan's held locks, as GET /locks shows them. */
export async function locksOf(client: HttpClient, formId: string): Promise<LockView[]> {
  const response = await client.get(planPath(formId, '/locks'));
  if (response.status !== 200) throw failed('listing locks', response);
  return response.body.locks as LockView[];
}

/** The lock held on one step, if any. */
export async function lockOf(client: HttpClient, formId: string, step: StepRef): Promise<LockView | undefined> {
  const stepKey = stepAt(stepNumberOf(step)).key;
  return (await locksOf(client, formId)).find((lock) => lock.stepKey === stepKey);
}

/** The stored row of one step, read with drizzle (not through the API). */
export async function stepRow(server: TestServer, formId: string, stepKey: string) {
  const [row] = await server.services.storage.db
    .select()
    .from(planSteps)
    .where(and(eq(planSteps.formId, formId), eq(planSteps.stepKey, stepKey)))
    .limit(1);
  return row;
}
