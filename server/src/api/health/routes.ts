import Router from '@koa/router';
import { sql } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { superAdminOnly } from '../../auth/gate.ts';
import { appVersion } from '../../domain/system/appVersion.ts';
import { liveServerHealth } from '../../domain/system/liveServerHealth.ts';

async function probe(check: () => Promise<void>): Promise<'ok' | 'error'> {
  try {
    await check();
    return 'ok';
  } catch {
    return 'error';
  }
}

export function healthRoutes(services: Services): Router {
  const { storage, kv } = services;
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
  /**
   * For Super Admins: the same probes plus record counts, the applied migrations, this process's
   * figures, its realtime gateway and collaboration server, and the application's version.
   */
  router.get('/admin/health', superAdminOnly, async (ctx) => {
    const [database, redis] = await Promise.all([
      probe(() => storage.ping()),
      kv.kind === 'redis' ? probe(() => kv.ping()) : Promise.resolve('not configured' as const),
    ]);
    const [counts] = await storage.rows<Record<string, number>>(sql`select
      (select count(*)::int from users) as users,
      (select count(*)::int from users where is_active) as "activeUsers",
      (select count(*)::int from plans) as plans,
      (select count(*)::int from sessions where expires_at > now()) as sessions,
      (select count(*)::int from collab_documents) as "collabDocuments",
      (select count(*)::int from client_errors where created_at > now() - interval '1 day') as "clientErrorsToday"`);
    const migrations = await storage.rows<{ hash: string; created_at: string }>(
      sql`select hash, created_at from drizzle.__drizzle_migrations order by created_at`,
    );
    ctx.body = {
      status: database === 'ok' && redis !== 'error' ? 'ok' : 'degraded',
      database,
      redis,
      store: storage.kind,
      counts,
      // drizzle records each migration's generation time (its journal entry), not when it ran here.
      migrations: migrations.map((m) => ({ hash: m.hash, generatedAt: new Date(Number(m.created_at)).toISOString() })),
      process: { pid: process.pid, uptimeSeconds: Math.round(process.uptime()), rssBytes: process.memoryUsage().rss, node: process.version },
      ...liveServerHealth(services, redis),
      ...(appVersion() ? { version: appVersion() } : {}),
    };
  });

  return router;
}
