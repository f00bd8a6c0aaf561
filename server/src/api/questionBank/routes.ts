import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { notFound } from '../../errors.ts';
import { parse } from '../../http/validate.ts';
import { questionBankQuerySchema, type QuestionBankResponse } from '@csp/shared/api/questionBank';

export function questionBankRoutes({ banks }: Services): Router {
  const router = new Router();

  /** The published bank (or the one a year pins, or a named version), else the bundled bank. */
  router.get('/question-bank', async (ctx) => {
    const query = parse(questionBankQuerySchema, ctx.query);
    if (query.version && !(await banks.version(query.version))) throw notFound('Question bank version not found');
    const bank = await banks.resolve(query.version ?? (await banks.versionForYear(query.schoolYear)));
    ctx.body = { version: bank.version, source: bank.source, steps: bank.steps } satisfies QuestionBankResponse;
  });

  return router;
}
