import { z } from 'zod';
import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { superAdminOnly, callerOf } from '../../auth/gate.ts';
import { parse } from '../../http/validate.ts';
import {
  addDraftQuestion,
  addDraftStep,
  bankVersionsOverview,
  discardDraftBank,
  reorderDraftStep,
  setDraftQuestionActive,
  updateDraftQuestion,
  updateDraftStep,
} from '../../domain/questionBank/editDraftBank.ts';
import { publishDraftBank } from '../../domain/questionBank/publishDraftBank.ts';
import {
  activeSchema,
  addQuestionSchema,
  addStepSchema,
  adminBankSchema,
  adminBankViewSchema,
  publishResponseSchema,
  publishSchema,
  questionIdParam,
  reorderSchema,
  stepKeyParam,
  updateQuestionSchema,
  updateStepSchema,
} from '@csp/shared/api/questionBankAdmin';
import { operations } from '../../http/operation.ts';
import { successSchema } from '@csp/shared/api/common';

/** Every draft edit names its question or step and answers with the whole draft. */
const draftEdit = (summary: string, params: z.ZodObject, body: z.ZodType) => ({ summary, params, body, responses: { 200: adminBankSchema } });
const questionParams = z.object({ questionId: questionIdParam });
const stepParams = z.object({ stepKey: stepKeyParam });

const operation = operations('Question bank administration', {
  view: { summary: 'The published bank, the draft, their differences and every version', responses: { 200: adminBankViewSchema } },
  updateQuestion: draftEdit('Change a question of the draft', questionParams, updateQuestionSchema),
  addQuestion: { summary: 'Add a question to the draft', body: addQuestionSchema, responses: { 200: adminBankSchema } },
  setQuestionActive: draftEdit('Activate or deactivate a question of the draft', questionParams, activeSchema),
  addStep: { summary: 'Add a step to the draft', body: addStepSchema, responses: { 200: adminBankSchema } },
  updateStep: draftEdit('Change a step’s title or intro in the draft', stepParams, updateStepSchema),
  reorderStep: draftEdit('Reorder a step’s questions in the draft', stepParams, reorderSchema),
  discardDraft: { summary: 'Discard the draft', responses: { 200: successSchema } },
  publish: { summary: 'Publish the draft as the next version', body: publishSchema, responses: { 200: publishResponseSchema } },
});

/** Super Admin editing of the question bank: a draft is edited, then published as the next version. */
export function questionBankAdminRoutes(services: Services): Router {
  const router = new Router({ prefix: '/admin/question-bank' });

  router.get('/', operation.view, superAdminOnly, async (ctx) => {
    ctx.body = await bankVersionsOverview(services);
  });

  router.put('/questions/:questionId', operation.updateQuestion, superAdminOnly, async (ctx) => {
    const questionId = parse(questionIdParam, ctx.params.questionId, 'Invalid question id');
    ctx.body = await updateDraftQuestion(services, callerOf(ctx), questionId, parse(updateQuestionSchema, ctx.request.body));
  });

  router.post('/questions', operation.addQuestion, superAdminOnly, async (ctx) => {
    ctx.body = await addDraftQuestion(services, callerOf(ctx), parse(addQuestionSchema, ctx.request.body));
  });

  router.post('/questions/:questionId/active', operation.setQuestionActive, superAdminOnly, async (ctx) => {
    const questionId = parse(questionIdParam, ctx.params.questionId, 'Invalid question id');
    const { active } = parse(activeSchema, ctx.request.body);
    ctx.body = await setDraftQuestionActive(services, callerOf(ctx), questionId, active);
  });

  router.post('/steps', operation.addStep, superAdminOnly, async (ctx) => {
    ctx.body = await addDraftStep(services, callerOf(ctx), parse(addStepSchema, ctx.request.body));
  });

  router.put('/steps/:stepKey', operation.updateStep, superAdminOnly, async (ctx) => {
    const stepKey = parse(stepKeyParam, ctx.params.stepKey, 'Invalid step key');
    ctx.body = await updateDraftStep(services, callerOf(ctx), stepKey, parse(updateStepSchema, ctx.request.body));
  });

  router.put('/steps/:stepKey/order', operation.reorderStep, superAdminOnly, async (ctx) => {
    const stepKey = parse(stepKeyParam, ctx.params.stepKey, 'Invalid step key');
    const { questionIds } = parse(reorderSchema, ctx.request.body);
    ctx.body = await reorderDraftStep(services, callerOf(ctx), stepKey, questionIds);
  });

  router.delete('/draft', operation.discardDraft, superAdminOnly, async (ctx) => {
    await discardDraftBank(services, callerOf(ctx));
    ctx.body = { success: true };
  });

  router.post('/publish', operation.publish, superAdminOnly, async (ctx) => {
    const { schoolYear } = parse(publishSchema, ctx.request.body);
    ctx.body = { success: true, ...(await publishDraftBank(services, callerOf(ctx), schoolYear)) };
  });

  return router;
}
