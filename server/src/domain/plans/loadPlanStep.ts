import type { Step } from '@csp/shared';
import type { BaseServices } from '../../services.ts';

import { preparedQueries } from '../../storage/preparedQueries.ts';
import { notFound } from '../../errors.ts';
import { planContextOf, type PlanContext } from './loadPlan.ts';
import type { StepRow, UserRow } from '../../storage/rows.ts';

export interface PlanStep {
  context: PlanContext;
  step: Step;
  stepNumber: number;
  /** The step's stored row; null for a step added to the bank after the plan was created. */
  row: StepRow | null;
}

/**
 * A plan with the caller's access and one of its steps, named by its 1-based position in the
 * plan's pinned bank, with the step's stored row: one query on the autosave path. The step key
 * comes from the version this process last saw the plan pin; when that guess turns out wrong
 * (a plan not seen before), the step row is read again by the right key.
 */
export async function loadPlanStep(services: BaseServices, actor: UserRow, formId: string, stepNumberParam: string | undefined): Promise<PlanStep> {
  const { banks, storage } = services;
  const queries = preparedQueries(storage.db);
  const stepNumber = /^[1-9]\d{0,2}$/.test(stepNumberParam ?? '') ? Number(stepNumberParam) : NaN;
  const stepIn = async (version: number | null) => (await banks.resolve(version)).steps[stepNumber - 1];

  const guessed = await stepIn(banks.pinnedVersionHint(formId) ?? null);
  const [read] = await queries.planStepForUser.execute({ formId, userId: actor.id, stepKey: guessed?.key ?? '' });
  if (!read) throw notFound('Plan not found');
  banks.rememberPinnedVersion(formId, read.plan.questionBankVersion);

  const step = await stepIn(read.plan.questionBankVersion);
  if (!step) throw notFound(`No step ${stepNumberParam} in this plan's question bank`);
  let row = read.step;
  if (step.key !== guessed?.key) [row = null] = await queries.stepRow.execute({ formId, stepKey: step.key });
  return { context: planContextOf(actor, read), step, stepNumber, row };
}
