import { computeNeedsUpdate, isBlankAnswer, isStepComplete, type NeedsUpdateFlag, type QuestionBank, type Step, type StepAnswers } from '@csp/shared';
import { eq } from 'drizzle-orm';
import { newId } from '../../storage/ids.ts';
import { planSteps, plans } from '../../storage/schema.ts';
import type { Database } from '../../storage/database.ts';
import type { DomainServices } from '../domainServices.ts';

import { announceStepWrite, writeStepAnswers, type WrittenStep } from './writeStepAnswers.ts';
import type { PlanRow, StepRow, UserRow } from '../../storage/rows.ts';

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

/** The answers one step of the target gains from the source. */
interface StepFill {
  step: Step;
  filled: StepAnswers;
  completed: boolean;
}

/**
 * Duplicate with `force` into a plan that already exists: only questions blank there are filled
 * from the source, so nothing already written in the target is lost. Returns the answers each
 * step gains and the flags of the filled answers.
 */
function fillEmptyAnswers(
  targetSteps: StepRow[],
  sourceSteps: StepRow[],
  sourceBank: QuestionBank | null,
  target: YearCopyTarget,
): { changed: StepFill[]; flags: NeedsUpdateFlag[] } {
  const sourceByKey = new Map(sourceSteps.map((step) => [step.stepKey, step]));
  const changed: StepFill[] = [];
  for (const step of target.bank.steps) {
    const current = targetSteps.find((row) => row.stepKey === step.key);
    const source = sourceByKey.get(step.key);
    if (!source) continue;
    const filled: StepAnswers = Object.fromEntries(
      Object.entries(source.data).filter(([questionId, answer]) => !isBlankAnswer(answer) && isBlankAnswer(current?.data[questionId])),
    );
    if (Object.keys(filled).length === 0) continue;
    const merged = { ...(current?.data ?? {}), ...filled };
    changed.push({ step, filled, completed: (current?.completed ?? false) || isStepComplete(step, merged) });
  }
  const filledIds = new Set(changed.flatMap((fill) => Object.keys(fill.filled).map((questionId) => `${fill.step.key}:${questionId}`)));
  const flags = computeNeedsUpdate(sourceBank, target.bank, Object.fromEntries(changed.map((fill) => [fill.step.key, fill.filled]))).filter(
    (flag) => flag.reason !== 'new' && filledIds.has(`${flag.stepKey}:${flag.questionId}`),
  );
  return { changed, flags };
}

/** Adds flags not already present (same step and question). */
function mergeFlags(existing: NeedsUpdateFlag[], added: NeedsUpdateFlag[]): NeedsUpdateFlag[] {
  const seen = new Set(existing.map((flag) => `${flag.stepKey}:${flag.questionId}`));
  return [...existing, ...added.filter((flag) => !seen.has(`${flag.stepKey}:${flag.questionId}`))];
}

export interface FilledStep extends StepFill {
  written: WrittenStep;
}

/**
 * Duplicate with `force` (and rollover with `force`) into an existing plan: fills its blank
 * answers from the source as real step writes (new revision, per-answer stamps, under the rows'
 * locks) and adds the filled answers' flags. Run inside the caller's transaction; announce the
 * returned writes after it commits (`announceFills`).
 */
export async function fillPlanFromSource(
  tx: Database,
  current: PlanRow,
  sourceSteps: StepRow[],
  sourceBank: QuestionBank | null,
  target: YearCopyTarget,
  updatedBy: string,
): Promise<FilledStep[]> {
  const targetSteps = await tx.select().from(planSteps).where(eq(planSteps.formId, current.id)).for('update');
  const { changed, flags } = fillEmptyAnswers(targetSteps, sourceSteps, sourceBank, target);
  const fills: FilledStep[] = [];
  for (const fill of changed) {
    let row = targetSteps.find((candidate) => candidate.stepKey === fill.step.key);
    if (!row) [row] = await tx.insert(planSteps).values({ formId: current.id, stepKey: fill.step.key }).returning();
    const written = await writeStepAnswers(tx, row!, fill.filled, fill.completed, updatedBy);
    fills.push({ ...fill, written: written! });
  }
  if (fills.length)
    await tx
      .update(plans)
      .set({ needsUpdate: mergeFlags(current.needsUpdate, flags), updatedAt: new Date() })
      .where(eq(plans.id, current.id));
  return fills;
}

/** After the fill committed: the plan's room and live documents learn of each filled step. */
export function announceFills(services: DomainServices, formId: string, by: Pick<UserRow, 'id' | 'name'>, fills: FilledStep[]): void {
  for (const fill of fills) announceStepWrite(services, formId, fill.step, by, fill.filled, fill.completed, fill.written, { origin: { kind: 'copy' } });
}
