import Router from '@koa/router';
import { z } from 'zod';
import type { Context } from 'koa';
import type { Services } from '../../services.ts';
import { authOf, superAdminOnly, callerOf, districtCallerOf } from '../../auth/gate.ts';
import { parse, pathId } from '../../http/validate.ts';
import { loadPlan } from '../../domain/plans/loadPlan.ts';
import { loadPlanFor } from '../../auth/loadPlanFor.ts';
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
import { completedStepsOf, presentFullPlan, presentPlanListItem, presentPlanSummary } from '../../presenters/plan.ts';
import { compareQuerySchema, duplicateSchema } from '@csp/shared/api/forms';
import {
  attestResponseSchema,
  attestSchema,
  compareResponseSchema,
  createFormResponseSchema,
  createFormSchema,
  duplicateResponseSchema,
  emailShareResponseSchema,
  emailShareSchema,
  fullPlanSchema,
  lightPlanListSchema,
  listFormsQuerySchema,
  planListSchema,
  planUpdateResponseSchema,
  reviewFlagResponseSchema,
  reviewFlagSchema,
  transferCandidatesSchema,
  transferResponseSchema,
  transferSchema,
  updateFormSchema,
  type AttestResponse,
  type CreateFormResponse,
  type DuplicateResponse,
  type EmailShareResponse,
  type LightPlanList,
  type PlanList,
  type PlanUpdateResponse,
  type ReviewFlagResponse,
  type TransferCandidates,
  type TransferResponse,
} from '@csp/shared/api/forms';
import { authorize, authorizeInput, authorizePlan, checksFor } from '../../policy/authorize.ts';
import { operations } from '../../http/operation.ts';
import { successSchema } from '@csp/shared/api/common';

const operation = operations('Plans', {
  list: {
    summary: 'List plans',
    description: 'With `view=light`, each plan carries `flagsToReview` and `openComments` instead of `needsUpdate` and `transferHistory`.',
    query: listFormsQuerySchema,
    responses: { 200: z.union([planListSchema, lightPlanListSchema]) },
  },
  create: { summary: 'Create a plan', body: createFormSchema, responses: { 200: createFormResponseSchema } },
  transferCandidates: { summary: 'Principals who can receive a plan', responses: { 200: transferCandidatesSchema } },
  transfer: { summary: 'Transfer a plan to another principal', body: transferSchema, responses: { 200: transferResponseSchema } },
  read: { summary: 'A plan with its answers, permissions, shares and comments', responses: { 200: fullPlanSchema } },
  update: { summary: 'Update a plan’s details, submit it or review it', body: updateFormSchema, responses: { 200: planUpdateResponseSchema } },
  remove: { summary: 'Delete a plan', responses: { 200: successSchema } },
  attest: { summary: 'Attest a plan', body: attestSchema, responses: { 200: attestResponseSchema } },
  clearReviewFlag: { summary: 'Mark a flagged answer reviewed', body: reviewFlagSchema, responses: { 200: reviewFlagResponseSchema } },
  duplicate: {
    summary: 'Copy a plan to another year',
    description: 'Fills the empty answers of that year’s plan when the school has one.',
    body: duplicateSchema,
    responses: { 200: duplicateResponseSchema },
  },
  compare: { summary: 'A plan’s answers beside another year’s', query: compareQuerySchema, responses: { 200: compareResponseSchema } },
  emailShare: { summary: 'Set the e-mail addresses a plan is shared with', body: emailShareSchema, responses: { 200: emailShareResponseSchema } },
});

export function formsRoutes(services: Services): Router {
  const router = new Router({ prefix: '/forms' });
  const planFor = (ctx: Context) => loadPlan(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'));

  router.get('/', operation.list, async (ctx) => {
    const actor = authOf(ctx).actor;
    const query = parse(listFormsQuerySchema, ctx.query);
    const light = query.view === 'light';
    const { rows, total } = await listPlans(services, actor, { ...query, countOpenComments: light });
    const listed = await Promise.all(
      rows.map(async (row) => ({
        ...row,
        completedSteps: completedStepsOf(stepKeysOf(await services.banks.resolve(row.plan.questionBankVersion)), row.completedStepKeys),
      })),
    );
    const paging = { total, page: query.page, limit: query.limit };
    ctx.body = light
      ? ({
          forms: listed.map((row) => presentPlanListItem(row.plan, row.completedSteps, row.yearArchived, row.openComments)),
          ...paging,
        } satisfies LightPlanList)
      : ({ forms: listed.map((row) => presentPlanSummary(row.plan, row.completedSteps, row.yearArchived)), ...paging } satisfies PlanList);
  });

  router.post('/', operation.create, async (ctx) => {
    const caller = callerOf(ctx);
    await services.rateLimits.consume('formsCreate', caller.auth.user.id);
    const body = parse(createFormSchema, ctx.request.body);
    const input = authorizeInput(caller.auth.actor, body, { createPlans: undefined, createPlanForSchool: body.schoolName });
    if (input.initialOwnerEmail !== undefined) authorize(caller.auth.actor, 'choosePlanOwner');
    const formId = await createPlan(services, caller, input);
    ctx.body = { success: true, formId, message: `Plan created for ${input.schoolName} (${input.schoolYear})` } satisfies CreateFormResponse;
  });

  // Static paths before /:id.
  router.get('/transfer-ownership', operation.transferCandidates, superAdminOnly, async (ctx) => {
    ctx.body = { principals: await transferCandidates(services) } satisfies TransferCandidates;
  });

  router.post('/transfer-ownership', operation.transfer, superAdminOnly, async (ctx) => {
    const caller = districtCallerOf(ctx);
    const { formId, newOwnerEmail } = parse(transferSchema, ctx.request.body);
    const context = await loadPlanFor(services, caller.auth.actor, formId, ['writePlan']);
    const plan = await transferOwnership(services, caller, context, newOwnerEmail);
    ctx.body = {
      success: true,
      formId,
      userId: plan.userId,
      principalEmail: plan.principalEmail,
      transferHistory: plan.transferHistory,
    } satisfies TransferResponse;
  });

  router.get('/:id', operation.read, async (ctx) => {
    const context = await loadPlanFor(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'), ['readPlan']);
    ctx.body = presentFullPlan(await loadFullPlan(services, context));
  });

  router.put('/:id', operation.update, async (ctx) => {
    const caller = callerOf(ctx);
    const context = await loadPlanFor(services, caller.auth.actor, pathId(ctx.params.id, 'Plan not found'), ['readPlan']);
    const body = parse(updateFormSchema, ctx.request.body);
    if (body.action === 'update') {
      const { action: _action, ...changes } = body;
      const managed = authorizePlan(caller.auth.actor, context, ['writePlan', 'managePlan']);
      if (changes.schoolName !== undefined && changes.schoolName !== context.plan.schoolName) authorize(caller.auth.actor, 'movePlanToSchool', context);
      const plan = await updatePlanMetadata(services, caller, managed, changes);
      ctx.body = { success: true, form: presentPlanSummary(plan, [], context.yearArchived) } satisfies PlanUpdateResponse;
      return;
    }
    // Submitting is for editors of the whole plan, not of some sections.
    const plan = await changePlanStatus(
      services,
      caller,
      body.action === 'submit'
        ? authorizePlan(caller.auth.actor, context, ['writePlan', 'submitPlan'])
        : authorizePlan(caller.auth.actor, context, ['writePlan', 'reviewPlan']),
      body,
    );
    ctx.body = { success: true, status: plan.status, form: presentPlanSummary(plan, [], context.yearArchived) } satisfies PlanUpdateResponse;
  });

  router.delete('/:id', operation.remove, superAdminOnly, async (ctx) => {
    const caller = districtCallerOf(ctx);
    await deletePlan(services, caller, await planFor(ctx));
    ctx.body = { success: true };
  });

  router.post('/:id/attest', operation.attest, async (ctx) => {
    const caller = callerOf(ctx);
    const context = await planFor(ctx);
    const { name } = parse(attestSchema, ctx.request.body);
    const attestable = authorizePlan(caller.auth.actor, context, ['changeAnswers', 'attestPlan']);
    ctx.body = { success: true, attestation: await attestPlan(services, caller, attestable, name) } satisfies AttestResponse;
  });

  router.post('/:id/review-flag', operation.clearReviewFlag, async (ctx) => {
    const caller = callerOf(ctx);
    const context = await loadPlanFor(services, caller.auth.actor, pathId(ctx.params.id, 'Plan not found'), ['editPlan']);
    const { questionId, stepKey } = parse(reviewFlagSchema, ctx.request.body);
    const open = authorizePlan(caller.auth.actor, context, ['changeAnswers']);
    const { needsUpdate } = await clearReviewFlag(services, caller, open, checksFor(caller.auth.actor, ['editStep']), questionId, stepKey);
    ctx.body = { success: true, needsUpdate } satisfies ReviewFlagResponse;
  });

  router.post('/:id/duplicate', operation.duplicate, async (ctx) => {
    const caller = callerOf(ctx);
    const context = await planFor(ctx);
    const { schoolYear, force } = parse(duplicateSchema, ctx.request.body);
    const { formId, created } = await duplicatePlan(services, caller, authorizePlan(caller.auth.actor, context, ['duplicatePlan']), schoolYear, force);
    ctx.body = {
      success: true,
      formId,
      schoolYear,
      sourceYear: context.plan.schoolYear,
      message: created ? `Copied to ${schoolYear}` : `Filled the empty answers of the existing ${schoolYear} plan`,
    } satisfies DuplicateResponse;
  });

  router.get('/:id/compare', operation.compare, async (ctx) => {
    const context = await loadPlanFor(services, authOf(ctx).actor, pathId(ctx.params.id, 'Plan not found'), ['readPlan']);
    const { compareYear, steps } = parse(compareQuerySchema, ctx.query);
    ctx.body = await comparePlans(services, context, compareYear, steps === 'all');
  });

  router.post('/:id/share', operation.emailShare, superAdminOnly, async (ctx) => {
    const caller = districtCallerOf(ctx);
    const context = await planFor(ctx);
    const { sharedWithEmails } = parse(emailShareSchema, ctx.request.body);
    const writable = authorizePlan(caller.auth.actor, context, ['writePlan']);
    ctx.body = { success: true, sharedWithEmails: await setEmailShares(services, caller, writable, sharedWithEmails) } satisfies EmailShareResponse;
  });

  return router;
}
