import { z } from 'zod';
import Router from '@koa/router';
import { eq } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import type { Question } from '@csp/shared';
import type { Services } from '../../services.ts';
import { superAdminOnly, callerOf } from '../../auth/gate.ts';
import { invalidInput, conflict } from '../../errors.ts';
import { parse } from '../../http/validate.ts';
import { questionBankVersions } from '../../storage/schema.ts';
import { recordAudit } from '../../domain/audit/recordAudit.ts';
import { editDraftBank, findQuestion, findStep } from '../../domain/questionBank/editDraftBank.ts';
import { publishDraftBank } from '../../domain/questionBank/publishDraftBank.ts';
import { describeBankChanges } from '../../domain/questionBank/describeBankChanges.ts';
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
  const db = services.storage.db;

  router.get('/', operation.view, superAdminOnly, async (ctx) => {
    const rows = await db.select().from(questionBankVersions);
    const published = rows.find((row) => row.status === 'published');
    const draft = rows.find((row) => row.status === 'draft');
    const asBank = (row: typeof published) => (row ? { version: row.version, steps: row.steps } : null);
    ctx.body = {
      published: asBank(published),
      draft: asBank(draft),
      differences: describeBankChanges(asBank(published), asBank(draft)),
      versions: rows
        .map((row) => ({ version: row.version, status: row.status, schoolYear: row.schoolYear, publishedAt: row.publishedAt?.toISOString() ?? null }))
        .sort((a, b) => a.version - b.version),
    };
  });

  router.put('/questions/:questionId', operation.updateQuestion, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const questionId = parse(questionIdParam, ctx.params.questionId, 'Invalid question id');
    const changes = parse(updateQuestionSchema, ctx.request.body);
    ctx.body = await editDraftBank(services, caller, 'question.update', (steps) => {
      const { question } = findQuestion(steps, questionId);
      const before = { ...question };
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) delete (question as Record<string, unknown>)[key];
        else (question as Record<string, unknown>)[key] = value;
      }
      return { questionId, before, after: question };
    });
  });

  router.post('/questions', operation.addQuestion, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const { stepKey, position, question } = parse(addQuestionSchema, ctx.request.body);
    // A new id, never reused: answers of removed questions keep theirs.
    const id = `q_${randomBytes(6).toString('hex')}`;
    ctx.body = await editDraftBank(services, caller, 'question.add', (steps) => {
      const step = findStep(steps, stepKey);
      step.questions.splice(position ?? step.questions.length, 0, { id, ...question } as Question);
      return { stepKey, questionId: id };
    });
  });

  router.post('/questions/:questionId/active', operation.setQuestionActive, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const questionId = parse(questionIdParam, ctx.params.questionId, 'Invalid question id');
    const { active } = parse(activeSchema, ctx.request.body);
    ctx.body = await editDraftBank(services, caller, active ? 'question.activate' : 'question.deactivate', (steps) => {
      const { question } = findQuestion(steps, questionId);
      if (active) delete question.active;
      else question.active = false;
      return { questionId, active };
    });
  });

  router.post('/steps', operation.addStep, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const { key, title, intro, position } = parse(addStepSchema, ctx.request.body);
    ctx.body = await editDraftBank(services, caller, 'step.add', (steps) => {
      if (steps.some((step) => step.key === key)) throw conflict(`Step ${key} already exists`);
      steps.splice(position ?? steps.length, 0, { key, title, intro, questions: [] });
      return { stepKey: key };
    });
  });

  router.put('/steps/:stepKey', operation.updateStep, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const stepKey = parse(stepKeyParam, ctx.params.stepKey, 'Invalid step key');
    const changes = parse(updateStepSchema, ctx.request.body);
    ctx.body = await editDraftBank(services, caller, 'step.update', (steps) => {
      const step = findStep(steps, stepKey);
      const before = { title: step.title, intro: step.intro };
      Object.assign(step, changes);
      return { stepKey, before, after: changes };
    });
  });

  router.put('/steps/:stepKey/order', operation.reorderStep, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const stepKey = parse(stepKeyParam, ctx.params.stepKey, 'Invalid step key');
    const { questionIds } = parse(reorderSchema, ctx.request.body);
    ctx.body = await editDraftBank(services, caller, 'step.reorder', (steps) => {
      const step = findStep(steps, stepKey);
      const current = step.questions.map((q) => q.id);
      if (questionIds.length !== current.length || [...questionIds].sort().join() !== [...current].sort().join()) {
        throw invalidInput('questionIds must list every question of the step exactly once');
      }
      step.questions = questionIds.map((id) => step.questions.find((q) => q.id === id)!);
      return { stepKey, before: current, after: questionIds };
    });
  });

  router.delete('/draft', operation.discardDraft, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    await db.transaction(async (tx) => {
      const removed = await tx
        .delete(questionBankVersions)
        .where(eq(questionBankVersions.status, 'draft'))
        .returning({ version: questionBankVersions.version });
      await recordAudit(tx, caller, { action: 'questionBank.discard', targetType: 'questionBank', targetId: removed[0] ? String(removed[0].version) : null });
    });
    ctx.body = { success: true };
  });

  router.post('/publish', operation.publish, superAdminOnly, async (ctx) => {
    const caller = callerOf(ctx);
    const { schoolYear } = parse(publishSchema, ctx.request.body);
    ctx.body = { success: true, ...(await publishDraftBank(services, caller, schoolYear)) };
  });

  return router;
}
