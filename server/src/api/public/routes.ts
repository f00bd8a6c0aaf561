import Router from '@koa/router';
import { z } from 'zod';
import type { Services } from '../../services.ts';
import { parse } from '../../http/validate.ts';
import { clientErrors } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { districtOverview } from '../../domain/district/districtOverview.ts';

const clip = (max: number) => z.string().transform((value) => value.slice(0, max));

/** A browser error report: bounded fields, stored and logged without cookies or answers. */
const clientErrorSchema = z.object({
  message: z.string().min(1).max(2000),
  stack: clip(8000).optional(),
  url: clip(2000).optional(),
  userAgent: clip(500).optional(),
});

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
