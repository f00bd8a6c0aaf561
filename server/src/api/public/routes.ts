import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { clientErrorSchema } from '@csp/shared/api/public';
import { parse } from '../../http/validate.ts';
import { clientErrors } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { districtOverview } from '../../domain/district/districtOverview.ts';

export function publicRoutes(services: Services): Router {
  const router = new Router();

  router.get('/public/overview', async (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=60');
    ctx.body = await districtOverview(services);
  });

  router.post('/client-errors', async (ctx) => {
    await services.rateLimits.consume('clientErrors', ctx.ip);
    const report = parse(clientErrorSchema, ctx.request.body);
    const id = newId();
    await services.storage.db.insert(clientErrors).values({
      id,
      message: report.message,
      stack: report.stack ?? null,
      url: report.url ?? null,
      userAgent: report.userAgent ?? ctx.get('user-agent').slice(0, 500),
      ip: ctx.ip,
    });
    services.logger.warn({ clientErrorId: id, message: report.message, url: report.url }, 'client error reported');
    ctx.body = { success: true, id };
  });

  return router;
}
