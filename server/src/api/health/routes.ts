import Router from '@koa/router';
import type { Services } from '../../services.ts';

async function probe(check: () => Promise<void>): Promise<'ok' | 'error'> {
  try {
    await check();
    return 'ok';
  } catch {
    return 'error';
  }
}

export function healthRoutes({ storage, kv }: Services): Router {
  const router = new Router();
  router.get('/health', async (ctx) => {
    const [database, redis] = await Promise.all([
      probe(() => storage.ping()),
      kv.kind === 'redis' ? probe(() => kv.ping()) : Promise.resolve('not configured' as const),
    ]);
    const healthy = database === 'ok' && redis !== 'error';
    ctx.status = healthy ? 200 : 503;
    ctx.body = { status: healthy ? 'ok' : 'degraded', database, redis, store: storage.kind };
  });
  return router;
}
