import type { Step } from '@csp/shared';
import type { BaseDomainServices } from '../domainServices.ts';

import { preparedQueries } from '../../storage/preparedQueries.ts';
import { notFound } from '../../errors.ts';
import { planContextOf, type PlanContext } from './loadPlan.ts';
import type { AccessVersions, StepRow, UserRow } from '../../storage/rows.ts';
import type { PlanStepRead } from './recentPlanSteps.ts';

export interface PlanStep {
  context: PlanContext;
  step: Step;
  stepNumber: number;
  /** The step's stored row; null for a step added to the bank after the plan was created. */
  row: StepRow | null;
  /** The row versions the caller's access was read at; a write re-checks them. */
  versions: AccessVersions;
  /** From this process's memory of its last read or write (`RecentPlanSteps`), not from the database. */
  remembered: boolean;
}

/**
 * A plan with the caller's access and one of its steps, named by its 1-based position in the
 * plan's pinned bank, with the step's stored row: one query on the autosave path. The step key
 * comes from the version this process last saw the plan pin; when that guess turns out wrong
 * (a plan not seen before), the step row is read again by the right key.
 *
 * With `remembered`, what this process last read or wrote of it for this caller may answer
 * instead (autosaves, whose write re-checks it); every read is remembered for them.
 */
export async function loadPlanStep(
  services: BaseDomainServices,
  actor: UserRow,
  formId: string,
  stepNumberParam: string | undefined,
  { remembered = false } = {},
): Promise<PlanStep> {
  const { banks, storage, recentPlanSteps } = services;
  const queries = preparedQueries(storage.db);
  const stepNumber = /^[1-9]\d{0,2}$/.test(stepNumberParam ?? '') ? Number(stepNumberParam) : NaN;
  const stepIn = async (version: number | null) => (await banks.resolve(version)).steps[stepNumber - 1];

  const known = remembered ? recentPlanSteps.get(formId, actor.id, stepNumber) : undefined;
  if (known) return planStepOf(actor, known, (await stepIn(known.plan.questionBankVersion))!, stepNumber, true);

  const guessed = await stepIn(banks.pinnedVersionHint(formId) ?? null);
  const [read] = await queries.planStepForUser.execute({ formId, userId: actor.id, stepKey: guessed?.key ?? '' });
  if (!read) throw notFound('Plan not found');
  banks.rememberPinnedVersion(formId, read.plan.questionBankVersion);

  const step = await stepIn(read.plan.questionBankVersion);
  if (!step) throw notFound(`No step ${stepNumberParam} in this plan's question bank`);
  if (step.key !== guessed?.key) [read.step = null] = await queries.stepRow.execute({ formId, stepKey: step.key });
  recentPlanSteps.remember(actor.id, stepNumber, read);
  return planStepOf(actor, read, step, stepNumber, false);
}

/** The same plan step as the database holds it now. */
export const reloadPlanStep = (services: BaseDomainServices, actor: UserRow, found: PlanStep): Promise<PlanStep> =>
  loadPlanStep(services, actor, found.context.plan.id, String(found.stepNumber));

/** Remembers a plan step as this caller's write left it, for the caller's next autosave. */
export function rememberWrite(services: BaseDomainServices, actor: UserRow, found: PlanStep, written: StepRow): void {
  const { plan, share, yearArchived } = found.context;
  services.recentPlanSteps.remember(actor.id, found.stepNumber, { plan, share, archived: yearArchived, step: written, versions: found.versions });
}

function planStepOf(actor: UserRow, read: PlanStepRead, step: Step, stepNumber: number, remembered: boolean): PlanStep {
  return { context: planContextOf(actor, read), step, stepNumber, row: read.step, versions: read.versions, remembered };
}
