import { sql } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { appVersion } from './appVersion.ts';
import { liveServerHealth, type LiveServers } from './liveServerHealth.ts';
import { mailHealth } from '../mail/mailHealth.ts';

async function probe(check: () => Promise<void>): Promise<'ok' | 'error'> {
  try {
    await check();
    return 'ok';
  } catch {
    return 'error';
  }
}

/** Whether the database and (when configured) Redis answer: what a load balancer asks. */
export async function probeHealth({ storage, kv }: DomainServices) {
  const [database, redis] = await Promise.all([
    probe(() => storage.ping()),
    kv.kind === 'redis' ? probe(() => kv.ping()) : Promise.resolve('not configured' as const),
  ]);
  return { healthy: database === 'ok' && redis !== 'error', database, redis, store: storage.kind };
}

/**
 * For Super Admins: the same probes plus record counts, the applied migrations, this process's
 * figures, its realtime gateway and collaboration server, and the application's version.
 */
export async function systemHealth(services: DomainServices & { liveServers: LiveServers }) {
  const { storage } = services;
  const { healthy, database, redis, store } = await probeHealth(services);
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
  return {
    status: healthy ? ('ok' as const) : ('degraded' as const),
    database,
    redis,
    store,
    counts,
    // drizzle records each migration's generation time (its journal entry), not when it ran here.
    migrations: migrations.map((m) => ({ hash: m.hash, generatedAt: new Date(Number(m.created_at)).toISOString() })),
    process: { pid: process.pid, uptimeSeconds: Math.round(process.uptime()), rssBytes: process.memoryUsage().rss, node: process.version },
    ...liveServerHealth(services, redis),
    mail: await mailHealth(storage.db, services.config.mail),
    ...(appVersion() ? { version: appVersion() } : {}),
  };
}
