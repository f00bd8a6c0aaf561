import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { authOf, districtCallerOf, superAdminOnly } from '../../auth/gate.ts';
import { parse } from '../../http/validate.ts';
import { loadPlan } from '../../domain/plans/loadPlan.ts';
import { loadPlanFor } from '../../auth/loadPlanFor.ts';
import { sharePlanWithUsers } from '../../domain/sharing/sharePlanWithUsers.ts';
import { listPlanShares } from '../../domain/sharing/listPlanShares.ts';
import { unsharePlan } from '../../domain/sharing/unsharePlan.ts';
import { setLiveOverride } from '../../domain/sharing/setLiveOverride.ts';
import {
  liveResponseSchema,
  liveSchema,
  planSharesSchema,
  rolloverProgressResponseSchema,
  rolloverQuerySchema,
  rolloverResultSchema,
  rolloverSchema,
  shareQuerySchema,
  shareResponseSchema,
  shareSchema,
  unshareResponseSchema,
  unshareSchema,
  type LiveResponse,
  type PlanShares,
  type ShareResponse,
  type UnshareResponse,
} from '@csp/shared/api/admin';
import { rolloverDistrict, rolloverStatus } from '../../domain/plans/rolloverDistrict.ts';

import { operations } from '../../http/operation.ts';

const operation = operations('Plan administration', {
  share: { summary: 'Share a plan with users', body: shareSchema, responses: { 200: shareResponseSchema } },
  shares: { summary: 'The people a plan is shared with', query: shareQuerySchema, responses: { 200: planSharesSchema } },
  unshare: { summary: 'Stop sharing a plan with users', body: unshareSchema, responses: { 200: unshareResponseSchema } },
  live: { summary: 'Let a plan of an archived year be edited, or stop it', body: liveSchema, responses: { 200: liveResponseSchema } },
  rollover: { summary: 'Roll the district’s plans over to the next year', body: rolloverSchema, responses: { 200: rolloverResultSchema } },
  rolloverProgress: {
    summary: 'Progress of a rollover',
    description: 'For clients that poll instead of listening; a finished one adds its report.',
    query: rolloverQuerySchema,
    responses: { 200: rolloverProgressResponseSchema },
  },
});

export function adminRoutes(services: Services): Router {
  const router = new Router({ prefix: '/admin' });

  router.post('/forms/share', operation.share, async (ctx) => {
    const auth = authOf(ctx);
    const input = parse(shareSchema, ctx.request.body);
    const context = await loadPlanFor(services, auth.actor, input.formId, ['sharePlan', 'writePlan']);
    const userIds = await sharePlanWithUsers(services, { auth, ip: ctx.ip }, context, input);
    ctx.body = { success: true, formId: input.formId, userIds, permissions: input.permissions, sections: input.sections } satisfies ShareResponse;
  });

  router.get('/forms/share', operation.shares, async (ctx) => {
    const actor = authOf(ctx).actor;
    const { formId } = parse(shareQuerySchema, ctx.query);
    await loadPlanFor(services, actor, formId, ['sharePlan']);
    ctx.body = { shares: await listPlanShares(services.storage.db, formId) } satisfies PlanShares;
  });

  router.delete('/forms/share', operation.unshare, async (ctx) => {
    const auth = authOf(ctx);
    const { formId, userIds } = parse(unshareSchema, ctx.request.body);
    const context = await loadPlanFor(services, auth.actor, formId, ['sharePlan']);
    ctx.body = { success: true, removed: await unsharePlan(services, { auth, ip: ctx.ip }, context, userIds) } satisfies UnshareResponse;
  });

  router.post('/forms/live', operation.live, superAdminOnly, async (ctx) => {
    const caller = districtCallerOf(ctx);
    const { formId, live } = parse(liveSchema, ctx.request.body);
    const context = await loadPlan(services, caller.auth.actor, formId);
    await setLiveOverride(services, caller, context, live);
    ctx.body = { success: true, formId, allowEditsWhenArchived: live } satisfies LiveResponse;
  });

  router.post('/forms/rollover', operation.rollover, superAdminOnly, async (ctx) => {
    const auth = authOf(ctx);
    const input = parse(rolloverSchema, ctx.request.body);
    ctx.body = await rolloverDistrict(services, { auth, ip: ctx.ip }, input);
  });

  /** Progress of a running (or the last) rollover, for clients that poll instead of listening; a finished one adds its report. */
  router.get('/forms/rollover', operation.rolloverProgress, superAdminOnly, async (ctx) => {
    const { sourceYear, targetYear } = parse(rolloverQuerySchema, ctx.query);
    ctx.body = await rolloverStatus(services, sourceYear, targetYear);
  });

  return router;
}
