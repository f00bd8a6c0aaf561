import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { startTestServer, type TestServer } from '../testing/testServer.ts';
import { startOwnRedis, type OwnRedis } from '../testing/ownRedis.ts';
import { HttpClient } from '../testing/httpClient.ts';
import { clientWithToken, signIn } from '../testing/signIn.ts';
import { waitFor } from '../testing/wait.ts';
import { RedisStore, createRedisClient } from '../kv/redis.ts';
import { createLogger } from '../logger.ts';
import { createSession } from '../auth/sessions.ts';
import { plans, users } from '../storage/schema.ts';
import { newId } from '../storage/ids.ts';
import { AppError } from '../errors.ts';
import { statusOf } from './errors.ts';
import { LIMITS, RateLimits, type LimitName } from './rateLimits.ts';

const logger = createLogger('silent');

const clientOf = (store: RedisStore): Redis => {
  const client = store.client;
  // Reconnection errors while the server is down are expected here; keep them off the console.
  client.on('error', () => {});
  return client;
};

async function expectTooManyRequests(promise: Promise<unknown>, retryAfterSeconds = 60): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error, 'expected a 429').toBeInstanceOf(AppError);
  const refusal = error as AppError;
  expect(statusOf(refusal)).toBe(429);
  expect(refusal.message).toBe('Too many requests');
  expect(refusal.retryAfterSeconds).toBe(retryAfterSeconds);
}

function expectTooManyResponse(response: { status: number; body: unknown; headers: Headers }): void {
  expect(response.status).toBe(429);
  expect(response.body).toEqual({ error: 'Too many requests' });
  expect(response.headers.get('retry-after')).toBe('60');
}

// ---------------------------------------------------------------------------------------------

describe('rate limits over HTTP', () => {
  let server: TestServer;
  const admins = new Map<string, { id: string; client: HttpClient }>();
  let targetId: string;

  beforeAll(async () => {
    server = await startTestServer();
    const db = server.services.storage.db;
    // One Super Admin per limit, so that no limit's counter is touched by another test.
    for (const name of ['users', 'write', 'create', 'bulk', 'import', 'forms', 'save', 'other']) {
      const email = `rl-${name}-${newId().slice(0, 6)}@example.org`;
      const [row] = await db
        .insert(users)
        .values({ id: newId(), email, name: `Limit ${name}`, level: 5, schoolName: 'District Office', title: 'Admin' })
        .returning();
      admins.set(name, { id: row!.id, client: await signIn(server.url, email) });
    }
    const [target] = await db
      .insert(users)
      .values({ id: newId(), email: `rl-target-${newId().slice(0, 6)}@example.org`, name: 'Limit Target', level: 1, schoolName: 'Riverside Learning Center' })
      .returning();
    targetId = target!.id;
  });
  afterAll(() => server?.stop());

  const admin = (name: string) => admins.get(name)!.client;

  it('auth: the 21st POST per client IP within a minute answers 429, other addresses are not affected', async () => {
    const client = new HttpClient(server.url, '192.0.2.41');
    for (let i = 1; i <= 20; i++) {
      const response = await client.post('/api/auth/signout', {});
      expect(response.status, `POST ${i}`).toBe(200);
    }
    expectTooManyResponse(await client.post('/api/auth/signout', {}));
    // GETs are not counted; the session route still answers (no session: 401).
    expect((await client.get('/api/auth/session')).status).toBe(401);
    // Another client IP has its own count.
    expect((await new HttpClient(server.url, '192.0.2.42').post('/api/auth/signout', {})).status).toBe(200);
  });

  it('auth: starting a sign-in counts too, and the 21st start lands on the login page with the reason', async () => {
    const client = new HttpClient(server.url, '192.0.2.43');
    for (let i = 1; i <= 20; i++) {
      const response = await client.request('GET', '/api/auth/signin?callbackUrl=/plans');
      expect(response.status, `start ${i}`).toBe(302);
      expect(new URL(response.headers.get('location')!, server.url).pathname, `start ${i}`).toMatch(/^\/dev-idp\//);
    }
    const refused = await client.request('GET', '/api/auth/signin?callbackUrl=/plans');
    expect(refused.status).toBe(302);
    expect(refused.headers.get('location')).toBe('/login?error=rate-limited');
    // The POSTs of that address share the count.
    expectTooManyResponse(await client.post('/api/auth/signout', {}));
    const elsewhere = await new HttpClient(server.url, '192.0.2.44').request('GET', '/api/auth/signin?callbackUrl=/plans');
    expect(new URL(elsewhere.headers.get('location')!, server.url).pathname).toMatch(/^\/dev-idp\//);
  });

  it('users: the 61st GET /api/users within a minute answers 429, per user', async () => {
    const client = admin('users');
    for (let i = 1; i <= 60; i++) {
      const response = await client.get('/api/users');
      expect(response.status, `GET ${i}`).toBe(200);
    }
    expectTooManyResponse(await client.get('/api/users'));
    expect((await admin('other').get('/api/users')).status).toBe(200);
  });

  it('users-write: the 31st PUT /api/users within a minute answers 429 and changes nothing', async () => {
    const client = admin('write');
    for (let i = 1; i <= 30; i++) {
      const response = await client.put('/api/users', { userId: targetId, title: `Title ${i}` });
      expect(response.status, `PUT ${i}`).toBe(200);
    }
    expectTooManyResponse(await client.put('/api/users', { userId: targetId, title: 'Title 31' }));
    const [target] = await server.services.storage.db.select().from(users).where(eq(users.id, targetId));
    expect(target!.title).toBe('Title 30');
    expect((await admin('other').put('/api/users', { userId: targetId, title: 'Other' })).status).toBe(200);
  });

  it('users-create: the 21st POST /api/users/create within a minute answers 429 and creates nothing', async () => {
    const client = admin('create');
    const stamp = newId().slice(0, 6);
    const body = (i: number) => ({ name: `Created ${i}`, email: `rl-created-${stamp}-${i}@example.org`, level: 1, schoolName: 'Riverside Learning Center' });
    for (let i = 1; i <= 20; i++) {
      const response = await client.post('/api/users/create', body(i));
      // (The status code of a successful create is checked by the Redis-down test below.)
      expect(response.body?.user?.email, `create ${i}: ${response.status}`).toBe(body(i).email);
    }
    expectTooManyResponse(await client.post('/api/users/create', body(21)));
    const rows = await server.services.storage.db
      .select()
      .from(users)
      .where(eq(users.email, body(21).email));
    expect(rows).toHaveLength(0);
  });

  it('users-bulk: the 11th POST /api/users/bulk within a minute answers 429', async () => {
    const client = admin('bulk');
    for (let i = 1; i <= 10; i++) {
      const response = await client.post('/api/users/bulk', { userIds: [targetId], action: 'activate' });
      expect(response.status, `bulk ${i}`).toBe(200);
    }
    expectTooManyResponse(await client.post('/api/users/bulk', { userIds: [targetId], action: 'activate' }));
  });

  it('users-import: the 6th POST /api/users/bulk-import within a minute answers 429 and imports nothing', async () => {
    const client = admin('import');
    const stamp = newId().slice(0, 6);
    const body = (i: number) => ({
      users: [{ name: `Imported ${i}`, email: `rl-imported-${stamp}-${i}@example.org`, level: 1, schoolName: 'Harbor View Academy' }],
    });
    for (let i = 1; i <= 5; i++) {
      const response = await client.post('/api/users/bulk-import', body(i));
      expect(response.status, `import ${i}`).toBe(200);
      expect(response.body.created).toBe(1);
    }
    expectTooManyResponse(await client.post('/api/users/bulk-import', body(6)));
    const rows = await server.services.storage.db
      .select()
      .from(users)
      .where(eq(users.email, body(6).users[0]!.email));
    expect(rows).toHaveLength(0);
  });

  it('forms-create: the 21st POST /api/forms within a minute answers 429 and creates nothing', async () => {
    const client = admin('forms');
    const stamp = newId().slice(0, 6);
    const body = (i: number) => ({ schoolName: `Limit School ${stamp} ${i}`, schoolYear: '2040-2041' });
    for (let i = 1; i <= 20; i++) {
      const response = await client.post('/api/forms', body(i));
      expect(response.status, `create plan ${i}: ${JSON.stringify(response.body)}`).toBeGreaterThanOrEqual(200);
      expect(response.status, `create plan ${i}`).toBeLessThan(300);
    }
    expectTooManyResponse(await client.post('/api/forms', body(21)));
    const rows = await server.services.storage.db
      .select()
      .from(plans)
      .where(eq(plans.schoolName, body(21).schoolName));
    expect(rows).toHaveLength(0);
  });

  it('save: the 31st step save per user and plan within a minute answers 429; another plan has its own count', async () => {
    const client = admin('save');
    const drafts = await server.services.storage.db.select().from(plans).where(eq(plans.status, 'draft'));
    const [harbor, riverside] = ['Harbor View Academy', 'Riverside Learning Center'].map((school) => drafts.find((plan) => plan.schoolName === school)!);
    expect(harbor && riverside, 'the demo district has a draft plan per school').toBeTruthy();
    const save = (formId: string, i: number) =>
      client.put(`/api/forms/${formId}/step/1`, { stepData: { data: { toc_principalReviewed: i % 2 === 0 } }, mergeStrategy: 'last-write-wins' });
    for (let i = 1; i <= 30; i++) {
      const response = await save(harbor!.id, i);
      expect(response.status, `save ${i}: ${JSON.stringify(response.body)}`).toBe(200);
    }
    expectTooManyResponse(await save(harbor!.id, 31));
    expect((await save(riverside!.id, 1)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------

describe('rate limits in Redis', () => {
  let redis: OwnRedis;
  const stores: RedisStore[] = [];
  beforeAll(async () => {
    redis = await startOwnRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await redis?.kill();
  });

  it('counts under rl:<limit>:<key>, shared by every process on the same store', async () => {
    const prefix = `csp-rl-${newId().slice(0, 8)}:`;
    const [a, b] = [0, 1].map(() => new RedisStore(createRedisClient(redis.url, prefix)));
    stores.push(a!, b!);
    for (const store of [a!, b!]) {
      const client = clientOf(store);
      await waitFor('redis client ready', () => client.status === 'ready');
    }
    const limitsA = new RateLimits(a!, { isProduction: true, logger });
    const limitsB = new RateLimits(b!, { isProduction: true, logger });
    for (let i = 0; i < 5; i++) {
      expect(await limitsA.consume('usersBulk', 'u1')).toEqual({});
      expect(await limitsB.consume('usersBulk', 'u1')).toEqual({});
    }
    await expectTooManyRequests(limitsA.consume('usersBulk', 'u1'));
    await expectTooManyRequests(limitsB.consume('usersBulk', 'u1'));
    expect(Number(await a!.get('rl:users-bulk:u1'))).toBeGreaterThanOrEqual(10);
    // Another key and another limit have their own counts.
    expect(await limitsA.consume('usersBulk', 'u2')).toEqual({});
    expect(await limitsA.consume('users', 'u1')).toEqual({});
  });
});

describe('rate limits with Redis down', () => {
  let redis: OwnRedis;
  let production: RateLimits;
  let development: RateLimits;
  const stores: RedisStore[] = [];
  const servers: TestServer[] = [];
  let productionServer: TestServer;
  let developmentServer: TestServer;
  let productionClient: HttpClient;
  let developmentClient: HttpClient;

  const serverEnv = (nodeEnv: string) => ({
    REDIS_URL: redis.url,
    NODE_ENV: nodeEnv,
    OIDC_ISSUER: 'http://127.0.0.1:9/unused',
    OIDC_CLIENT_ID: 'x',
    SESSION_SECRET: 'x'.repeat(40),
  });

  async function superAdminClient(server: TestServer): Promise<HttpClient> {
    const [superadmin] = await server.services.storage.db.select().from(users).where(eq(users.email, 'superadmin@example.org'));
    const { token } = await createSession(server.services, superadmin!.id);
    return clientWithToken(server, token);
  }

  beforeAll(async () => {
    redis = await startOwnRedis();
    const prefix = `csp-rl-${newId().slice(0, 8)}:`;
    const productionStore = new RedisStore(createRedisClient(redis.url, prefix));
    const developmentStore = new RedisStore(createRedisClient(redis.url, prefix));
    stores.push(productionStore, developmentStore);
    production = new RateLimits(productionStore, { isProduction: true, logger });
    development = new RateLimits(developmentStore, { isProduction: false, logger });

    productionServer = await startTestServer(serverEnv('production'));
    servers.push(productionServer);
    developmentServer = await startTestServer(serverEnv('development'));
    servers.push(developmentServer);
    expect(productionServer.services.config.isProduction).toBe(true);
    expect(developmentServer.services.config.isProduction).toBe(false);
    productionClient = await superAdminClient(productionServer);
    developmentClient = await superAdminClient(developmentServer);

    const clients = [...stores, ...servers.map((server) => server.services.kv as RedisStore)].map(clientOf);
    await waitFor('every redis client ready', () => clients.every((client) => client.status === 'ready'));
    // While Redis is up, everything works.
    expect(await production.consume('users', 'before')).toEqual({});
    expect(await development.consume('users', 'before')).toEqual({});
    expect((await productionClient.get('/api/auth/session')).status).toBe(200);
    expect((await developmentClient.get('/api/auth/session')).status).toBe(200);
    const before = await productionClient.post('/api/users/create', {
      name: 'Before',
      email: `rl-up-${newId().slice(0, 8)}@example.org`,
      level: 1,
      schoolName: 'Harbor View Academy',
    });
    expect(before.status, `a production create while Redis is up: ${JSON.stringify(before.body)}`).toBeLessThan(300);

    await redis.kill();
    await waitFor('every redis client to notice', () => clients.every((client) => client.status !== 'ready'));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(stores.map((store) => store.close()));
    await redis?.kill();
  });

  const failClosed = (Object.keys(LIMITS) as LimitName[]).filter((name) => LIMITS[name].failClosed);

  it('in production, every fail-closed limit refuses with 429', async () => {
    expect(failClosed).toEqual(expect.arrayContaining(['auth', 'formsCreate', 'users', 'usersWrite', 'usersCreate', 'usersBulk', 'usersImport']));
    for (const name of failClosed) await expectTooManyRequests(production.consume(name, 'k1'), LIMITS[name].durationSeconds);
  });

  it('in development, every limit lets the request through with a warning', async () => {
    for (const name of Object.keys(LIMITS) as LimitName[]) {
      const outcome = await development.consume(name, 'k1');
      expect(outcome.warning, name).toEqual(expect.any(String));
    }
  });

  it('the save limit never refuses, in either mode: the save proceeds with a warning', async () => {
    expect(LIMITS.save.failClosed).toBe(false);
    for (const limits of [production, development]) {
      const outcome = await limits.consume('save', 'user1:form1');
      expect(outcome).toEqual({ warning: expect.any(String) });
    }
  });

  it('over HTTP: a production server answers POST /api/users/create with 429 and creates nothing', async () => {
    const email = `rl-down-${newId().slice(0, 8)}@example.org`;
    const response = await productionClient.post('/api/users/create', { name: 'Down', email, level: 1, schoolName: 'Harbor View Academy' });
    expectTooManyResponse(response);
    expect(await productionServer.services.storage.db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
    // Sessions still work without the store (the deny check fails open; the database decides).
    expect((await productionClient.get('/api/auth/session')).status).toBe(200);
  });

  it('over HTTP: a development server creates the user (200, as every success in the specification)', async () => {
    const email = `rl-down-${newId().slice(0, 8)}@example.org`;
    const response = await developmentClient.post('/api/users/create', { name: 'Down', email, level: 1, schoolName: 'Harbor View Academy' });
    expect(response.status).toBe(200);
    expect(response.body.user.email).toBe(email);
    expect(await developmentServer.services.storage.db.select().from(users).where(eq(users.email, email))).toHaveLength(1);
  });
});
