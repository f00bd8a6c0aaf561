import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { clientErrorResponseSchema, clientErrorSchema, publicOverviewSchema, type ClientErrorResponse } from '@csp/shared/api/public';
import { parse } from '../../http/validate.ts';
import { recordClientError } from '../../domain/system/recordClientError.ts';
import { districtOverview } from '../../domain/district/districtOverview.ts';
import { operations } from '../../http/operation.ts';

const operation = operations('Public', {
  overview: { summary: 'District figures for the landing page', responses: { 200: publicOverviewSchema } },
  clientError: { summary: 'Report a browser error', body: clientErrorSchema, responses: { 200: clientErrorResponseSchema } },
});

export function publicRoutes(services: Services): Router {
  const router = new Router();

  router.get('/public/overview', operation.overview, async (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=60');
    ctx.body = await districtOverview(services);
  });

  router.post('/client-errors', operation.clientError, async (ctx) => {
    await services.rateLimits.consume('clientErrors', ctx.ip);
    const report = parse(clientErrorSchema, ctx.request.body);
    const id = await recordClientError(services, report, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
    ctx.body = { success: true, id } satisfies ClientErrorResponse;
  });

  return router;
}
