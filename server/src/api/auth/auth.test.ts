import http from 'node:http';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq, inArray } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { flowToCallback, clientWithToken } from '../../testing/signIn.ts';
import { SESSION_COOKIE, SESSION_MAX_AGE_MS, validateSessionToken, validateSessionTokens } from '../../auth/sessions.ts';
import { auditLogs, sessions, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { userByEmail } from '../../testing/users.ts';

/**
 * Sign-in, sessions, the access gate, the same-origin guard and role preview, over HTTP against a
 * real server (embedded PGlite, or PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set).
 *
 * Every server-side OIDC token exchange with the bundled provider is counted against the auth
 * limit of 127.0.0.1 (see the last describe block), so each block starts its own server and keeps
 * its number of completed sign-ins under 20; otherwise unrelated tests would fail with
 * /login?error=failed.
 */

const SIGN_IN_COOKIE = 'csp.sign-in';
const ACTIVE_DEMO_USERS: [email: string, level: number][] = [
  ['superadmin@example.org', 5],
  ...(['harbor', 'riverside'] as const).flatMap((school): [string, number][] => [
    [`principal.${school}@example.org`, 4],
    [`ap.${school}@example.org`, 3],
    [`coordinator.${school}@example.org`, 2],
    [`teacher.${school}@example.org`, 1],
  ]),
];

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const isRedirect = (status: number) => status >= 300 && status < 400;

interface CallbackOutcome {
  client: HttpClient;
  status: number;
  /** The Location the callback answered with, exactly as sent. */
  location: string;
  /** Set-Cookie lines of the callback response. */
  setCookies: string[];
}

async function finishCallback(client: HttpClient, callback: string): Promise<CallbackOutcome> {
  const response = await client.request('GET', callback);
  await response.body?.cancel();
  return { client, status: response.status, location: response.headers.get('location') ?? '', setCookies: response.headers.getSetCookie() };
}

/** The whole real flow: sign-in start, provider login form, callback. */
async function fullFlow(baseUrl: string, email: string, callbackUrl?: string): Promise<CallbackOutcome> {
  const { client, callback } = await flowToCallback(baseUrl, email, callbackUrl);
  return finishCallback(client, callback);
}

async function signedIn(server: TestServer, email: string): Promise<HttpClient> {
  const outcome = await fullFlow(server.url, email);
  if (!isRedirect(outcome.status) || outcome.location.startsWith('/login')) {
    throw new Error(`sign-in of ${email} refused: ${outcome.status} ${outcome.location}`);
  }
  return outcome.client;
}

function tokenOf(client: HttpClient): string {
  const token = client.cookies.get(SESSION_COOKIE);
  if (!token) throw new Error('client holds no session cookie');
  return token;
}

let userSeq = 0;
/** A user created directly in the database, for tests that end or change that user's sessions. */
async function makeUser(server: TestServer, level: number, extra: Partial<typeof users.$inferInsert> = {}) {
  userSeq += 1;
  const [row] = await server.services.storage.db
    .insert(users)
    .values({
      id: newId(),
      email: `auth-test-${userSeq}-${newId().slice(0, 6)}@example.org`,
      name: `Auth Test ${userSeq}`,
      level,
      schoolName: 'Riverside Learning Center',
      title: 'Teacher',
      ...extra,
    })
    .returning();
  return row!;
}

async function sessionCount(server: TestServer, userId?: string): Promise<number> {
  const db = server.services.storage.db;
  const query = db.select({ n: count() }).from(sessions);
  const [row] = await (userId ? query.where(eq(sessions.userId, userId)) : query);
  return row!.n;
}

/** A request with exactly these headers (no Origin unless given): what a foreign page or tool sends. */
function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  const url = new URL(baseUrl);
  return new Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            // not JSON
          }
          resolve({ status: response.statusCode!, body: parsed, headers: response.headers });
        });
      },
    );
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

function parseSetCookie(line: string) {
  const [pair, ...attributes] = line.split(';').map((part) => part.trim());
  const split = pair!.indexOf('=');
  const attrs = new Map<string, string>();
  for (const attribute of attributes) {
    const eqAt = attribute.indexOf('=');
    attrs.set((eqAt < 0 ? attribute : attribute.slice(0, eqAt)).toLowerCase(), eqAt < 0 ? '' : attribute.slice(eqAt + 1));
  }
  return { name: pair!.slice(0, split), value: pair!.slice(split + 1), attrs };
}

function sessionCookieLine(setCookies: string[]): string | undefined {
  return setCookies.find((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/expires=thu, 01 jan 1970/i.test(line) && !/^[^=]+=;/.test(line));
}

// ---------------------------------------------------------------------------------------------

describe('sign-in through the real OpenID Connect flow', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('signs in every active non-demo demo user with a hashed, HttpOnly, SameSite=Lax session cookie', async () => {
    const tokens = new Set<string>();
    for (const [email, level] of ACTIVE_DEMO_USERS) {
      const outcome = await fullFlow(server.url, email);
      expect(outcome.status, email).toBe(302);
      expect(outcome.location, email).toBe('/plans');

      const line = sessionCookieLine(outcome.setCookies);
      expect(line, `${email}: session cookie set`).toBeDefined();
      const cookie = parseSetCookie(line!);
      expect(cookie.name).toBe('csp.session-token');
      expect(cookie.attrs.has('httponly'), 'HttpOnly').toBe(true);
      expect(cookie.attrs.get('samesite')?.toLowerCase()).toBe('lax');
      expect(cookie.attrs.get('path')).toBe('/');
      // At least 128 bits of randomness: base32 carries 5 bits per character.
      expect(cookie.value).toMatch(/^[a-z2-7]+$/);
      expect(cookie.value.length * 5).toBeGreaterThanOrEqual(128);
      expect(tokens.has(cookie.value), 'tokens are unique').toBe(false);
      tokens.add(cookie.value);
      // The cookie lives as long as the session (8 hours), not longer.
      const expires = Date.parse(cookie.attrs.get('expires') ?? '');
      expect(expires).toBeGreaterThan(Date.now() + SESSION_MAX_AGE_MS - 10 * 60_000);
      expect(expires).toBeLessThanOrEqual(Date.now() + SESSION_MAX_AGE_MS + 60_000);
      // The sign-in state cookie is cleared by the callback.
      expect(outcome.client.cookies.has(SIGN_IN_COOKIE)).toBe(false);

      const { status, body } = await outcome.client.get('/api/auth/session');
      expect(status, email).toBe(200);
      expect(body.user.email).toBe(email);
      expect(body.user.level).toBe(level);
      expect(body.previewing).toBe(false);
      // What the web app may offer, from the policy: the district's pages for level 5, the Users page and new plans from level 4.
      expect(body.abilities, email).toEqual({ administerDistrict: level === 5, administerUsers: level >= 4, createPlans: level >= 4, previewAs: level === 5 });
      expect(Date.parse(body.expires)).toBeLessThanOrEqual(Date.now() + SESSION_MAX_AGE_MS + 60_000);

      // Only a hash of the token is stored: no row is keyed by the cookie value, and no column holds it.
      const db = server.services.storage.db;
      expect(await db.select().from(sessions).where(eq(sessions.id, cookie.value))).toHaveLength(0);
      const [row] = await db
        .select()
        .from(sessions)
        .where(eq(sessions.id, sha256Hex(cookie.value)));
      expect(row, `${email}: session row keyed by SHA-256 of the token`).toBeDefined();
      expect(row!.userId).toBe((await userByEmail(server, email)).id);
      expect(row!.id).not.toBe(cookie.value);
      expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBeLessThanOrEqual(SESSION_MAX_AGE_MS);
    }
    const allRows = JSON.stringify(await server.services.storage.db.select().from(sessions));
    for (const token of tokens) expect(allRows.includes(token)).toBe(false);
  });

  it.each([
    ['x@gmail.com', 'domain'],
    ['nobody.here@example.org', 'unknown'],
    ['inactive.harbor@example.org', 'inactive'],
    ['demo.principal@example.org', 'demo'],
  ])('refuses %s with /login?error=%s and no session', async (email, reason) => {
    const before = await sessionCount(server);
    const outcome = await fullFlow(server.url, email);
    expect(outcome.status).toBe(302);
    expect(outcome.location).toBe(`/login?error=${reason}`);
    expect(sessionCookieLine(outcome.setCookies)).toBeUndefined();
    expect(outcome.client.cookies.has(SESSION_COOKIE)).toBe(false);
    expect((await outcome.client.get('/api/auth/session')).status).toBe(401);
    expect(await sessionCount(server)).toBe(before);
  });

  it('refuses a callback without the sign-in state cookie', async () => {
    const before = await sessionCount(server);
    const { client, callback } = await flowToCallback(server.url, 'teacher.harbor@example.org');
    client.cookies.delete(SIGN_IN_COOKIE);
    client.cookies.delete(`${SIGN_IN_COOKIE}.sig`);
    const outcome = await finishCallback(client, callback);
    expect(outcome.location).toBe('/login?error=expired');
    expect(sessionCookieLine(outcome.setCookies)).toBeUndefined();
    expect((await client.get('/api/auth/session')).status).toBe(401);
    expect(await sessionCount(server)).toBe(before);
  });

  it('refuses a callback whose sign-in state cookie was tampered with', async () => {
    const before = await sessionCount(server);
    const { client, callback } = await flowToCallback(server.url, 'teacher.harbor@example.org');
    const original = client.cookies.get(SIGN_IN_COOKIE)!;
    expect(original).toBeTruthy();
    // Same shape, different contents (the attacker's own state and verifier), original signature kept.
    const state = JSON.parse(Buffer.from(original, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...state, callbackUrl: '/admin', codeVerifier: 'a'.repeat(43) })).toString('base64url');
    client.cookies.set(SIGN_IN_COOKIE, forged);
    const outcome = await finishCallback(client, callback);
    expect(isRedirect(outcome.status)).toBe(true);
    expect(outcome.location).toBe('/login?error=expired');
    expect(sessionCookieLine(outcome.setCookies)).toBeUndefined();
    expect((await client.get('/api/auth/session')).status).toBe(401);
    expect(await sessionCount(server)).toBe(before);
  });

  it('refuses a callback whose state belongs to another sign-in (login CSRF)', async () => {
    const before = await sessionCount(server);
    const victim = await flowToCallback(server.url, 'teacher.harbor@example.org');
    const attacker = await flowToCallback(server.url, 'teacher.riverside@example.org');
    // The victim's browser is made to load the attacker's callback URL.
    const outcome = await finishCallback(victim.client, attacker.callback);
    expect(outcome.location).toBe('/login?error=failed');
    expect(sessionCookieLine(outcome.setCookies)).toBeUndefined();
    expect((await victim.client.get('/api/auth/session')).status).toBe(401);
    expect(await sessionCount(server)).toBe(before);
  });

  it('honours a same-site callbackUrl, and a replayed callback does not sign in again', async () => {
    const { client, callback } = await flowToCallback(server.url, 'coordinator.harbor@example.org', '/plans/abc123?tab=2');
    const stateCookies = [...client.cookies];
    const outcome = await finishCallback(client, callback);
    expect(outcome.location).toBe('/plans/abc123?tab=2');
    expect((await outcome.client.get('/api/auth/session')).body.user.email).toBe('coordinator.harbor@example.org');

    // Someone who captured both the sign-in cookies and the callback URL replays them.
    const before = await sessionCount(server);
    const replayer = new HttpClient(server.url);
    for (const [name, value] of stateCookies) replayer.cookies.set(name, value);
    const replay = await finishCallback(replayer, callback);
    expect(replay.location).toBe('/login?error=failed');
    expect(sessionCookieLine(replay.setCookies)).toBeUndefined();
    expect(await sessionCount(server)).toBe(before);
  });

  it.each(['https://evil.example/steal', '//evil.example/steal', '/\\evil.example/steal', 'javascript:alert(1)'])(
    'does not follow the callbackUrl %s (no open redirect)',
    async (callbackUrl) => {
      const outcome = await fullFlow(server.url, 'ap.harbor@example.org', callbackUrl);
      expect(outcome.status).toBe(302);
      expect(outcome.location.startsWith('/')).toBe(true);
      expect(outcome.location.startsWith('//')).toBe(false);
      expect(outcome.location).not.toMatch(/evil|javascript/i);
      expect(new URL(outcome.location, server.url).origin).toBe(new URL(server.url).origin);
      expect(outcome.location).toBe('/plans');
      expect((await outcome.client.get('/api/auth/session')).status).toBe(200);
    },
  );
});

// ---------------------------------------------------------------------------------------------

describe('sessions, the access gate, the same-origin guard, role preview and the question bank', () => {
  let server: TestServer;
  let admin: HttpClient | undefined;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  /** One signed-in Super Admin for the tests that only need one (no test ends this session). */
  const superAdmin = async () => (admin ??= await signedIn(server, 'superadmin@example.org'));

  describe('ending sessions', () => {
    it('signing out ends the session: the same cookie answers 401 everywhere', async () => {
      const user = await makeUser(server, 1);
      const client = await signedIn(server, user.email);
      const token = tokenOf(client);
      expect((await client.get('/api/auth/session')).status).toBe(200);
      expect((await client.get('/api/question-bank')).status).toBe(200);

      const out = await client.request('POST', '/api/auth/signout', { json: {} });
      expect(out.status).toBe(200);
      expect(await out.json()).toEqual({ success: true });
      const cleared = out.headers.getSetCookie().find((line) => line.startsWith(`${SESSION_COOKIE}=`));
      expect(cleared, 'sign-out clears the cookie').toMatch(/expires=thu, 01 jan 1970/i);
      expect(client.cookies.has(SESSION_COOKIE)).toBe(false);

      const old = clientWithToken(server, token);
      const session = await old.get('/api/auth/session');
      expect(session.status).toBe(401);
      expect(session.body).toEqual({ error: expect.any(String) });
      const privateRoute = await old.get('/api/question-bank');
      expect(privateRoute.status).toBe(401);
      expect(privateRoute.body).toEqual({ error: expect.any(String) });
      expect(await sessionCount(server, user.id)).toBe(0);
      // The jti is on the deny-list of the shared store (sess:deny:{jti}).
      expect(await server.services.kv.get(`sess:deny:${sha256Hex(token)}`)).not.toBeNull();
    });

    it('an 8-hour-old session (expires_at in the past) answers 401', async () => {
      const user = await makeUser(server, 2);
      const client = await signedIn(server, user.email);
      const token = tokenOf(client);
      expect((await client.get('/api/auth/session')).status).toBe(200);

      const createdAt = new Date(Date.now() - SESSION_MAX_AGE_MS - 60_000);
      const updated = await server.services.storage.db
        .update(sessions)
        .set({ createdAt, expiresAt: new Date(createdAt.getTime() + SESSION_MAX_AGE_MS) })
        .where(eq(sessions.id, sha256Hex(token)))
        .returning();
      expect(updated).toHaveLength(1);

      expect((await client.get('/api/auth/session')).status).toBe(401);
      expect((await client.get('/api/question-bank')).status).toBe(401);
    });

    it('a user deactivated in the database answers 401 with the old cookie', async () => {
      const user = await makeUser(server, 3);
      const client = await signedIn(server, user.email);
      expect((await client.get('/api/question-bank')).status).toBe(200);
      await server.services.storage.db.update(users).set({ isActive: false }).where(eq(users.id, user.id));
      expect((await client.get('/api/auth/session')).status).toBe(401);
      expect((await client.get('/api/question-bank')).status).toBe(401);
    });

    it('checking many sessions at once (the presence heartbeat) keeps exactly those the cookie check accepts', async () => {
      const [live, signedOut, expired, deactivated] = [
        await makeUser(server, 1),
        await makeUser(server, 2),
        await makeUser(server, 3),
        await makeUser(server, 3),
      ];
      const clients = await Promise.all([live, signedOut, expired, deactivated].map((user) => signedIn(server, user.email)));
      const [liveToken, signedOutToken, expiredToken, deactivatedToken] = clients.map(tokenOf) as [string, string, string, string];
      expect((await clients[1]!.post('/api/auth/signout', {})).status).toBe(200);
      await server.services.storage.db
        .update(sessions)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(sessions.id, sha256Hex(expiredToken)));
      await server.services.storage.db.update(users).set({ isActive: false }).where(eq(users.id, deactivated.id));
      const tokens = [liveToken, signedOutToken, expiredToken, deactivatedToken, 'not-a-token', 'a'.repeat(32)];

      const valid = await validateSessionTokens(server.services, tokens);
      expect([...valid.keys()]).toEqual([liveToken]);
      expect(valid.get(liveToken)).toMatchObject({ sessionId: sha256Hex(liveToken), previewing: false, actor: { id: live.id, email: live.email } });
      for (const token of tokens) expect((await validateSessionToken(server.services, token)) !== null).toBe(valid.has(token));
      expect(await validateSessionTokens(server.services, [])).toEqual(new Map());
    });

    it('a user deactivated by the Super Admin (PUT /api/users) answers 401, and stays signed out when reactivated', async () => {
      const user = await makeUser(server, 1);
      const client = await signedIn(server, user.email);
      expect((await client.get('/api/auth/session')).status).toBe(200);
      const sa = await superAdmin();

      const off = await sa.put('/api/users', { userId: user.id, isActive: false });
      expect(off.status).toBe(200);
      expect(off.body.user.isActive).toBe(false);
      expect((await client.get('/api/auth/session')).status).toBe(401);
      expect((await client.get('/api/question-bank')).status).toBe(401);

      const on = await sa.put('/api/users', { userId: user.id, isActive: true });
      expect(on.status).toBe(200);
      expect((await client.get('/api/auth/session')).status).toBe(401);
      expect(await sessionCount(server, user.id)).toBe(0);
    });

    it('a user deactivated by a bulk action answers 401 with the old cookie', async () => {
      const user = await makeUser(server, 1);
      const client = await signedIn(server, user.email);
      expect((await client.get('/api/auth/session')).status).toBe(200);
      const result = await (await superAdmin()).post('/api/users/bulk', { userIds: [user.id], action: 'deactivate' });
      expect(result.status).toBe(200);
      expect(result.body.applied).toBe(1);
      expect((await client.get('/api/auth/session')).status).toBe(401);
    });

    it('a cookie that is not a live session answers 401', async () => {
      for (const token of ['not-a-token', 'a'.repeat(32), '', `${'b'.repeat(31)}=`]) {
        const client = clientWithToken(server, token);
        expect((await client.get('/api/auth/session')).status, token).toBe(401);
        expect((await client.get('/api/users')).status, token).toBe(401);
      }
    });
  });

  describe('the access gate', () => {
    it.each(['/api/users', '/api/question-bank', '/api/users/audit-logs'])('GET %s without a session answers 401 JSON', async (path) => {
      const response = await new HttpClient(server.url).get(path);
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      expect(response.body).toEqual({ error: expect.any(String) });
    });

    it('refuses private writes without a session with 401, and writes nothing', async () => {
      const anonymous = new HttpClient(server.url);
      const email = `gate-${newId()}@example.org`;
      const create = await anonymous.post('/api/users/create', { name: 'Nobody', email, level: 1, schoolName: 'Riverside Learning Center' });
      expect(create.status).toBe(401);
      expect(create.body).toEqual({ error: expect.any(String) });
      const put = await anonymous.put('/api/users', { userId: newId(), isActive: false });
      expect(put.status).toBe(401);
      expect(await server.services.storage.db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
    });

    it('lets the public routes answer without a session', async () => {
      const anonymous = new HttpClient(server.url);
      const health = await anonymous.get('/api/health');
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('ok');

      // The auth routes are public: sign-in starts, sign-out answers, the session route says "no session".
      const signin = await anonymous.request('GET', '/api/auth/signin?callbackUrl=/plans');
      expect(signin.status).toBe(302);
      expect(new URL(signin.headers.get('location')!, server.url).pathname).toMatch(/^\/dev-idp\//);
      const signout = await anonymous.post('/api/auth/signout', {});
      expect(signout.status).toBe(200);
      expect(signout.body).toEqual({ success: true });
      const session = await anonymous.get('/api/auth/session');
      expect(session.status).toBe(401);
      expect(session.body).toEqual({ error: expect.any(String) });
    });

    it('cannot be bypassed with dot segments or an odd case in the path', async () => {
      for (const path of ['/api/auth/../users', '/api/auth/%2e%2e/users', '/api/health/../users', '/api/auth/..%2fusers', '/api/Users']) {
        const response = await rawRequest(server.url, 'GET', path, { 'x-forwarded-for': '192.0.2.10' });
        expect([401, 404], `${path} answered ${response.status}`).toContain(response.status);
        expect(JSON.stringify(response.body ?? '')).not.toContain('superadmin@example.org');
      }
    });
  });

  describe('the same-origin guard', () => {
    const origin = () => new URL(server.url).origin;
    const newUserBody = () => ({ name: 'Guarded', email: `guard-${newId()}@example.org`, level: 1, schoolName: 'Riverside Learning Center' });

    async function attempt(headers: Record<string, string>, body: string | undefined) {
      const sa = await superAdmin();
      return rawRequest(server.url, 'POST', '/api/users/create', { cookie: sa.cookieHeader(), 'x-forwarded-for': '192.0.2.20', ...headers }, body);
    }

    async function exists(email: string) {
      return (await server.services.storage.db.select().from(users).where(eq(users.email, email))).length > 0;
    }

    it('refuses a signed-in POST with a foreign Origin (403), and creates nothing', async () => {
      const body = newUserBody();
      const response = await attempt({ origin: 'https://evil.example', 'content-type': 'application/json' }, JSON.stringify(body));
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ error: expect.any(String) });
      expect(await exists(body.email)).toBe(false);
    });

    it('refuses a POST with neither Origin nor Sec-Fetch-Site (403)', async () => {
      const body = newUserBody();
      const response = await attempt({ 'content-type': 'application/json' }, JSON.stringify(body));
      expect(response.status).toBe(403);
      expect(await exists(body.email)).toBe(false);
    });

    it('refuses Sec-Fetch-Site: cross-site or same-site, even with the right Origin (403)', async () => {
      for (const site of ['cross-site', 'same-site']) {
        const body = newUserBody();
        const response = await attempt({ origin: origin(), 'sec-fetch-site': site, 'content-type': 'application/json' }, JSON.stringify(body));
        expect(response.status, site).toBe(403);
        expect(await exists(body.email)).toBe(false);
      }
      const body = newUserBody();
      const noOrigin = await attempt({ 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, JSON.stringify(body));
      expect(noOrigin.status).toBe(403);
    });

    it('refuses same-origin bodies that are not JSON (text/plain, form-urlencoded, multipart) with 403', async () => {
      const body = newUserBody();
      const cases: [string, string][] = [
        ['text/plain', JSON.stringify(body)],
        ['application/x-www-form-urlencoded', new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, String(v)])).toString()],
        ['multipart/form-data; boundary=x', `--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nGuarded\r\n--x--\r\n`],
      ];
      for (const [type, payload] of cases) {
        const response = await attempt({ origin: origin(), 'content-type': type }, payload);
        expect(response.status, type).toBe(403);
        const missing = await attempt({ 'sec-fetch-site': 'same-origin', 'content-type': type }, payload);
        expect(missing.status, `${type} (Sec-Fetch-Site only)`).toBe(403);
      }
      expect(await exists(body.email)).toBe(false);
    });

    it('refuses foreign PUT and DELETE as well', async () => {
      const target = await makeUser(server, 1);
      const sa = await superAdmin();
      for (const method of ['PUT', 'DELETE']) {
        const response = await rawRequest(
          server.url,
          method,
          '/api/users',
          { cookie: sa.cookieHeader(), origin: 'https://evil.example', 'content-type': 'application/json' },
          JSON.stringify(method === 'PUT' ? { userId: target.id, isActive: false } : { userId: target.id }),
        );
        expect(response.status, method).toBe(403);
      }
      expect((await userByEmail(server, target.email)).isActive).toBe(true);
    });

    it('lets a same-origin JSON POST through (Origin, or Sec-Fetch-Site: same-origin), and safe methods from anywhere', async () => {
      const viaOrigin = newUserBody();
      const first = await attempt({ origin: origin(), 'content-type': 'application/json' }, JSON.stringify(viaOrigin));
      expect(first.status, JSON.stringify(first.body)).toBeLessThan(300);
      expect(await exists(viaOrigin.email)).toBe(true);

      const viaFetchSite = newUserBody();
      const second = await attempt({ 'sec-fetch-site': 'same-origin', 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(viaFetchSite));
      expect(second.status, JSON.stringify(second.body)).toBeLessThan(300);
      expect(await exists(viaFetchSite.email)).toBe(true);

      const viaClient = newUserBody();
      const third = await (await superAdmin()).post('/api/users/create', viaClient);
      expect(third.status).toBeLessThan(300);
      expect(await exists(viaClient.email)).toBe(true);

      const sa = await superAdmin();
      const read = await rawRequest(server.url, 'GET', '/api/auth/session', { cookie: sa.cookieHeader(), origin: 'https://evil.example' });
      expect(read.status).toBe(200);
    });
  });

  describe('role preview', () => {
    it('lets the Super Admin preview a demo user and stop, with audit records', async () => {
      const client = await signedIn(server, 'superadmin@example.org');
      const superadmin = await userByEmail(server, 'superadmin@example.org');
      const demo = await userByEmail(server, 'demo.principal@example.org');

      const start = await client.post('/api/auth/preview', { userId: demo.id });
      expect(start.status).toBe(200);
      expect(start.body).toMatchObject({ success: true, previewing: true, user: { email: 'demo.principal@example.org', level: 4 } });

      const previewing = await client.get('/api/auth/session');
      expect(previewing.status).toBe(200);
      expect(previewing.body.user.email).toBe('demo.principal@example.org');
      expect(previewing.body.user.level).toBe(4);
      expect(previewing.body.previewing).toBe(true);
      expect(previewing.body.signedInAs?.email).toBe('superadmin@example.org');
      // The pages are the demo principal's; stopping the preview stays the Super Admin's.
      expect(previewing.body.abilities).toEqual({ administerDistrict: false, administerUsers: true, createPlans: true, previewAs: true });

      // While previewing, the session acts as the demo principal: the user list is that school's, below level 5.
      const list = await client.get('/api/users?limit=200');
      expect(list.status).toBe(200);
      expect(list.body.users.length).toBeGreaterThan(0);
      for (const user of list.body.users) {
        expect(user.schoolName).toBe('Harbor View Academy');
        expect(user.level).toBeLessThan(5);
      }

      const stop = await client.delete('/api/auth/preview');
      expect(stop.status).toBe(200);
      expect(stop.body).toMatchObject({ success: true, previewing: false, user: { email: 'superadmin@example.org', level: 5 } });
      const restored = await client.get('/api/auth/session');
      expect(restored.body.user.email).toBe('superadmin@example.org');
      expect(restored.body.user.level).toBe(5);
      expect(restored.body.previewing).toBe(false);

      const records = await server.services.storage.db
        .select()
        .from(auditLogs)
        .where(and(eq(auditLogs.actorId, superadmin.id), inArray(auditLogs.action, ['auth.preview.start', 'auth.preview.stop'])));
      const started = records.filter((r) => r.action === 'auth.preview.start');
      const stopped = records.filter((r) => r.action === 'auth.preview.stop');
      expect(started).toHaveLength(1);
      expect(stopped).toHaveLength(1);
      expect(started[0]!.targetId).toBe(demo.id);
      expect(started[0]!.actorEmail).toBe('superadmin@example.org');
      expect(stopped[0]!.targetId).toBe(demo.id);
    });

    it('refuses to preview a user who is not a demo user (400), or an unknown user (404)', async () => {
      const sa = await superAdmin();
      const principal = await userByEmail(server, 'principal.harbor@example.org');
      const refused = await sa.post('/api/auth/preview', { userId: principal.id });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: expect.any(String) });
      expect((await sa.post('/api/auth/preview', { userId: newId() })).status).toBe(404);
      const session = await sa.get('/api/auth/session');
      expect(session.body.user.email).toBe('superadmin@example.org');
      expect(session.body.previewing).toBe(false);
    });

    it('refuses a principal who tries to preview (403)', async () => {
      const client = await signedIn(server, 'principal.riverside@example.org');
      const demo = await userByEmail(server, 'demo.principal@example.org');
      const response = await client.post('/api/auth/preview', { userId: demo.id });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ error: expect.any(String) });
      const session = await client.get('/api/auth/session');
      expect(session.body.user.email).toBe('principal.riverside@example.org');
      expect(session.body.previewing).toBe(false);
    });
  });

  describe('the question bank read', () => {
    it('answers the published bank: version 1, 14 steps', async () => {
      const { status, body } = await (await superAdmin()).get('/api/question-bank');
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(['source', 'steps', 'version']);
      expect(body.version).toBe(1);
      expect(body.source).toBe('published');
      expect(body.steps).toHaveLength(14);
      for (const step of body.steps) {
        expect(typeof step.key).toBe('string');
        expect(Array.isArray(step.questions)).toBe(true);
      }
    });

    it('falls back to the published version for a year without settings', async () => {
      const sa = await superAdmin();
      const { status, body } = await sa.get('/api/question-bank?schoolYear=2090-2091');
      expect(status).toBe(200);
      expect(body.version).toBe(1);
      expect(body.source).toBe('published');
      expect(body.steps).toHaveLength(14);
      expect((await sa.get('/api/question-bank?version=1')).body.version).toBe(1);
    });

    it('answers 404 for an unknown version and 400 for a bad school year', async () => {
      const sa = await superAdmin();
      const missing = await sa.get('/api/question-bank?version=99');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: expect.any(String) });
      const bad = await sa.get('/api/question-bank?schoolYear=bad');
      expect(bad.status).toBe(400);
      expect(bad.body.error).toEqual(expect.any(String));
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('the auth limit counts client POSTs, not the server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  // The auth limit is 20 POSTs per minute per *client* IP. Here 25 different clients (25 different
  // addresses) each sign in once, so none of them is near its limit. The server's own back-channel
  // token request to the bundled provider must not be counted as a client POST.
  it('lets 25 different clients sign in within a minute', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 25; i++) {
      const client = new HttpClient(server.url, `198.18.0.${i + 1}`);
      const { callback } = await flowToCallback(server.url, 'teacher.harbor@example.org', '/plans', client);
      outcomes.push((await finishCallback(client, callback)).location);
    }
    expect(outcomes).toEqual(Array.from({ length: 25 }, () => '/plans'));
  });
});
