import { answerSchema, isStepComplete, questionById, sameAnswer, type Answer, type Step, type StepAnswers } from '@csp/shared';
import type { MergeStrategy } from '@csp/shared/api/forms';
import type { DomainServices } from '../domainServices.ts';
import type { WriteOrigin } from '../events.ts';

import { planSteps } from '../../storage/schema.ts';
import { announceStepWrite, writeStepAnswers } from './writeStepAnswers.ts';
import { invalidInput, conflict, locked } from '../../errors.ts';
import { reloadPlanStep, rememberWrite, type PlanStep } from './loadPlanStep.ts';
import { claimStepLockCounting, releaseStepLock, type StepLock } from './stepLocks.ts';
import type { StepRow, UserRow } from '../../storage/rows.ts';
import type { Checks } from '../../policy/authorize.ts';
import { clearAttestation } from './attestPlan.ts';

export interface StepSave {
  data: Record<string, unknown>;
  completed?: boolean | undefined;
  /** The client's base: the revision it last saw (exact), else the lastUpdated it last saw. */
  revisionCount?: number | undefined;
  lastUpdated?: string | null | undefined;
  mergeStrategy: MergeStrategy;
  /** A restore from the answer's history, not the person typing. */
  origin?: WriteOrigin | undefined;
}

export interface StepSaveResult {
  stepKey: string;
  completed: boolean;
  data: StepAnswers;
  revisionCount: number;
  lastUpdated: Date | null;
  conflicts: string[];
  warnings: string[];
  /** Set when this save took the step lock (not a renewal). */
  lockAcquired: StepLock | null;
}

/** Validates every sent answer against its question; unknown ids and wrong types are a 400. */
function validateAnswers(step: Step, data: Record<string, unknown>): StepAnswers {
  const answers: StepAnswers = {};
  for (const [questionId, value] of Object.entries(data)) {
    const question = questionById(step, questionId);
    if (!question) throw invalidInput(`Unknown question ${questionId} in step ${step.key}`);
    const parsed = answerSchema(question).safeParse(value);
    if (!parsed.success) throw invalidInput(`Invalid answer for ${questionId}: ${parsed.error.issues[0]?.message ?? 'wrong type'}`);
    answers[questionId] = parsed.data as Answer;
  }
  return answers;
}

/**
 * Whether an answer changed after the state the client based its edit on: its revision when the
 * client sent one, else its `lastUpdated` (null: the client saw the step empty). Without either,
 * the client is taken to be up to date.
 */
function changedUnderClient(save: StepSave, row: StepRow, questionId: string): boolean {
  if (save.revisionCount !== undefined) return (row.fieldRevisions[questionId] ?? 0) > save.revisionCount;
  if (save.lastUpdated === undefined) return false;
  if (save.lastUpdated === null) return row.fieldRevisions[questionId] !== undefined;
  return (row.fieldChangedAt[questionId] ?? 0) > Date.parse(save.lastUpdated);
}

const MAX_ATTEMPTS = 100;

/** What a step write needs: the plan's answers may change (year, status), and the step is in the caller's access. */
export type StepWriteChecks = Checks<'changeAnswers' | 'editStep'>;

const mayWrite = (checks: StepWriteChecks, { context, step }: PlanStep) =>
  checks.allows('changeAnswers', context) && checks.allows('editStep', { plan: context, stepKey: step.key });

/** `mayWrite`, or the 403 of the first ability refused. */
function requireWrite(checks: StepWriteChecks, { context, step }: PlanStep): void {
  checks.require('changeAnswers', context);
  checks.require('editStep', { plan: context, stepKey: step.key });
}

/**
 * The save rate limit, counted in the lock's round trip to the store: the entry point's counter,
 * and how it judges the count (a 429 over the limit) or a store failure.
 */
export interface SaveLimit {
  counter: { key: string; ttlMs: number };
  judge(count: number): { warning?: string };
  storeFailed(error: unknown): { warning?: string };
}

/** Who saves, with what the entry point hands each of their saves: the access checks and the rate limit. */
export interface StepWriter {
  actor: UserRow;
  checks: StepWriteChecks;
  limit: SaveLimit;
}

/**
 * Saves one step: archived year → 403, access → 403, step lock (423 while another user holds it,
 * unless the caller edits live), rate limit (never blocking on store failure), then only the
 * answers that differ are written in one statement guarded by the revision and the caller's
 * access as they were read.
 *
 * Access is decided on every plan step the save reads (`checks`, from the entry point), as the
 * plan step may be read again. The plan step may come from this process's memory of the caller's last save (`remembered`):
 * then only a write that its guard lets through is answered from it; a refusal, a conflict, a save
 * that changes nothing or a failed guard is decided again on a fresh read.
 */
export async function saveStep(services: DomainServices, { actor, checks, limit }: StepWriter, found: PlanStep, save: StepSave): Promise<StepSaveResult> {
  let current = found.remembered && !mayWrite(checks, found) ? await reloadPlanStep(services, actor, found) : found;
  const { step } = current;
  requireWrite(checks, current);
  const sent = validateAnswers(step, save.data);
  const formId = current.context.plan.id;
  const warnings: string[] = [];

  // The lock and the rate-limit count go out in one round trip; their outcomes are then applied in
  // the specification's order. A store failure costs both their effect, never the save.
  const db = services.storage.db;
  const claimed = await claimStepLockCounting(services.kv, services.config.stepLockTtlMs, formId, step.key, actor, limit.counter).catch((error: unknown) => {
    services.logger.warn({ err: error }, 'step lock unavailable; saving without it');
    warnings.push('Step locking is temporarily unavailable; your changes were saved');
    return { error };
  });

  let lockAcquired: StepLock | null = null;
  if ('attempt' in claimed) {
    const { attempt } = claimed;
    if (!attempt.acquired) {
      // A live co-editor of the step (a restore from History, an API call beside the open editor) shares it, as the document does.
      if (!(await services.liveEditing.isLiveEditor(formId, step.key, actor.id)))
        throw locked('Step is locked', { lockedBy: attempt.lock.lockedBy, expiresAt: attempt.lock.expiresAt });
    } else if (!attempt.refreshed) {
      lockAcquired = attempt.lock;
      await services.events.publish({ type: 'step.lockTaken', formId, lock: attempt.lock });
    }
  }
  const counted = 'count' in claimed ? limit.judge(claimed.count) : limit.storeFailed(claimed.error);
  if (counted.warning) warnings.push(counted.warning);

  /** Reads the plan step again and decides access on it; refused (or the plan gone), the save lets go of a lock it took. */
  const reread = async () => {
    try {
      current = await reloadPlanStep(services, actor, current);
      requireWrite(checks, current);
    } catch (error) {
      const lock = lockAcquired;
      if (lock && (await releaseStepLock(services.kv, formId, step.key, actor.id).catch(() => false)))
        await services.events.publish({ type: 'step.lockReleased', formId, lock });
      throw error;
    }
  };

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const row = current.row;
    if (!row) {
      // A step added to the bank after the plan was created.
      await db.insert(planSteps).values({ formId, stepKey: step.key }).onConflictDoNothing();
      await reread();
      continue;
    }
    const dirty: StepAnswers = {};
    const conflicts: string[] = [];
    for (const [questionId, value] of Object.entries(sent)) {
      if (sameAnswer(value, row.data[questionId])) continue;
      if (save.mergeStrategy !== 'last-write-wins' && changedUnderClient(save, row, questionId)) conflicts.push(questionId);
      else dirty[questionId] = value;
    }
    const merged = { ...row.data, ...dirty };
    const completed = isStepComplete(step, merged) || save.completed === true;
    const rejected = save.mergeStrategy === 'reject' && conflicts.length > 0;
    const unchanged = Object.keys(dirty).length === 0 && completed === row.completed;
    if (current.remembered && (rejected || unchanged)) {
      await reread();
      continue;
    }
    if (rejected) {
      throw conflict('The step changed since you loaded it', {
        conflict: true,
        conflicts,
        serverData: row.data,
        serverRevision: row.revisionCount,
        serverLastUpdated: row.lastUpdated?.toISOString() ?? null,
      });
    }
    const result = { stepKey: step.key, conflicts, warnings, lockAcquired };
    if (unchanged) return { ...result, completed, data: row.data, revisionCount: row.revisionCount, lastUpdated: row.lastUpdated };
    const written = await writeStepAnswers(db, row, dirty, completed, actor.id, { userId: actor.id, versions: current.versions });
    if (written) {
      const { hasDocument: _hasDocument, ...writtenRow } = written;
      rememberWrite(services, actor, current, writtenRow);
      // Answers changed after the principal attested: the plan is attested again before it is submitted.
      if (current.context.plan.attestation) await clearAttestation(db, formId);
      announceStepWrite(services, formId, step, actor, dirty, completed, written, { origin: save.origin });
      return { ...result, completed, data: written.data, revisionCount: written.revisionCount, lastUpdated: written.lastUpdated };
    }
    // Another write, or a change of the caller's access, came first: read both again.
    await reread();
  }
  throw conflict('The step is being saved by many writers at once; try again');
}
