import { computeNeedsUpdate, isAnswered, isStepComplete, type NeedsUpdateFlag, type QuestionBank, type StepAnswers } from '@csp/shared';
import { eq } from 'drizzle-orm';
import { newId } from '../../storage/ids.ts';
import { planSteps, plans } from '../../storage/schema.ts';
import type { Database } from '../../storage/database.ts';
import type { PlanRow } from './loadPlan.ts';

export type StepRow = typeof planSteps.$inferSelect;
type NewPlanRow = typeof plans.$inferInsert;
type NewStepRow = typeof planSteps.$inferInsert;

export interface YearCopyTarget {
  schoolYear: string;
  bankVersion: number | null;
  bank: QuestionBank;
}

const answersByStep = (steps: Pick<StepRow, 'stepKey' | 'data'>[]) => Object.fromEntries(steps.map((step) => [step.stepKey, step.data]));

/**
 * A source plan's copy for another year (the specification's duplicate rules): answers, school,
 * principal and owner; completion kept for steps that have answers; status draft; no comments,
 * review fields, shares, attestation or locks; review flags against the target year's bank.
 */
export function buildPlanCopy(
  source: PlanRow,
  sourceSteps: StepRow[],
  sourceBank: QuestionBank | null,
  target: YearCopyTarget,
): { plan: NewPlanRow & { id: string }; steps: NewStepRow[] } {
  const id = newId();
  const now = new Date();
  const byKey = new Map(sourceSteps.map((step) => [step.stepKey, step]));
  const stepKeys = [...new Set([...target.bank.steps.map((step) => step.key), ...byKey.keys()])];
  return {
    plan: {
      id,
      schoolName: source.schoolName,
      schoolYear: target.schoolYear,
      status: 'draft',
      userId: source.userId,
      principalEmail: source.principalEmail,
      assignedTo: source.assignedTo,
      questionBankVersion: target.bankVersion,
      copiedFromId: source.id,
      needsUpdate: computeNeedsUpdate(sourceBank, target.bank, answersByStep(sourceSteps)),
      createdAt: now,
      updatedAt: now,
    },
    steps: stepKeys.map((stepKey) => {
      const copied = byKey.get(stepKey);
      const hasAnswers = copied !== undefined && Object.keys(copied.data).length > 0;
      return {
        formId: id,
        stepKey,
        data: hasAnswers ? copied.data : {},
        completed: hasAnswers && copied.completed,
        revisionCount: 0,
        lastUpdated: null,
      };
    }),
  };
}

/**
 * Duplicate with `force` into a plan that already exists: only questions empty there are filled
 * from the source, so nothing already written in the target is lost. Returns the steps that
 * changed and the flags of the filled answers.
 */
export function fillEmptyAnswers(
  targetSteps: StepRow[],
  sourceSteps: StepRow[],
  sourceBank: QuestionBank | null,
  target: YearCopyTarget,
): { changed: { stepKey: string; data: StepAnswers; completed: boolean; filled: string[] }[]; flags: NeedsUpdateFlag[] } {
  const sourceByKey = new Map(sourceSteps.map((step) => [step.stepKey, step]));
  const changed: { stepKey: string; data: StepAnswers; completed: boolean; filled: string[] }[] = [];
  const filledAnswers: Record<string, StepAnswers> = {};
  for (const step of target.bank.steps) {
    const current = targetSteps.find((row) => row.stepKey === step.key);
    const source = sourceByKey.get(step.key);
    if (!source) continue;
    const data: StepAnswers = { ...(current?.data ?? {}) };
    const filled: string[] = [];
    for (const [questionId, answer] of Object.entries(source.data)) {
      const question = step.questions.find((q) => q.id === questionId);
      const empty = question ? !isAnswered(question, data[questionId]) : data[questionId] === undefined || data[questionId] === null;
      if (empty && answer !== null && answer !== undefined) {
        data[questionId] = answer;
        filled.push(questionId);
      }
    }
    if (filled.length === 0) continue;
    filledAnswers[step.key] = Object.fromEntries(filled.map((questionId) => [questionId, data[questionId]!]));
    changed.push({ stepKey: step.key, data, completed: (current?.completed ?? false) || isStepComplete(step, data), filled });
  }
  const filledIds = new Set(changed.flatMap((step) => step.filled.map((questionId) => `${step.stepKey}:${questionId}`)));
  const flags = computeNeedsUpdate(sourceBank, target.bank, filledAnswers).filter(
    (flag) => flag.reason !== 'new' && filledIds.has(`${flag.stepKey}:${flag.questionId}`),
  );
  return { changed, flags };
}

/** Adds flags not already present (same step and question). */
function mergeFlags(existing: NeedsUpdateFlag[], added: NeedsUpdateFlag[]): NeedsUpdateFlag[] {
  const seen = new Set(existing.map((flag) => `${flag.stepKey}:${flag.questionId}`));
  return [...existing, ...added.filter((flag) => !seen.has(`${flag.stepKey}:${flag.questionId}`))];
}

/**
 * Duplicate with `force` (and rollover with `force`) into an existing plan: fills its empty
 * answers from the source and adds the filled answers' flags. Run inside the caller's transaction.
 */
export async function fillPlanFromSource(
  tx: Database,
  current: PlanRow,
  sourceSteps: StepRow[],
  sourceBank: QuestionBank | null,
  target: YearCopyTarget,
): Promise<{ stepKey: string; filled: string[] }[]> {
  const targetSteps = await tx.select().from(planSteps).where(eq(planSteps.formId, current.id));
  const { changed, flags } = fillEmptyAnswers(targetSteps, sourceSteps, sourceBank, target);
  for (const step of changed) {
    await tx
      .insert(planSteps)
      .values({ formId: current.id, stepKey: step.stepKey, data: step.data, completed: step.completed })
      .onConflictDoUpdate({ target: [planSteps.formId, planSteps.stepKey], set: { data: step.data, completed: step.completed } });
  }
  if (changed.length) await tx.update(plans).set({ needsUpdate: mergeFlags(current.needsUpdate, flags), updatedAt: new Date() }).where(eq(plans.id, current.id));
  return changed.map((step) => ({ stepKey: step.stepKey, filled: step.filled }));
}
