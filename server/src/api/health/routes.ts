import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { superAdminOnly } from '../../auth/gate.ts';
import { probeHealth, systemHealth } from '../../domain/system/systemHealth.ts';

export function healthRoutes(services: Services): Router {
  const router = new Router();

  router.get('/health', async (ctx) => {
    const { healthy, database, redis, store } = await probeHealth(services);
    ctx.status = healthy ? 200 : 503;
    ctx.body = { status: healthy ? 'ok' : 'degraded', database, redis, store };
  });

  router.get('/admin/health', superAdminOnly, async (ctx) => {
    ctx.body = await systemHealth(services);
  });

  return router;
}
