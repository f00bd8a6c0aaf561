import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../server/src/testing/testDatabase.ts';
import { sharedStoreEnv, startServerProcess, type ServerProcess } from '../server/src/testing/serverProcess.ts';
import { signIn, clientWithToken } from '../server/src/testing/signIn.ts';
import { HttpClient } from '../server/src/testing/httpClient.ts';
import { SESSION_COOKIE } from '../server/src/auth/sessions.ts';
import { startRedisProxy, type RedisProxy } from '../server/src/testing/tcpProxy.ts';

/**
 * Two real server processes on one PostgreSQL database (and one Redis, when REDIS_URL is set):
 * a session signed in on one is valid on the other, and ending it on one ends it on the other at
 * once. Needs DATABASE_URL: two processes cannot share an embedded PGlite.
 */
describe.skipIf(!process.env.DATABASE_URL)('sessions across server processes', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  /** A third process of the same deployment whose Redis connections go through a proxy the test can cut. */
  let c: ServerProcess | undefined;
  let proxy: RedisProxy | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = sharedStoreEnv(database.databaseUrl!, process.env.REDIS_URL, 'mp');
    // One after the other: the first migrates and seeds the fresh database.
    a = await startServerProcess(env);
    b = await startServerProcess(env);
    if (process.env.REDIS_URL) {
      proxy = await startRedisProxy(process.env.REDIS_URL);
      c = await startServerProcess({ ...env, REDIS_URL: proxy.url });
    }
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
    await proxy?.close();
    await database?.drop();
  });

  it('both processes serve the same database', async () => {
    for (const server of [a!, b!]) {
      const { status, body } = await new HttpClient(server.url).get('/api/health');
      expect(status, server.output()).toBe(200);
      expect(body).toMatchObject({ database: 'ok', store: 'postgres', redis: process.env.REDIS_URL ? 'ok' : 'not configured' });
    }
  });

  it('a session signed in on A works on B; signing out on A ends it on B at once', async () => {
    const onA = await signIn(a!.url, 'principal.harbor@example.org');
    const token = onA.cookies.get(SESSION_COOKIE)!;
    expect(token).toBeTruthy();
    const onB = clientWithToken(b!, token);

    const session = await onB.get('/api/auth/session');
    expect(session.status, b!.output()).toBe(200);
    expect(session.body.user.email).toBe('principal.harbor@example.org');
    expect(session.body.user.level).toBe(4);
    expect((await onB.get('/api/users')).status).toBe(200);

    const out = await onA.post('/api/auth/signout', {});
    expect(out.status).toBe(200);

    const afterB = await onB.get('/api/auth/session');
    expect(afterB.status).toBe(401);
    expect(afterB.body).toEqual({ error: expect.any(String) });
    expect((await onB.get('/api/users')).status).toBe(401);
    expect((await clientWithToken(a!, token).get('/api/auth/session')).status).toBe(401);
  });

  it('a user deactivated through B loses the session signed in on A', async () => {
    const teacherOnA = await signIn(a!.url, 'teacher.riverside@example.org');
    expect((await teacherOnA.get('/api/auth/session')).status).toBe(200);
    const adminOnB = await signIn(b!.url, 'superadmin@example.org');
    const listing = await adminOnB.get('/api/users?limit=200');
    expect(listing.status).toBe(200);
    const teacher = listing.body.users.find((user: { email: string }) => user.email === 'teacher.riverside@example.org');
    expect(teacher).toBeDefined();

    const off = await adminOnB.put('/api/users', { userId: teacher._id, isActive: false });
    expect(off.status).toBe(200);
    expect((await teacherOnA.get('/api/auth/session')).status).toBe(401);
    expect((await teacherOnA.get('/api/question-bank')).status).toBe(401);
  });

  /** Repeats `request` until it answers `status`, for at most a second. */
  async function statusWithinASecond(request: () => Promise<{ status: number }>, status: number): Promise<number> {
    const deadline = Date.now() + 1_000;
    let last = (await request()).status;
    while (last !== status && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      last = (await request()).status;
    }
    return last;
  }

  // B's reads use its cache of recently validated sessions; these prove the cache hears of changes made on A.
  it('a session B has cached is refused on B within a second of signing out on A', async () => {
    const onA = await signIn(a!.url, 'coordinator.harbor@example.org');
    const onB = clientWithToken(b!, onA.cookies.get(SESSION_COOKIE)!);
    expect((await onB.get('/api/question-bank')).status).toBe(200);
    expect((await onB.get('/api/question-bank')).status).toBe(200);

    expect((await onA.post('/api/auth/signout', {})).status).toBe(200);
    expect(await statusWithinASecond(() => onB.get('/api/question-bank'), 401)).toBe(401);
  });

  it('a level lowered on A holds on B within a second, although B had the session cached', async () => {
    const principalOnA = await signIn(a!.url, 'principal.riverside@example.org');
    const principalOnB = clientWithToken(b!, principalOnA.cookies.get(SESSION_COOKIE)!);
    expect((await principalOnB.get('/api/users')).status).toBe(200);

    const adminOnA = await signIn(a!.url, 'superadmin@example.org');
    const listing = await adminOnA.get('/api/users?limit=200');
    const principal = listing.body.users.find((user: { email: string }) => user.email === 'principal.riverside@example.org');
    expect((await adminOnA.put('/api/users', { userId: principal._id, level: 3 })).status).toBe(200);

    expect(await statusWithinASecond(() => principalOnB.get('/api/users'), 403)).toBe(403);
  });

  /** Polls C's health until its Redis reads as `redis` ('ok' or not). */
  async function untilRedisOnC(connected: boolean): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { body } = await new HttpClient(c!.url).get('/api/health');
      if ((body.redis === 'ok') === connected) return;
      if (Date.now() > deadline) throw new Error(`C's Redis never became ${connected ? 'connected' : 'disconnected'}: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** A session signed in on A and used twice on C (so C would have it cached), and A's client to end it. */
  async function sessionUsedOnC(email: string) {
    const onA = await signIn(a!.url, email);
    const onC = clientWithToken(c!, onA.cookies.get(SESSION_COOKIE)!);
    for (let i = 0; i < 2; i++) expect((await onC.get('/api/forms')).status, c!.output()).toBe(200);
    return { onA, onC };
  }

  // Revocations reach C over its Redis subscription; while that is down C could not hear one.
  it.skipIf(!process.env.REDIS_URL)('a process cut off from Redis serves no cached session, and caches again once back', async () => {
    const before = await sessionUsedOnC('teacher.harbor@example.org');
    proxy!.cut();
    await untilRedisOnC(false);
    // Signed out on A while C cannot hear it: C kept nothing, so it reads the (deleted) row.
    expect((await before.onA.post('/api/auth/signout', {})).status).toBe(200);
    expect((await before.onC.get('/api/forms')).status).toBe(401);

    // Nor does it keep sessions validated while cut off.
    const during = await sessionUsedOnC('coordinator.riverside@example.org');
    expect((await during.onA.post('/api/auth/signout', {})).status).toBe(200);
    expect((await during.onC.get('/api/forms')).status).toBe(401);

    proxy!.restore();
    await untilRedisOnC(true);
    const after = await sessionUsedOnC('principal.harbor@example.org');
    expect((await after.onA.post('/api/auth/signout', {})).status).toBe(200);
    expect(await statusWithinASecond(() => after.onC.get('/api/forms'), 401)).toBe(401);
  });
});
