import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.ts';
import { authOf } from '../../auth/gate.ts';
import { notFound } from '../../errors.ts';
import { parse, pathId } from '../../http/validate.ts';
import { authorize } from '../../policy/authorize.ts';
import { stepWriterFor } from '../stepWriter.ts';
import { loadPlan, type PlanContext } from '../../domain/plans/loadPlan.ts';
import { saveStep } from '../../domain/plans/saveStep.ts';
import { loadPlanStep, type PlanStep } from '../../domain/plans/loadPlanStep.ts';
import { listStepLocks, refreshStepLock, releaseStepLock } from '../../domain/plans/stepLocks.ts';
import { listPresence, registerPresence } from '../../domain/plans/presence.ts';
import { stepKeysOf } from '../../domain/questionBank/bankCatalog.ts';
import { presentStepResponse } from '../../presenters/plan.ts';
import {
  conflictErrorSchema,
  editorsResponseSchema,
  lockedErrorSchema,
  locksResponseSchema,
  registerEditorResponseSchema,
  registerEditorSchema,
  stepResponseSchema,
  stepSaveSchema,
  unlockResponseSchema,
  type EditorsResponse,
  type LocksResponse,
  type RegisterEditorResponse,
  type UnlockResponse,
} from '@csp/shared/api/forms';
import { operations } from '../../http/operation.ts';

const operation = operations('Plan steps', {
  read: {
    summary: 'A step’s answers',
    description: 'Steps are numbered from 1 in the plan’s question bank. Reading keeps the caller’s own lock alive.',
    responses: { 200: stepResponseSchema },
  },
  save: {
    summary: 'Save a step’s answers',
    description: 'Takes the step lock. `revisionCount` and `lastUpdated` detect a save in between; `mergeStrategy` says what happens then.',
    body: stepSaveSchema,
    responses: { 200: stepResponseSchema, 409: conflictErrorSchema, 423: lockedErrorSchema },
  },
  unlock: { summary: 'Release the caller’s step lock', responses: { 200: unlockResponseSchema } },
  locks: { summary: 'Who holds which step lock', responses: { 200: locksResponseSchema } },
  editors: { summary: 'Who has the plan open', responses: { 200: editorsResponseSchema } },
  registerEditor: {
    summary: 'Report the caller’s presence on the plan (and step)',
    body: registerEditorSchema,
    responses: { 200: registerEditorResponseSchema },
  },
});

export function stepsRoutes(services: Services): Router {
  const router = new Router({ prefix: '/forms/:id' });
  const { kv } = services;

  async function planFor(ctx: Context): Promise<PlanContext> {
    return loadPlan(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'));
  }

  /** Step numbers are 1-based positions in the plan's pinned bank (default key order without one). */
  function planStepFor(ctx: Context): Promise<PlanStep> {
    return loadPlanStep(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'), ctx.params.stepNumber);
  }

  router.get('/step/:stepNumber', operation.read, async (ctx) => {
    const actor = authOf(ctx).actor;
    const { context, step, stepNumber, row } = await planStepFor(ctx);
    authorize(actor, 'readStep', { plan: context, stepKey: step.key });
    // An open editor keeps its own lock alive.
    await refreshStepLock(kv, services.config.stepLockTtlMs, context.plan.id, step.key, actor.id).catch(() => false);
    ctx.body = presentStepResponse(step.key, stepNumber, row);
  });

  router.put('/step/:stepNumber', operation.save, async (ctx) => {
    const actor = authOf(ctx).actor;
    // An editor's autosaves may start from what this process last read or wrote for it.
    const found = await loadPlanStep(services, actor, pathId(ctx.params.id, 'Plan not found'), ctx.params.stepNumber, { remembered: true });
    const body = parse(stepSaveSchema, ctx.request.body);
    const result = await saveStep(services, stepWriterFor(services.rateLimits, actor, found.context.plan.id), found, {
      data: body.stepData.data,
      completed: body.stepData.completed,
      revisionCount: body.revisionCount,
      lastUpdated: body.lastUpdated,
      mergeStrategy: body.mergeStrategy,
    });
    ctx.body = presentStepResponse(found.step.key, found.stepNumber, result, result);
  });

  router.post('/step/:stepNumber/unlock', operation.unlock, async (ctx) => {
    const actor = authOf(ctx).actor;
    const { context, step } = await planStepFor(ctx);
    authorize(actor, 'editStep', { plan: context, stepKey: step.key });
    const [held] = await listStepLocks(kv, context.plan.id, [step.key]);
    if (held) authorize(actor, 'releaseStepLock', held);
    const released = await releaseStepLock(kv, context.plan.id, step.key, actor.id);
    if (released && held) services.realtime.lockChanged(context.plan.id, 'released', held);
    ctx.body = { success: true, released } satisfies UnlockResponse;
  });

  router.get('/locks', operation.locks, async (ctx) => {
    const actor = authOf(ctx).actor;
    const context = await planFor(ctx);
    authorize(actor, 'seePresence', context);
    const stepKeys = stepKeysOf(await services.banks.resolve(context.plan.questionBankVersion));
    const locks = await listStepLocks(kv, context.plan.id, stepKeys);
    ctx.body = { locks: locks.map((lock) => ({ ...lock, isCurrentUser: lock.lockedBy.userId === actor.id })) } satisfies LocksResponse;
  });

  router.get('/editors', operation.editors, async (ctx) => {
    const actor = authOf(ctx).actor;
    const context = await planFor(ctx);
    authorize(actor, 'seePresence', context);
    ctx.body = { editors: await listPresence(kv, context.plan.id) } satisfies EditorsResponse;
  });

  router.post('/editors/register', operation.registerEditor, async (ctx) => {
    const actor = authOf(ctx).actor;
    const context = await planFor(ctx);
    authorize(actor, 'seePresence', context);
    const { stepKey = null } = parse(registerEditorSchema, ctx.request.body);
    if (stepKey !== null) {
      const stepKeys = stepKeysOf(await services.banks.resolve(context.plan.questionBankVersion));
      if (!stepKeys.includes(stepKey)) throw notFound('No such step in this plan');
      await refreshStepLock(kv, services.config.stepLockTtlMs, context.plan.id, stepKey, actor.id).catch(() => false);
    }
    const editor = await registerPresence(kv, context.plan.id, actor, stepKey);
    const editors = await listPresence(kv, context.plan.id);
    services.realtime.toPlan(context.plan.id, 'presence', { editors });
    ctx.body = { success: true, editor, editors } satisfies RegisterEditorResponse;
  });

  return router;
}
