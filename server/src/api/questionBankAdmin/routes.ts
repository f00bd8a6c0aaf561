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

const operation = operations('Question bank administration', {
  view: { summary: 'The published bank, the draft, their differences and every version', responses: { 200: adminBankViewSchema } },
  updateQuestion: {
    summary: 'Change a question of the draft',
    params: z.object({ questionId: questionIdParam }),
    body: updateQuestionSchema,
    responses: { 200: adminBankSchema },
  },
  addQuestion: { summary: 'Add a question to the draft', body: addQuestionSchema, responses: { 200: adminBankSchema } },
  setQuestionActive: {
    summary: 'Activate or deactivate a question of the draft',
    params: z.object({ questionId: questionIdParam }),
    body: activeSchema,
    responses: { 200: adminBankSchema },
  },
  addStep: { summary: 'Add a step to the draft', body: addStepSchema, responses: { 200: adminBankSchema } },
  updateStep: {
    summary: 'Change a step’s title or intro in the draft',
    params: z.object({ stepKey: stepKeyParam }),
    body: updateStepSchema,
    responses: { 200: adminBankSchema },
  },
  reorderStep: {
    summary: 'Reorder a step’s questions in the draft',
    params: z.object({ stepKey: stepKeyParam }),
    body: reorderSchema,
    responses: { 200: adminBankSchema },
  },
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
