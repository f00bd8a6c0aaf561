import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { notFound } from '../../errors.ts';
import { parse } from '../../http/validate.ts';
import { questionBankQuerySchema, questionBankResponseSchema, type QuestionBankResponse } from '@csp/shared/api/questionBank';
import { operations } from '../../http/operation.ts';

const operation = operations('Question bank', {
  read: { summary: 'The question bank', query: questionBankQuerySchema, responses: { 200: questionBankResponseSchema } },
});

export function questionBankRoutes({ banks }: Services): Router {
  const router = new Router();

  /** The published bank (or the one a year pins, or a named version), else the bundled bank. */
  router.get('/question-bank', operation.read, async (ctx) => {
    const query = parse(questionBankQuerySchema, ctx.query);
    if (query.version && !(await banks.version(query.version))) throw notFound('Question bank version not found');
    const bank = await banks.resolve(query.version ?? (await banks.versionForYear(query.schoolYear)));
    ctx.body = { version: bank.version, source: bank.source, steps: bank.steps } satisfies QuestionBankResponse;
  });

  return router;
}
