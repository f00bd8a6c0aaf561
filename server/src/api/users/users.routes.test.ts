/**
 * Users API, route by route: listing scope and paging, create rules, update and delete, the
 * collaboration flags (no mass assignment), and sessions ending when a user is deactivated.
 * State is always read back (through the API or the database), never taken from the response alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, lt } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn, signInAll, signInFlow } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { users } from '../../storage/schema.ts';
import { DISTRICT, HARBOR, RIVERSIDE } from '../../testing/demoNames.ts';
import { allUsers, findUserByEmail, freshEmail, insertUser, userById } from '../../testing/users.ts';

// Writes are limited per user (users-write 30/min): they are spread over the three signed-in callers.
let server: TestServer;
let admin: HttpClient;
let harbor: HttpClient;
let riverside: HttpClient;

beforeAll(async () => {
  server = await startTestServer();
  [admin, harbor, riverside] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org', 'principal.riverside@example.org']);
});
afterAll(() => server?.stop());

const emailsOf = (list: { email: string }[]) => list.map((u) => u.email).sort();

describe('GET /api/users: scope and paging', () => {
  it('shows a principal exactly the users of the own school below level 5', async () => {
    // A Harbor-school Super Admin must stay hidden from the Harbor principal (level 5).
    await insertUser(server, { level: 5, schoolName: HARBOR, email: freshEmail('harbor.admin') });
    for (const [client, school] of [
      [harbor, HARBOR],
      [riverside, RIVERSIDE],
    ] as const) {
      const { status, body } = await client.get('/api/users?limit=200');
      expect(status).toBe(200);
      const expected = await server.services.storage.db
        .select()
        .from(users)
        .where(and(eq(users.schoolName, school), lt(users.level, 5)));
      expect(expected.length).toBeGreaterThanOrEqual(4);
      expect(emailsOf(body.users)).toEqual(emailsOf(expected));
      expect(body.total).toBe(expected.length);
      for (const user of body.users) {
        expect(user.schoolName).toBe(school);
        expect(user.level).toBeLessThan(5);
      }
    }
  });

  it('does not let a principal widen the scope with the schoolName filter', async () => {
    const { status, body } = await harbor.get(`/api/users?schoolName=${encodeURIComponent(RIVERSIDE)}`);
    expect(status).toBe(200);
    expect(body.users).toEqual([]);
    expect(body.total).toBe(0);
  });

  it('shows the Super Admin every user, with the fields of the specification', async () => {
    const { status, body } = await admin.get('/api/users?limit=200');
    expect(status).toBe(200);
    const everyone = await allUsers(server);
    expect(emailsOf(body.users)).toEqual(emailsOf(everyone));
    expect(body.total).toBe(everyone.length);
    const inactive = body.users.find((u: { email: string }) => u.email === 'inactive.harbor@example.org');
    expect(inactive).toMatchObject({ name: 'Robin Hale', level: 1, schoolName: HARBOR, title: 'Teacher', isActive: false });
    expect(body.users.find((u: { email: string }) => u.email === 'superadmin@example.org')).toMatchObject({ level: 5, schoolName: DISTRICT });
  });

  it('pages with page and limit (at most 200)', async () => {
    const full = await admin.get('/api/users?limit=200');
    const first = await admin.get('/api/users?page=1&limit=4');
    const second = await admin.get('/api/users?page=2&limit=4');
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.body).toMatchObject({ page: 1, limit: 4, total: full.body.total });
    expect(second.body).toMatchObject({ page: 2, limit: 4, total: full.body.total });
    expect(first.body.users).toHaveLength(4);
    expect(second.body.users).toHaveLength(4);
    const pages = [...first.body.users, ...second.body.users].map((u: { email: string }) => u.email);
    expect(pages).toEqual(full.body.users.slice(0, 8).map((u: { email: string }) => u.email));
    const beyond = await admin.get('/api/users?page=99&limit=200');
    expect(beyond.status).toBe(200);
    expect(beyond.body.users).toEqual([]);
    for (const query of ['limit=201', 'limit=0', 'page=0', 'page=abc']) {
      const bad = await admin.get(`/api/users?${query}`);
      expect(bad.status, query).toBe(400);
      expect(typeof bad.body.error).toBe('string');
    }
  });
});

describe('POST /api/users/create', () => {
  it('creates the user (200), stores the e-mail lowercase, defaults isActive to true, and the user can sign in', async () => {
    const local = freshEmail('mixed.case');
    const { status, body } = await admin.post('/api/users/create', {
      name: '  Morgan Lee ',
      email: `  ${local.toUpperCase()} `,
      level: 2,
      schoolName: RIVERSIDE,
      title: 'Coordinator',
    });
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.user).toMatchObject({ name: 'Morgan Lee', email: local, level: 2, schoolName: RIVERSIDE, title: 'Coordinator', isActive: true });
    const stored = await findUserByEmail(server, local);
    expect(stored).toMatchObject({ id: body.user._id, email: local, name: 'Morgan Lee', level: 2, schoolName: RIVERSIDE, isActive: true, isDemo: false });
    // The new account is real: it signs in with its (any-case) address.
    const session = await (await signIn(server.url, local.toUpperCase())).get('/api/auth/session');
    expect(session.status).toBe(200);
    expect(session.body.user._id).toBe(body.user._id);
  });

  it('creates an inactive user when asked', async () => {
    const email = freshEmail('inactive');
    const { status } = await harbor.post('/api/users/create', { name: 'Off Duty', email, level: 1, schoolName: HARBOR, isActive: false });
    expect(status).toBe(200);
    expect((await findUserByEmail(server, email))?.isActive).toBe(false);
    expect((await signInFlow(server.url, email)).location).toBe('/login?error=inactive');
  });

  it('answers 409 { error: "User already exists" } for an existing e-mail in any case, and keeps the first user', async () => {
    const email = freshEmail('dup');
    await insertUser(server, { name: 'First', email, level: 1, schoolName: HARBOR });
    const again = await admin.post('/api/users/create', { name: 'Second', email: email.toUpperCase(), level: 3, schoolName: RIVERSIDE });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'User already exists' });
    const demo = await harbor.post('/api/users/create', { name: 'Copy', email: 'Teacher.Harbor@example.org', level: 1, schoolName: HARBOR });
    expect(demo.status).toBe(409);
    const matching = (await allUsers(server)).filter((u) => u.email === email);
    expect(matching).toHaveLength(1);
    expect(matching[0]).toMatchObject({ name: 'First', level: 1, schoolName: HARBOR });
  });

  it.each([
    ['missing name', { email: 'EMAIL', level: 1, schoolName: HARBOR }],
    ['blank name', { name: '   ', email: 'EMAIL', level: 1, schoolName: HARBOR }],
    ['missing e-mail', { name: 'No Mail', level: 1, schoolName: HARBOR }],
    ['bad e-mail', { name: 'Bad Mail', email: 'not-an-email', level: 1, schoolName: HARBOR }],
    ['level 6', { name: 'Too High', email: 'EMAIL', level: 6, schoolName: HARBOR }],
    ['level 0', { name: 'Too Low', email: 'EMAIL', level: 0, schoolName: HARBOR }],
    ['level 2.5', { name: 'Fraction', email: 'EMAIL', level: 2.5, schoolName: HARBOR }],
    ['level as a string', { name: 'String', email: 'EMAIL', level: '2', schoolName: HARBOR }],
    ['missing schoolName', { name: 'Nowhere', email: 'EMAIL', level: 1 }],
    ['isActive not boolean', { name: 'Maybe', email: 'EMAIL', level: 1, schoolName: HARBOR, isActive: 'yes' }],
    ['unknown field isDemo', { name: 'Sneaky', email: 'EMAIL', level: 1, schoolName: HARBOR, isDemo: true }],
    ['unknown field permissions', { name: 'Sneaky', email: 'EMAIL', level: 1, schoolName: HARBOR, permissions: { canEditPlans: true } }],
  ])('refuses %s with 400 { error } and creates nothing', async (_label, template) => {
    const email = freshEmail('invalid');
    const body = Object.fromEntries(Object.entries(template).map(([k, v]) => [k, v === 'EMAIL' ? email : v]));
    const before = (await allUsers(server)).length;
    const response = await admin.post('/api/users/create', body);
    expect(response.status).toBe(400);
    expect(typeof response.body.error).toBe('string');
    expect(response.body.error.length).toBeGreaterThan(0);
    expect((await allUsers(server)).length).toBe(before);
  });

  it('lets a principal create levels 1 to 3 of the own school only (403 otherwise)', async () => {
    const cases = [
      { level: 3, schoolName: HARBOR, status: 200 },
      { level: 4, schoolName: HARBOR, status: 403 },
      { level: 5, schoolName: HARBOR, status: 403 },
      { level: 1, schoolName: RIVERSIDE, status: 403 },
      { level: 1, schoolName: DISTRICT, status: 403 },
    ];
    for (const { level, schoolName, status } of cases) {
      const email = freshEmail('by.principal');
      const response = await harbor.post('/api/users/create', { name: 'By Principal', email, level, schoolName });
      expect(response.status, `${level} ${schoolName}`).toBe(status);
      const stored = await findUserByEmail(server, email);
      if (status === 200) expect(stored).toMatchObject({ level, schoolName });
      else expect(stored).toBeUndefined();
    }
  });
});

describe('PUT /api/users', () => {
  it('changes level, schoolName, title and isActive, and only those', async () => {
    const target = await insertUser(server, { level: 2, schoolName: HARBOR, title: 'Old', permissions: { canViewPlans: true } });
    const { status, body } = await admin.put('/api/users', { userId: target.id, level: 3, schoolName: RIVERSIDE, title: 'Assistant Principal' });
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ _id: target.id, level: 3, schoolName: RIVERSIDE, title: 'Assistant Principal', isActive: true });
    const stored = await userById(server, target.id);
    expect(stored).toMatchObject({
      email: target.email,
      name: target.name,
      level: 3,
      schoolName: RIVERSIDE,
      title: 'Assistant Principal',
      isActive: true,
      permissions: { canViewPlans: true },
    });
  });

  it('lets a principal change own-school users but not give level 4 or another school', async () => {
    const target = await insertUser(server, { level: 1, schoolName: HARBOR });
    expect((await harbor.put('/api/users', { userId: target.id, level: 3 })).status).toBe(200);
    expect((await userById(server, target.id))?.level).toBe(3);
    const promote = await harbor.put('/api/users', { userId: target.id, level: 4 });
    expect(promote.status).toBe(403);
    const move = await harbor.put('/api/users', { userId: target.id, schoolName: RIVERSIDE });
    expect(move.status).toBe(403);
    expect(await userById(server, target.id)).toMatchObject({ level: 3, schoolName: HARBOR });
  });

  it('answers 400 for bad bodies and 404 for an unknown id, changing nothing', async () => {
    const target = await insertUser(server, { level: 1, schoolName: HARBOR });
    const cases: [unknown, number][] = [
      [{ userId: target.id }, 400], // nothing to update
      [{ userId: 'not-a-hex-id', title: 'x' }, 400],
      [{ userId: target.id.toUpperCase(), title: 'x' }, 400],
      [{ title: 'x' }, 400],
      [{ userId: target.id, level: 6 }, 400],
      [{ userId: target.id, isActive: 'false' }, 400],
      [{ userId: target.id, email: 'someone.else@example.org' }, 400],
      [{ userId: target.id, name: 'Renamed' }, 400],
      [{ userId: target.id, permissions: { canEditPlans: true } }, 400],
      [{ userId: target.id, isDemo: true }, 400],
      [{ userId: 'ffffffffffffffffffffffff', title: 'x' }, 404],
    ];
    for (const [body, status] of cases) {
      const response = await admin.put('/api/users', body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(typeof response.body.error).toBe('string');
    }
    expect(await userById(server, target.id)).toEqual(target);
  });

  it("deactivating a user ends that user's existing session (401), and the user cannot sign in again until reactivated", async () => {
    const target = await insertUser(server, { level: 1, schoolName: HARBOR });
    const bystander = await insertUser(server, { level: 1, schoolName: HARBOR });
    const targetClient = await signIn(server.url, target.email);
    const bystanderClient = await signIn(server.url, bystander.email);
    expect((await targetClient.get('/api/auth/session')).status).toBe(200);

    expect((await harbor.put('/api/users', { userId: target.id, isActive: false })).status).toBe(200);
    expect((await userById(server, target.id))?.isActive).toBe(false);
    const after = await targetClient.get('/api/auth/session');
    expect(after.status).toBe(401);
    expect(typeof after.body.error).toBe('string');
    expect((await targetClient.get('/api/users')).status).toBe(401);
    expect((await signInFlow(server.url, target.email)).location).toBe('/login?error=inactive');
    // Nobody else's session is touched.
    expect((await bystanderClient.get('/api/auth/session')).status).toBe(200);

    // Reactivating does not revive the ended session, but lets the user sign in anew.
    expect((await harbor.put('/api/users', { userId: target.id, isActive: true })).status).toBe(200);
    expect((await targetClient.get('/api/auth/session')).status).toBe(401);
    expect((await (await signIn(server.url, target.email)).get('/api/auth/session')).status).toBe(200);
  });

  it('a deactivated principal loses access to the users API at once', async () => {
    const principal = await insertUser(server, { level: 4, schoolName: RIVERSIDE });
    const client = await signIn(server.url, principal.email);
    expect((await client.get('/api/users')).status).toBe(200);
    expect((await admin.put('/api/users', { userId: principal.id, isActive: false })).status).toBe(200);
    expect((await client.get('/api/users')).status).toBe(401);
    const attempt = await client.post('/api/users/create', { name: 'Late', email: freshEmail('late'), level: 1, schoolName: RIVERSIDE });
    expect(attempt.status).toBe(401);
  });

  it("reloads the caller's level from the database: a demoted principal is refused (403) on the next call", async () => {
    const principal = await insertUser(server, { level: 4, schoolName: HARBOR });
    const client = await signIn(server.url, principal.email);
    expect((await client.get('/api/users')).status).toBe(200);
    expect((await admin.put('/api/users', { userId: principal.id, level: 3 })).status).toBe(200);
    const target = await insertUser(server, { level: 1, schoolName: HARBOR });
    expect((await client.get('/api/users')).status).toBe(403);
    expect((await client.put('/api/users', { userId: target.id, title: 'Should not change' })).status).toBe(403);
    expect((await userById(server, target.id))?.title).toBeNull();
  });
});

describe('DELETE /api/users', () => {
  it('deletes a user the caller manages (200), whose session then answers 401', async () => {
    const target = await insertUser(server, { level: 1, schoolName: HARBOR });
    const targetClient = await signIn(server.url, target.email);
    const response = await harbor.delete('/api/users', { userId: target.id });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect(await userById(server, target.id)).toBeUndefined();
    expect((await targetClient.get('/api/auth/session')).status).toBe(401);
  });

  it('answers 404 for an unknown id and 400 for a missing or non-hex id', async () => {
    const before = (await allUsers(server)).length;
    const unknown = await admin.delete('/api/users', { userId: 'ffffffffffffffffffffffff' });
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(404);
    expect(unknown.body).toEqual({ error: 'User not found' });
    for (const body of [{}, { userId: 'nope' }, { userId: 42 }, { userId: 'ffffffffffffffffffffffff', extra: 1 }]) {
      const bad = await admin.delete('/api/users', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(typeof bad.body.error).toBe('string');
    }
    expect((await allUsers(server)).length).toBe(before);
  });
});

describe('PUT /api/users/:id/permissions', () => {
  it('sets known flags and merges them with the ones already set', async () => {
    const target = await insertUser(server, { level: 2, schoolName: HARBOR });
    const first = await harbor.put(`/api/users/${target.id}/permissions`, { permissions: { canEditPlans: true } });
    expect(first.status).toBe(200);
    expect(first.body.user.permissions).toEqual({ canEditPlans: true });
    expect((await userById(server, target.id))?.permissions).toEqual({ canEditPlans: true });

    await harbor.put(`/api/users/${target.id}/permissions`, { permissions: { canViewPlans: true, canSharePlans: false } });
    expect((await userById(server, target.id))?.permissions).toEqual({ canEditPlans: true, canViewPlans: true, canSharePlans: false });

    await harbor.put(`/api/users/${target.id}/permissions`, { permissions: { canEditPlans: false, canReceiveTransfers: true } });
    const stored = await userById(server, target.id);
    expect(stored?.permissions).toEqual({ canEditPlans: false, canViewPlans: true, canSharePlans: false, canReceiveTransfers: true });
    // Only the flags changed.
    expect(stored).toMatchObject({ level: 2, schoolName: HARBOR, isActive: true, email: target.email, name: target.name });

    // An empty set changes nothing.
    expect((await harbor.put(`/api/users/${target.id}/permissions`, { permissions: {} })).status).toBe(200);
    expect((await userById(server, target.id))?.permissions).toEqual(stored?.permissions);

    // The listing shows the flags too.
    const listed = (await harbor.get('/api/users?limit=200')).body.users.find((u: { _id: string }) => u._id === target.id);
    expect(listed.permissions).toEqual(stored?.permissions);
  });

  it.each([
    ['an unknown flag', { permissions: { canDeleteDistrict: true } }],
    ['an unknown flag beside a known one', { permissions: { canEditPlans: true, isAdmin: true } }],
    ['level inside the flags', { permissions: { canEditPlans: true, level: 5 } }],
    ['isActive inside the flags', { permissions: { isActive: false } }],
    ['level beside the flags', { permissions: { canEditPlans: true }, level: 5 }],
    ['isActive beside the flags', { permissions: { canEditPlans: true }, isActive: false }],
    ['schoolName beside the flags', { permissions: { canEditPlans: true }, schoolName: RIVERSIDE }],
    ['a non-boolean flag', { permissions: { canEditPlans: 'yes' } }],
    ['permissions that are not an object', { permissions: ['canEditPlans'] }],
    ['no permissions at all', { canEditPlans: true }],
  ])('refuses %s with 400 and changes nothing', async (_label, body) => {
    const target = await insertUser(server, { level: 1, schoolName: RIVERSIDE, permissions: { canViewPlans: true } });
    const response = await riverside.put(`/api/users/${target.id}/permissions`, body);
    expect(response.status).toBe(400);
    expect(typeof response.body.error).toBe('string');
    expect(await userById(server, target.id)).toEqual(target);
  });

  it('refuses a __proto__ key (no prototype tricks) with 400 and changes nothing', async () => {
    const target = await insertUser(server, { level: 1, schoolName: RIVERSIDE });
    const raw = `{"permissions":{"canEditPlans":true,"__proto__":{"level":5,"isActive":false}}}`;
    const response = await riverside.request('PUT', `/api/users/${target.id}/permissions`, { body: raw, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(await userById(server, target.id)).toEqual(target);
  });

  it('answers 404 for an unknown or non-hex id in the path', async () => {
    for (const id of ['ffffffffffffffffffffffff', 'not-an-id', 'FFFFFFFFFFFFFFFFFFFFFFFF']) {
      const response = await admin.put(`/api/users/${id}/permissions`, { permissions: { canEditPlans: true } });
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual({ error: 'User not found' });
    }
  });
});

describe('role preview', () => {
  it('a Super Admin previewing the demo principal is scoped like that principal, and back again after stopping', async () => {
    const client = await signIn(server.url, 'superadmin@example.org');
    const demo = await findUserByEmail(server, 'demo.principal@example.org');
    expect((await client.post('/api/auth/preview', { userId: demo!.id })).status).toBe(200);

    const listing = await client.get('/api/users?limit=200');
    expect(listing.status).toBe(200);
    expect(listing.body.users.length).toBeGreaterThan(0);
    for (const user of listing.body.users) {
      expect(user.schoolName).toBe(HARBOR);
      expect(user.level).toBeLessThan(5);
    }
    const email = freshEmail('preview');
    expect((await client.post('/api/users/create', { name: 'Via Preview', email, level: 4, schoolName: HARBOR })).status).toBe(403);
    expect((await client.get('/api/users/audit-logs')).status).toBe(403);
    expect(await findUserByEmail(server, email)).toBeUndefined();

    expect((await client.delete('/api/auth/preview')).status).toBe(200);
    const full = await client.get('/api/users?limit=200');
    expect(full.body.total).toBe((await allUsers(server)).length);
  });
});
