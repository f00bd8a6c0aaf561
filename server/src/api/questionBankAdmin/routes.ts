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
  publishSchema,
  questionIdParam,
  reorderSchema,
  stepKeyParam,
  updateQuestionSchema,
  updateStepSchema,
} from '@csp/shared/api/questionBankAdmin';

/** Super Admin editing of the question bank: a draft is edited, then published as the next version. */
export function questionBankAdminRoutes(services: Services): Router {
  const router = new Router({ prefix: '/admin/question-bank' });

  router.get('/', superAdminOnly, async (ctx) => {
    ctx.body = await bankVersionsOverview(services);
  });

  router.put('/questions/:questionId', superAdminOnly, async (ctx) => {
    const questionId = parse(questionIdParam, ctx.params.questionId, 'Invalid question id');
    ctx.body = await updateDraftQuestion(services, callerOf(ctx), questionId, parse(updateQuestionSchema, ctx.request.body));
  });

  router.post('/questions', superAdminOnly, async (ctx) => {
    ctx.body = await addDraftQuestion(services, callerOf(ctx), parse(addQuestionSchema, ctx.request.body));
  });

  router.post('/questions/:questionId/active', superAdminOnly, async (ctx) => {
    const questionId = parse(questionIdParam, ctx.params.questionId, 'Invalid question id');
    const { active } = parse(activeSchema, ctx.request.body);
    ctx.body = await setDraftQuestionActive(services, callerOf(ctx), questionId, active);
  });

  router.post('/steps', superAdminOnly, async (ctx) => {
    ctx.body = await addDraftStep(services, callerOf(ctx), parse(addStepSchema, ctx.request.body));
  });

  router.put('/steps/:stepKey', superAdminOnly, async (ctx) => {
    const stepKey = parse(stepKeyParam, ctx.params.stepKey, 'Invalid step key');
    ctx.body = await updateDraftStep(services, callerOf(ctx), stepKey, parse(updateStepSchema, ctx.request.body));
  });

  router.put('/steps/:stepKey/order', superAdminOnly, async (ctx) => {
    const stepKey = parse(stepKeyParam, ctx.params.stepKey, 'Invalid step key');
    const { questionIds } = parse(reorderSchema, ctx.request.body);
    ctx.body = await reorderDraftStep(services, callerOf(ctx), stepKey, questionIds);
  });

  router.delete('/draft', superAdminOnly, async (ctx) => {
    await discardDraftBank(services, callerOf(ctx));
    ctx.body = { success: true };
  });

  router.post('/publish', superAdminOnly, async (ctx) => {
    const { schoolYear } = parse(publishSchema, ctx.request.body);
    ctx.body = { success: true, ...(await publishDraftBank(services, callerOf(ctx), schoolYear)) };
  });

  return router;
}
