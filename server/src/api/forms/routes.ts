import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../services.ts';
import { authOf, superAdminOnly, callerOf } from '../../auth/gate.ts';
import { forbidden } from '../../errors.ts';
import { parse, pathId } from '../../http/validate.ts';
import { loadPlan, loadReadablePlan } from '../../domain/plans/loadPlan.ts';
import { listPlans } from '../../domain/plans/listPlans.ts';
import { createPlan } from '../../domain/plans/createPlan.ts';
import { loadFullPlan } from '../../domain/plans/loadFullPlan.ts';
import { changePlanStatus } from '../../domain/plans/changePlanStatus.ts';
import { updatePlanMetadata } from '../../domain/plans/updatePlanMetadata.ts';
import { deletePlan } from '../../domain/plans/deletePlan.ts';
import { attestPlan } from '../../domain/plans/attestPlan.ts';
import { clearReviewFlag } from '../../domain/plans/clearReviewFlag.ts';
import { setEmailShares } from '../../domain/sharing/setEmailShares.ts';
import { transferCandidates, transferOwnership } from '../../domain/sharing/transferOwnership.ts';
import { stepKeysOf } from '../../domain/questionBank/bankCatalog.ts';
import { duplicatePlan } from '../../domain/plans/duplicatePlan.ts';
import { comparePlans } from '../../domain/plans/comparePlans.ts';
import { completedStepsOf, presentFullPlan, presentPlanSummary } from '../../presenters/plan.ts';
import { compareQuerySchema, duplicateSchema } from '@csp/shared/api/forms';
import {
  attestSchema,
  createFormSchema,
  emailShareSchema,
  listFormsQuerySchema,
  reviewFlagSchema,
  transferSchema,
  updateFormSchema,
  type AttestResponse,
  type CreateFormResponse,
  type DuplicateResponse,
  type PlanList,
  type PlanUpdateResponse,
  type ReviewFlagResponse,
  type EmailShareResponse,
  type TransferCandidates,
  type TransferResponse,
} from '@csp/shared/api/forms';

export function formsRoutes(services: Services): Router {
  const router = new Router({ prefix: '/forms' });
  const planFor = (ctx: Context) => loadPlan(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'));

  router.get('/', async (ctx) => {
    const actor = authOf(ctx).actor;
    const query = parse(listFormsQuerySchema, ctx.query);
    const { rows, total } = await listPlans(services, actor, query);
    const forms = await Promise.all(
      rows.map(async ({ plan, completedStepKeys, yearArchived }) => {
        const stepKeys = stepKeysOf(await services.banks.resolve(plan.questionBankVersion));
        return presentPlanSummary(plan, completedStepsOf(stepKeys, completedStepKeys), yearArchived);
      }),
    );
    ctx.body = { forms, total, page: query.page, limit: query.limit } satisfies PlanList;
  });

  router.post('/', async (ctx) => {
    const caller = callerOf(ctx);
    await services.rateLimits.consume('formsCreate', caller.auth.user.id);
    const input = parse(createFormSchema, ctx.request.body);
    const formId = await createPlan(services, caller, input);
    ctx.body = { success: true, formId, message: `Plan created for ${input.schoolName} (${input.schoolYear})` } satisfies CreateFormResponse;
  });

  // Static paths before /:id.
  router.get('/transfer-ownership', superAdminOnly, async (ctx) => {
    ctx.body = { principals: await transferCandidates(services) } satisfies TransferCandidates;
  });

  router.post('/transfer-ownership', superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const { formId, newOwnerEmail } = parse(transferSchema, ctx.request.body);
    const context = await loadPlan(services, caller.auth.actor, formId);
    const plan = await transferOwnership(services, caller, context, newOwnerEmail);
    ctx.body = {
      success: true,
      formId,
      userId: plan.userId,
      principalEmail: plan.principalEmail,
      transferHistory: plan.transferHistory,
    } satisfies TransferResponse;
  });

  router.get('/:id', async (ctx) => {
    const context = await loadReadablePlan(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'));
    ctx.body = presentFullPlan(await loadFullPlan(services, context));
  });

  router.put('/:id', async (ctx) => {
    const caller = callerOf(ctx);
    const context = await planFor(ctx);
    if (!context.access.read) throw forbidden();
    const body = parse(updateFormSchema, ctx.request.body);
    if (body.action === 'update') {
      const { action: _action, ...changes } = body;
      const plan = await updatePlanMetadata(services, caller, context, changes);
      ctx.body = { success: true, form: presentPlanSummary(plan, [], context.yearArchived) } satisfies PlanUpdateResponse;
      return;
    }
    const plan = await changePlanStatus(services, caller, context, body);
    ctx.body = { success: true, status: plan.status, form: presentPlanSummary(plan, [], context.yearArchived) } satisfies PlanUpdateResponse;
  });

  router.delete('/:id', superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    await deletePlan(services, caller, await planFor(ctx));
    ctx.body = { success: true };
  });

  router.post('/:id/attest', async (ctx) => {
    const caller = callerOf(ctx);
    const context = await planFor(ctx);
    const { name } = parse(attestSchema, ctx.request.body);
    ctx.body = { success: true, attestation: await attestPlan(services, caller, context, name) } satisfies AttestResponse;
  });

  router.post('/:id/review-flag', async (ctx) => {
    const caller = callerOf(ctx);
    const context = await planFor(ctx);
    if (!context.access.edit) throw forbidden();
    const { questionId, stepKey } = parse(reviewFlagSchema, ctx.request.body);
    const { needsUpdate } = await clearReviewFlag(services, caller, context, questionId, stepKey);
    ctx.body = { success: true, needsUpdate } satisfies ReviewFlagResponse;
  });

  router.post('/:id/duplicate', async (ctx) => {
    const caller = callerOf(ctx);
    const context = await planFor(ctx);
    const { schoolYear, force } = parse(duplicateSchema, ctx.request.body);
    const { formId, created } = await duplicatePlan(services, caller, context, schoolYear, force);
    ctx.body = {
      success: true,
      formId,
      schoolYear,
      sourceYear: context.plan.schoolYear,
      message: created ? `Copied to ${schoolYear}` : `Filled the empty answers of the existing ${schoolYear} plan`,
    } satisfies DuplicateResponse;
  });

  router.get('/:id/compare', async (ctx) => {
    const context = await loadReadablePlan(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'));
    const { compareYear, steps } = parse(compareQuerySchema, ctx.query);
    ctx.body = await comparePlans(services, context, compareYear, steps === 'all');
  });

  router.post('/:id/share', superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const context = await planFor(ctx);
    const { sharedWithEmails } = parse(emailShareSchema, ctx.request.body);
    ctx.body = { success: true, sharedWithEmails: await setEmailShares(services, caller, context, sharedWithEmails) } satisfies EmailShareResponse;
  });

  return router;
}
