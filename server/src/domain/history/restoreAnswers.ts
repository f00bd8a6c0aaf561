import { sameAnswer, type Answer, type Step, type StepAnswers } from '@csp/shared';
import type { DomainServices } from '../domainServices.ts';
import { notFound } from '../../errors.ts';
import type { Authorized } from '../../policy/authorize.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import { loadPlanStep } from '../plans/loadPlanStep.ts';
import { saveStep, type StepSaveResult, type StepWriter } from '../plans/saveStep.ts';
import type { WriteOrigin } from '../events.ts';
import { findRevision } from './readHistory.ts';
import { loadPlanVersion } from './planVersions.ts';

export interface RestoreResult {
  stepKey: string;
  /** The answers the restore changed. */
  restored: string[];
  saved: StepSaveResult;
}

/**
 * Writes answers back as a step save by the restorer: the same access, lifecycle and lock rules as
 * any save (a plan with the district refuses it), applied to the live document so whoever is
 * editing sees it at once, and recorded in the history as a restore, itself restorable.
 */
async function restore(
  services: DomainServices,
  writer: StepWriter,
  context: Authorized<PlanContext, 'readPlan'>,
  stepKey: string,
  answersFor: (step: Step) => StepAnswers,
  origin: WriteOrigin,
): Promise<RestoreResult> {
  const steps = (await services.banks.resolve(context.plan.questionBankVersion)).steps;
  const position = steps.findIndex((step) => step.key === stepKey);
  if (position < 0) throw notFound('That step is no longer in this plan');
  const found = await loadPlanStep(services, writer.actor, context.plan.id, String(position + 1));
  const before = found.row?.data ?? {};
  const answers = answersFor(found.step);
  const saved = await saveStep(services, writer, found, { data: answers, mergeStrategy: 'last-write-wins', origin });
  const restored = Object.keys(answers).filter((questionId) => !sameAnswer(saved.data[questionId], before[questionId]));
  return { stepKey, restored, saved };
}

/** One answer back as a revision left it (`after`) or found it (`before`). */
export async function restoreRevision(
  services: DomainServices,
  writer: StepWriter,
  context: Authorized<PlanContext, 'readPlan'>,
  revisionId: string,
  to: 'after' | 'before',
): Promise<RestoreResult> {
  const revision = await findRevision(services.storage.db, context.plan.id, revisionId);
  if (!revision) throw notFound('Revision not found');
  const value = (to === 'after' ? revision.after : revision.before) as Answer | null;
  return restore(services, writer, context, revision.stepKey, () => ({ [revision.questionId]: value }), { kind: 'restore', revisionId });
}

/** A whole step back as a version of the plan held it (answers the version did not have become empty). */
export async function restoreStepFromVersion(
  services: DomainServices,
  writer: StepWriter,
  context: Authorized<PlanContext, 'readPlan'>,
  versionId: string,
  stepKey: string,
): Promise<RestoreResult> {
  const version = await loadPlanVersion(services.storage.db, context.plan.id, versionId);
  const held = version.steps[stepKey]?.data ?? {};
  const answersOf = (step: Step): StepAnswers => Object.fromEntries(step.questions.map((question) => [question.id, held[question.id] ?? null]));
  return restore(services, writer, context, stepKey, answersOf, { kind: 'restore', revisionId: null });
}
