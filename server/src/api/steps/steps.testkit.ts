/**
 * Helpers for the step-route tests (saves, locks, presence, validation): the bundled bank's steps and
 * questions, valid answers per question type, plan look-up and creation, and the stored step row.
 */
import { expect } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, type Answer, type Question, type Step } from '@csp/shared';
import type { TestServer } from '../../testing/testServer.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { planSteps } from '../../storage/schema.ts';

export const HARBOR = 'Harbor View Academy';
export const RIVERSIDE = 'Riverside Learning Center';
export const YEAR = currentSchoolYear();

export const SUPERADMIN = 'superadmin@example.org';
export const PRINCIPAL_HARBOR = 'principal.harbor@example.org';
export const PRINCIPAL_RIVERSIDE = 'principal.riverside@example.org';

/**
 * Who the lock and presence tests sign in, in this order: the Harbor principal in two tabs, the
 * Super Admin, Harbor's coordinator (view only) and teacher (no access), Riverside's principal.
 */
export const STEP_CAST = [
  PRINCIPAL_HARBOR,
  PRINCIPAL_HARBOR,
  SUPERADMIN,
  'coordinator.harbor@example.org',
  'teacher.harbor@example.org',
  PRINCIPAL_RIVERSIDE,
] as const;

/** A step of the bundled bank by its 1-based number. */
export function stepAt(stepNumber: number): Step {
  const step = BUNDLED_BANK.steps[stepNumber - 1];
  if (!step) throw new Error(`no step ${stepNumber} in the bundled bank`);
  return step;
}

export function stepNumberOf(stepKey: string): number {
  const index = BUNDLED_BANK.steps.findIndex((step) => step.key === stepKey);
  if (index < 0) throw new Error(`no step ${stepKey} in the bundled bank`);
  return index + 1;
}

export function question(stepNumber: number, id: string): Question {
  const found = stepAt(stepNumber).questions.find((q) => q.id === id);
  if (!found) throw new Error(`no question ${id} in step ${stepNumber}`);
  return found;
}

export function questionsOfType(stepNumber: number, ...types: Question['type'][]): Question[] {
  return stepAt(stepNumber).questions.filter((q) => types.includes(q.type));
}

/** A valid, non-empty answer for a question; `variant` makes different values of the same question. */
export function validAnswer(q: Question, variant = 0): Answer {
  switch (q.type) {
    case 'text':
    case 'textarea':
      return `${q.id} answer ${variant}`;
    case 'yesno':
      return variant % 2 === 0;
    case 'checkbox':
      return true;
    case 'select': {
      const options = q.options ?? [];
      return options[variant % options.length]!.value;
    }
    case 'table': {
      const headers = (q.columns ?? []).map((column) => column.header);
      return { headers, rows: [headers.map((header) => `${header} ${variant}`)] };
    }
  }
}

export function planPath(formId: string, suffix = ''): string {
  return `/api/forms/${formId}${suffix}`;
}

export function stepPath(formId: string, stepNumber: number | string, suffix = ''): string {
  return `/api/forms/${formId}/step/${stepNumber}${suffix}`;
}

/** The current-year plan of a school, as listed by GET /api/forms. */
export async function formIdOf(client: HttpClient, schoolName: string, schoolYear = YEAR): Promise<string> {
  const { status, body } = await client.get(`/api/forms?schoolYear=${schoolYear}`);
  expect(status).toBe(200);
  const plan = (body.forms as { _id: string; schoolName: string }[]).find((form) => form.schoolName === schoolName);
  if (!plan) throw new Error(`no ${schoolYear} plan listed for ${schoolName}`);
  return plan._id;
}

let schoolCounter = 0;

/** A current-year plan for a made-up school, created by a Super Admin (so every test has its own rate-limit budget). */
export async function createPlan(admin: HttpClient, label: string, initialOwnerEmail?: string): Promise<string> {
  const schoolName = `${label} School ${process.pid}-${++schoolCounter}-${Math.random().toString(36).slice(2, 8)}`;
  const { status, body } = await admin.post('/api/forms', {
    schoolName,
    schoolYear: YEAR,
    ...(initialOwnerEmail ? { initialOwnerEmail } : {}),
  });
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.formId).toMatch(/^[0-9a-f]{24}$/);
  return body.formId as string;
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

export async function readStep(client: HttpClient, formId: string, stepNumber: number) {
  const response = await client.get(stepPath(formId, stepNumber));
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as {
    success: boolean;
    stepKey: string;
    stepNumber: number;
    stepData: { completed: boolean; data: Record<string, Answer> };
    lastUpdated: string | null;
    revisionCount: number;
  };
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

/** Signed-in user's id, from the session route. */
export async function userIdOf(client: HttpClient): Promise<{ id: string; name: string; email: string }> {
  const { status, body } = await client.get('/api/auth/session');
  expect(status).toBe(200);
  const user = body.user as { _id?: string; id?: string; name: string; email: string };
  return { id: (user._id ?? user.id)!, name: user.name, email: user.email };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A well-formed id that names no record. */
export const UNKNOWN_ID = 'a'.repeat(24);

export interface LockView {
  stepKey: string;
  lockedBy: { userId: string; name: string; email: string };
  lockedAt: string;
  expiresAt: string;
  isCurrentUser: boolean;
}

/** The plan's held locks, as GET /locks shows them. */
export async function locksOf(client: HttpClient, formId: string): Promise<LockView[]> {
  const { status, body } = await client.get(planPath(formId, '/locks'));
  expect(status, JSON.stringify(body)).toBe(200);
  return body.locks as LockView[];
}

export async function lockOf(client: HttpClient, formId: string, stepNumber: number): Promise<LockView | undefined> {
  return (await locksOf(client, formId)).find((lock) => lock.stepKey === stepAt(stepNumber).key);
}
