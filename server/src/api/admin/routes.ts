import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { authOf, superAdminOnly } from '../../auth/gate.ts';
import { forbidden, notFound } from '../../errors.ts';
import { parse } from '../../http/validate.ts';
import { canSharePlan } from '../../policy/plans.ts';
import { loadPlan } from '../../domain/plans/loadPlan.ts';
import { sharePlanWithUsers } from '../../domain/sharing/sharePlanWithUsers.ts';
import { listPlanShares } from '../../domain/sharing/listPlanShares.ts';
import { unsharePlan } from '../../domain/sharing/unsharePlan.ts';
import { setLiveOverride } from '../../domain/sharing/setLiveOverride.ts';
import {
  liveSchema,
  rolloverQuerySchema,
  rolloverSchema,
  shareQuerySchema,
  shareSchema,
  unshareSchema,
  type LiveResponse,
  type PlanShares,
  type ShareResponse,
  type UnshareResponse,
} from '@csp/shared/api/admin';
import { rolloverDistrict, rolloverProgressKey, rolloverResultKey, type RolloverProgress } from '../../domain/plans/rolloverDistrict.ts';

export function adminRoutes(services: Services): Router {
  const router = new Router({ prefix: '/admin' });

  router.post('/forms/share', async (ctx) => {
    const auth = authOf(ctx);
    const input = parse(shareSchema, ctx.request.body);
    const context = await loadPlan(services, auth.actor, input.formId);
    const userIds = await sharePlanWithUsers(services, { auth, ip: ctx.ip }, context, input);
    ctx.body = { success: true, formId: input.formId, userIds, permissions: input.permissions, sections: input.sections } satisfies ShareResponse;
  });

  router.get('/forms/share', async (ctx) => {
    const actor = authOf(ctx).actor;
    const { formId } = parse(shareQuerySchema, ctx.query);
    const context = await loadPlan(services, actor, formId);
    if (!canSharePlan(actor, context.plan)) throw forbidden();
    ctx.body = { shares: await listPlanShares(services.storage.db, formId) } satisfies PlanShares;
  });

  router.delete('/forms/share', async (ctx) => {
    const auth = authOf(ctx);
    const { formId, userIds } = parse(unshareSchema, ctx.request.body);
    const context = await loadPlan(services, auth.actor, formId);
    ctx.body = { success: true, removed: await unsharePlan(services, { auth, ip: ctx.ip }, context, userIds) } satisfies UnshareResponse;
  });

  router.post('/forms/live', superAdminOnly, async (ctx) => {
    const auth = authOf(ctx);
    const { formId, live } = parse(liveSchema, ctx.request.body);
    const context = await loadPlan(services, auth.actor, formId);
    await setLiveOverride(services, { auth, ip: ctx.ip }, context, live);
    ctx.body = { success: true, formId, allowEditsWhenArchived: live } satisfies LiveResponse;
  });

  router.post('/forms/rollover', superAdminOnly, async (ctx) => {
    const auth = authOf(ctx);
    const input = parse(rolloverSchema, ctx.request.body);
    ctx.body = await rolloverDistrict(services, { auth, ip: ctx.ip }, input);
  });

  /** Progress of a running (or the last) rollover, for clients that poll instead of listening; a finished one adds its report. */
  router.get('/forms/rollover', superAdminOnly, async (ctx) => {
    const { sourceYear, targetYear } = parse(rolloverQuerySchema, ctx.query);
    const [progress, result] = await Promise.all([
      services.kv.get(rolloverProgressKey(sourceYear, targetYear)),
      services.kv.get(rolloverResultKey(sourceYear, targetYear)),
    ]);
    if (!progress) throw notFound('No rollover for these years');
    const parsed = JSON.parse(progress) as RolloverProgress;
    // A finished run also gives its full report (schools created, skipped, filled, errors).
    ctx.body = { progress: parsed, ...(parsed.state === 'done' && result ? { result: JSON.parse(result) } : {}) };
  });

  return router;
}
