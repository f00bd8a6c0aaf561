/**
 * Large fixtures, written straight into a benchmark's database with SQL (the API would take
 * minutes to create thousands of users and plans): schools with fully answered plans, editors
 * (level-3 staff with an edit share on one step, as a principal assigns sections), and sessions.
 */
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, isStepComplete, seedDocumentState, type Step, type StepAnswers } from '@csp/shared';
import { sampleStepAnswers } from '../../server/src/seed/sampleAnswers.ts';
import { newId } from '../../server/src/storage/ids.ts';
import { insertRows, type PgQueryable } from './postgres.ts';
import { newSession, type BenchSession } from './servers.ts';

export const BANK = BUNDLED_BANK;

export interface Editor {
  userId: string;
  email: string;
  name: string;
  formId: string;
  school: string;
  stepKey: string;
  /** 1-based position of the step in the bank: the REST path's step number. */
  stepNumber: number;
  session: BenchSession;
}

export interface Plan {
  id: string;
  school: string;
  schoolYear: string;
}

export const schoolName = (label: string, index: number) => `${label} School ${String(index + 1).padStart(4, '0')}`;

/** The first text or textarea question a sample answer fills (the one an editor types into), if any. */
function typedQuestion(step: Step): string | null {
  const answers = sampleStepAnswers(step, 'x');
  return step.questions.find((q) => (q.type === 'text' || q.type === 'textarea') && typeof answers[q.id] === 'string')?.id ?? null;
}

/** Steps with a typed question (all but the table of contents, which has only a checkbox). */
export const TYPED_STEPS = BANK.steps
  .map((step, index) => ({ step, stepNumber: index + 1, questionId: typedQuestion(step) }))
  .filter((s) => s.questionId !== null) as {
  step: Step;
  stepNumber: number;
  questionId: string;
}[];

/** Plans of `count` schools for a year, every step fully answered (as a diligent school's). */
export async function insertAnsweredPlans(
  db: PgQueryable,
  options: { label: string; count: number; schoolYear?: string; ownerIds?: (string | null)[]; principalEmails?: (string | null)[] },
): Promise<Plan[]> {
  const schoolYear = options.schoolYear ?? currentSchoolYear();
  const plans: Plan[] = Array.from({ length: options.count }, (_, index) => ({ id: newId(), school: schoolName(options.label, index), schoolYear }));
  await insertRows(
    db,
    'plans',
    ['id', 'school_name', 'school_year', 'status', 'user_id', 'principal_email', 'question_bank_version'],
    plans.map((plan, index) => [
      plan.id,
      plan.school,
      schoolYear,
      'draft',
      options.ownerIds?.[index] ?? null,
      options.principalEmails?.[index] ?? null,
      BANK.version,
    ]),
  );
  const answered = new Date('2026-04-20T14:00:00Z');
  const stepRows: unknown[][] = [];
  for (const plan of plans) {
    for (const step of BANK.steps) {
      const data = sampleStepAnswers(step, plan.school);
      stepRows.push([plan.id, step.key, isStepComplete(step, data), JSON.stringify(data), '{}', 1, answered]);
    }
    if (stepRows.length >= 2_800) await insertRows(db, 'plan_steps', STEP_COLUMNS, stepRows.splice(0), STEP_CASTS);
  }
  await insertRows(db, 'plan_steps', STEP_COLUMNS, stepRows, STEP_CASTS);
  return plans;
}
const STEP_COLUMNS = ['form_id', 'step_key', 'completed', 'data', 'field_revisions', 'revision_count', 'last_updated'];
const STEP_CASTS = { data: 'jsonb', field_revisions: 'jsonb' };

export interface UserRow {
  id: string;
  email: string;
  name: string;
  level: number;
  school: string;
}

export async function insertUsers(db: PgQueryable, users: UserRow[]): Promise<void> {
  await insertRows(
    db,
    'users',
    ['id', 'email', 'name', 'level', 'school_name', 'title'],
    users.map((user) => [user.id, user.email, user.name, user.level, user.school, user.level === 5 ? 'Superintendent' : 'Assistant Principal']),
  );
}

export async function insertSessions(db: PgQueryable, userIds: string[]): Promise<BenchSession[]> {
  const sessions = userIds.map(() => newSession());
  const expires = new Date(Date.now() + 8 * 3600_000);
  await insertRows(
    db,
    'sessions',
    ['id', 'user_id', 'expires_at'],
    sessions.map((session, index) => [session.id, userIds[index], expires]),
  );
  return sessions;
}

/**
 * Editors on answered plans: `perStep` staff members on each of `steps` of each plan, each with
 * an edit share limited to that one step, and a live session.
 */
export async function insertEditors(
  db: PgQueryable,
  options: { label: string; editors: number; perStep: number; steps: { step: Step; stepNumber: number }[] },
): Promise<{ plans: Plan[]; editors: Editor[] }> {
  const perPlan = options.steps.length * options.perStep;
  const plans = await insertAnsweredPlans(db, { label: options.label, count: Math.ceil(options.editors / perPlan) });
  const editors: Omit<Editor, 'session'>[] = [];
  for (let index = 0; index < options.editors; index++) {
    const plan = plans[Math.floor(index / perPlan)]!;
    const { step, stepNumber } = options.steps[Math.floor((index % perPlan) / options.perStep)]!;
    const tag = `${options.label.toLowerCase()}${index + 1}`;
    editors.push({
      userId: newId(),
      email: `editor.${tag}@example.org`,
      name: `Editor ${tag}`,
      formId: plan.id,
      school: plan.school,
      stepKey: step.key,
      stepNumber,
    });
  }
  await insertUsers(
    db,
    editors.map((editor) => ({ id: editor.userId, email: editor.email, name: editor.name, level: 3, school: editor.school })),
  );
  await insertRows(
    db,
    'plan_shares',
    ['form_id', 'user_id', 'permission', 'sections'],
    editors.map((editor) => [editor.formId, editor.userId, 'edit', JSON.stringify([editor.stepKey])]),
    { sections: 'jsonb' },
  );
  const sessions = await insertSessions(
    db,
    editors.map((editor) => editor.userId),
  );
  await db.query('analyze');
  return { plans, editors: editors.map((editor, index) => ({ ...editor, session: sessions[index]! })) };
}

export function stepAnswers(stepNumber: number, school: string): StepAnswers {
  return sampleStepAnswers(BANK.steps[stepNumber - 1]!, school);
}

/**
 * A step's live document as the app's server first seeds it from the answers insertAnsweredPlans
 * stored, as one update: for a server that loads nothing (the co-editing floor), the same start.
 */
export function stepDocumentSeed(stepNumber: number, school: string): Uint8Array {
  const step = BANK.steps[stepNumber - 1]!;
  const answers = stepAnswers(stepNumber, school);
  return seedDocumentState(step, answers, isStepComplete(step, answers));
}
