import Router from '@koa/router';
import type { Services } from '../../services.ts';
import { superAdminOnly } from '../../auth/gate.ts';
import { probeHealth, systemHealth } from '../../domain/system/systemHealth.ts';
import { operations } from '../../http/operation.ts';
import { adminHealthSchema, healthSchema } from '@csp/shared/api/health';

const operation = operations('System', {
  health: {
    summary: 'Health of the database and the shared store',
    description: 'No session needed: 200 when healthy, 503 with the same body when degraded.',
    responses: { 200: healthSchema, 503: healthSchema },
  },
  systemHealth: {
    summary: 'System health in detail',
    description: 'The probes, record counts, migrations, this process, its live servers and the version.',
    responses: { 200: adminHealthSchema },
  },
});

export function healthRoutes(services: Services): Router {
  const router = new Router();

  router.get('/health', operation.health, async (ctx) => {
    const { healthy, database, redis, store } = await probeHealth(services);
    ctx.status = healthy ? 200 : 503;
    ctx.body = { status: healthy ? 'ok' : 'degraded', database, redis, store };
  });

  router.get('/admin/health', operation.systemHealth, superAdminOnly, async (ctx) => {
    ctx.body = await systemHealth(services);
  });

  return router;
}
