import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.ts';
import { authOf } from '../../auth/gate.ts';
import { parse, pathId } from '../../http/validate.ts';
import { loadPlanFor } from '../../auth/loadPlanFor.ts';
import { authorize } from '../../policy/authorize.ts';
import { stepWriterFor } from '../stepWriter.ts';
import { readAnswerHistory } from '../../domain/history/readHistory.ts';
import { listPlanVersions, loadPlanVersion } from '../../domain/history/planVersions.ts';
import { restoreRevision, restoreStepFromVersion, type RestoreResult } from '../../domain/history/restoreAnswers.ts';
import { presentRevision, presentVersion, presentVersionSummary } from '../../presenters/history.ts';
import { can } from '../../policy/index.ts';
import { operations } from '../../http/operation.ts';
import {
  historyQuerySchema,
  historyResponseSchema,
  planVersionSchema,
  restoreResponseSchema,
  restoreRevisionSchema,
  restoreVersionStepSchema,
  versionListSchema,
  type HistoryResponse,
  type PlanVersion,
  type RestoreResponse,
  type VersionList,
} from '@csp/shared/api/history';

const restoreRefusals =
  'Refused (403) while the plan is with the district (submitted, under review, approved), in an archived year, or to people who cannot edit the step; 423 while another person holds the step lock.';

const operation = operations('Plan history', {
  history: {
    summary: 'Who changed which answer, when, from what to what',
    description:
      'Newest first. One answer (`stepKey` and `questionId`), one step (`stepKey`) or the whole plan; only the steps the caller may read. A person’s burst of edits on one answer is one revision.',
    query: historyQuerySchema,
    responses: { 200: historyResponseSchema },
  },
  restoreRevision: {
    summary: 'Bring an answer back as a revision left it (or found it)',
    description: `Written like a step save by the caller, applied to the live document, and recorded as a revision of its own. ${restoreRefusals}`,
    body: restoreRevisionSchema,
    responses: { 200: restoreResponseSchema },
  },
  versions: {
    summary: 'The plan’s versions: one at each decision (submit, review, approval, return) and the copy that began it',
    responses: { 200: versionListSchema },
  },
  version: { summary: 'One version of the plan, with the answers it held (the steps the caller may read)', responses: { 200: planVersionSchema } },
  restoreVersionStep: {
    summary: 'Bring one step back as a version held it',
    description: `Answers the version did not have become empty. ${restoreRefusals}`,
    body: restoreVersionStepSchema,
    responses: { 200: restoreResponseSchema },
  },
});

const presentRestore = ({ stepKey, restored, saved }: RestoreResult): RestoreResponse => ({
  success: true,
  stepKey,
  restored,
  revisionCount: saved.revisionCount,
  lastUpdated: saved.lastUpdated?.toISOString() ?? null,
});

/** GET /api/forms/:id/history, its restores, and the plan's versions. */
export function historyRoutes(services: Services): Router {
  const router = new Router({ prefix: '/forms/:id' });
  const db = services.storage.db;
  const readable = (ctx: Context) => loadPlanFor(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'), ['readPlan']);
  const writerOf = (ctx: Context, formId: string) => stepWriterFor(services.rateLimits, authOf(ctx).actor, formId);

  router.get('/history', operation.history, async (ctx) => {
    const context = await readable(ctx);
    const query = parse(historyQuerySchema, ctx.query);
    if (query.stepKey) authorize(context.actor, 'readStep', { plan: context, stepKey: query.stepKey });
    const { revisions, names, total } = await readAnswerHistory(db, context, query);
    ctx.body = {
      revisions: revisions.map((revision) => presentRevision(revision, names)),
      page: query.page,
      limit: query.limit,
      total,
    } satisfies HistoryResponse;
  });

  router.post('/history/:revisionId/restore', operation.restoreRevision, async (ctx) => {
    const context = await readable(ctx);
    const { to } = parse(restoreRevisionSchema, ctx.request.body ?? {});
    const result = await restoreRevision(services, writerOf(ctx, context.plan.id), context, pathId(ctx.params.revisionId, 'Revision not found'), to);
    ctx.body = presentRestore(result);
  });

  router.get('/versions', operation.versions, async (ctx) => {
    const context = await readable(ctx);
    ctx.body = { versions: (await listPlanVersions(db, context.plan.id)).map(presentVersionSummary) } satisfies VersionList;
  });

  router.get('/versions/:versionId', operation.version, async (ctx) => {
    const context = await readable(ctx);
    const version = await loadPlanVersion(db, context.plan.id, pathId(ctx.params.versionId, 'Version not found'));
    ctx.body = presentVersion(version, (stepKey) => can(context.actor, 'readStep', { plan: context, stepKey })) satisfies PlanVersion;
  });

  router.post('/versions/:versionId/restore', operation.restoreVersionStep, async (ctx) => {
    const context = await readable(ctx);
    const { stepKey } = parse(restoreVersionStepSchema, ctx.request.body);
    const result = await restoreStepFromVersion(services, writerOf(ctx, context.plan.id), context, pathId(ctx.params.versionId, 'Version not found'), stepKey);
    ctx.body = presentRestore(result);
  });

  return router;
}
