/**
 * What the Users admin page asks of the server. The list's filters (level, active, never signed
 * in, sort) and the schools list: each filter is checked against the database, a principal's
 * filters only narrow the own school, and every bad value is a 400 naming the parameter. And
 * GET /api/users/:id/audit, one user's History: the changes to that user alone and the bulk
 * actions and imports that touched the user among others, nothing about other users.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, isNotNull, isNull, lt, type SQL } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { users } from '../../storage/schema.ts';
import { DISTRICT, HARBOR, RIVERSIDE } from '../../testing/demoNames.ts';
import { findUserByEmail, freshEmail, insertUser } from '../../testing/users.ts';

let server: TestServer;
let admin: HttpClient;
let harbor: HttpClient;

beforeAll(async () => {
  server = await startTestServer();
  [admin, harbor] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org']);
  // Rows enough to tell the filters apart at both schools.
  await insertUser(server, { level: 1, schoolName: HARBOR, isActive: false, email: freshEmail('off.harbor') });
  await insertUser(server, { level: 2, schoolName: RIVERSIDE, isActive: false, email: freshEmail('off.riverside') });
  await insertUser(server, { level: 5, schoolName: HARBOR, email: freshEmail('harbor.admin') });
});
afterAll(() => server?.stop());

const emailsOf = (list: { email: string }[]) => list.map((u) => u.email).sort();

async function expected(...where: SQL[]): Promise<string[]> {
  const rows = await server.services.storage.db
    .select({ email: users.email })
    .from(users)
    .where(where.length ? and(...where) : undefined);
  return rows.map((row) => row.email).sort();
}

/** Every page of a listing, so the comparison never depends on the page size. */
async function everyone(client: HttpClient, query: string): Promise<{ email: string; level: number; schoolName: string; isActive: boolean }[]> {
  const all = [];
  for (let page = 1; ; page++) {
    const { status, body } = await client.get(`/api/users?limit=200&page=${page}${query ? `&${query}` : ''}`);
    expect(status, query).toBe(200);
    all.push(...body.users);
    if (all.length >= body.total || body.users.length === 0) return all;
  }
}

describe('GET /api/users filters (Super Admin)', () => {
  it.each([1, 2, 3, 4, 5])('level=%i lists exactly the users at that level', async (level) => {
    const listed = await everyone(admin, `level=${level}`);
    expect(listed.length).toBeGreaterThan(0);
    expect(emailsOf(listed)).toEqual(await expected(eq(users.level, level)));
  });

  it('active=false lists only deactivated users, active=true only active ones', async () => {
    const off = await everyone(admin, 'active=false');
    expect(emailsOf(off)).toContain('inactive.harbor@example.org');
    expect(emailsOf(off)).toEqual(await expected(eq(users.isActive, false)));
    const on = await everyone(admin, 'active=true');
    expect(emailsOf(on)).toEqual(await expected(eq(users.isActive, true)));
  });

  it('a completed sign-in is recorded: neverSignedIn=true lists who has not, false who has', async () => {
    const principal = await findUserByEmail(server, 'principal.harbor@example.org');
    expect(principal?.lastSignedInAt).toBeInstanceOf(Date);
    const never = await everyone(admin, 'neverSignedIn=true');
    expect(emailsOf(never)).toContain('teacher.harbor@example.org');
    expect(emailsOf(never)).not.toContain('principal.harbor@example.org');
    expect(emailsOf(never)).toEqual(await expected(isNull(users.lastSignedInAt)));
    const have = await everyone(admin, 'neverSignedIn=false');
    expect(emailsOf(have)).toEqual(expect.arrayContaining(['principal.harbor@example.org', 'superadmin@example.org']));
    expect(emailsOf(have)).not.toContain('teacher.harbor@example.org');
    expect(emailsOf(have)).toEqual(await expected(isNotNull(users.lastSignedInAt)));
    const { body } = await admin.get('/api/users?q=principal.harbor@');
    expect(body.users[0].lastSignedInAt).toBe(principal!.lastSignedInAt!.toISOString());
  });

  it('combines filters with the school and search filters', async () => {
    const listed = await everyone(admin, `schoolName=${encodeURIComponent(RIVERSIDE)}&active=false&level=2&q=off.riverside`);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ schoolName: RIVERSIDE, level: 2, isActive: false });
  });

  it('sorts by a column in either order, and pages of a sorted list never overlap', async () => {
    const { body: down } = await admin.get('/api/users?limit=200&sort=level&order=desc');
    const levels = down.users.map((u: { level: number }) => u.level);
    expect(levels).toEqual([...levels].sort((a, b) => b - a));
    expect(levels[0]).toBe(5);
    const { body: up } = await admin.get('/api/users?limit=200&sort=level');
    expect(up.users[0].level).toBe(1);
    const [first, second, both] = await Promise.all([
      admin.get('/api/users?limit=4&page=1&sort=isActive'),
      admin.get('/api/users?limit=4&page=2&sort=isActive'),
      admin.get('/api/users?limit=8&page=1&sort=isActive'),
    ]);
    const ids = (list: { _id: string }[]) => list.map((u) => u._id);
    expect([...ids(first.body.users), ...ids(second.body.users)]).toEqual(ids(both.body.users));
  });

  it('lists the schools to filter by', async () => {
    const { status, body } = await admin.get('/api/users/schools');
    expect(status).toBe(200);
    expect(body.schools).toEqual(expect.arrayContaining([HARBOR, RIVERSIDE, DISTRICT]));
    expect(body.schools).toEqual([...new Set(body.schools)]);
  });
});

describe('GET /api/users filters (principal): they only narrow the own school', () => {
  it.each([
    ['level=5', 0],
    ['level=4', null],
    [`schoolName=${encodeURIComponent(RIVERSIDE)}&level=2`, 0],
    [`schoolName=${encodeURIComponent(RIVERSIDE)}&active=false`, 0],
    ['active=false', null],
    ['neverSignedIn=true', null],
    ['neverSignedIn=false', null],
  ] as const)('%s', async (query, count) => {
    const listed = await everyone(harbor, query);
    for (const user of listed) {
      expect(user.schoolName).toBe(HARBOR);
      expect(user.level).toBeLessThan(5);
    }
    if (count !== null) expect(listed).toHaveLength(count);
    else expect(listed.length).toBeGreaterThan(0);
  });

  it('active=false at the own school is exactly the own school’s deactivated users', async () => {
    const listed = await everyone(harbor, 'active=false');
    expect(emailsOf(listed)).toEqual(await expected(eq(users.schoolName, HARBOR), lt(users.level, 5), eq(users.isActive, false)));
  });

  it('lists only the own school to filter by', async () => {
    const { status, body } = await harbor.get('/api/users/schools');
    expect(status).toBe(200);
    expect(body.schools).toEqual([HARBOR]);
  });
});

describe('bad filter values', () => {
  it.each([
    ['level=6', 'level'],
    ['level=0', 'level'],
    ['level=abc', 'level'],
    ['level=1.5', 'level'],
    ['active=yes', 'active'],
    ['neverSignedIn=1', 'neverSignedIn'],
    ['sort=password', 'sort'],
    ['sort=name&order=up', 'order'],
  ])('%s is 400 naming the parameter', async (query, name) => {
    const { status, body } = await admin.get(`/api/users?${query}`);
    expect(status).toBe(400);
    expect(body.error).toMatch(new RegExp(`^Invalid request: ${name}: `));
  });

  it('a teacher may not list users or schools', async () => {
    const [teacher] = await signInAll(server.url, ['teacher.riverside@example.org']);
    expect((await teacher.get('/api/users?level=1')).status).toBe(403);
    expect((await teacher.get('/api/users/schools')).status).toBe(403);
  });
});

const actions = (logs: { action: string }[]) => logs.map((log) => log.action);

describe('GET /api/users/:id/audit', () => {
  it('lists the user’s own changes, bulk actions and imports that touched the user, newest first, and not other users’', async () => {
    const target = await insertUser(server, { level: 1, schoolName: HARBOR });
    const other = await insertUser(server, { level: 1, schoolName: HARBOR });
    expect((await harbor.put('/api/users', { userId: target.id, title: 'Coach' })).status).toBe(200);
    expect((await harbor.post('/api/users/bulk', { userIds: [target.id, other.id], action: 'deactivate' })).status).toBe(200);
    expect((await admin.post('/api/users/bulk-import', { users: [{ name: 'Renamed', email: target.email, level: 2, schoolName: HARBOR }] })).status).toBe(200);
    expect((await harbor.put('/api/users', { userId: other.id, title: 'Other' })).status).toBe(200);

    const { status, body } = await admin.get(`/api/users/${target.id}/audit`);
    expect(status).toBe(200);
    expect(actions(body.logs)).toEqual(['user.import', 'user.bulk.deactivate', 'user.update']);
    expect(body).toMatchObject({ total: 3, page: 1, limit: 50 });
    const otherTrail = await admin.get(`/api/users/${other.id}/audit`);
    expect(actions(otherTrail.body.logs)).toEqual(['user.update', 'user.bulk.deactivate']);
  });

  it('includes bulk actions that refused the user, and pages', async () => {
    const target = await insertUser(server, { level: 3, schoolName: HARBOR });
    // A principal cannot promote to 4: refused, and still part of this user's trail.
    expect((await harbor.post('/api/users/bulk', { userIds: [target.id], action: 'level_up' })).status).toBe(200);
    expect((await harbor.post('/api/users/bulk', { userIds: [target.id], action: 'level_down' })).status).toBe(200);
    const first = await admin.get(`/api/users/${target.id}/audit?limit=1`);
    expect(actions(first.body.logs)).toEqual(['user.bulk.level_down']);
    expect(first.body.total).toBe(2);
    const second = await admin.get(`/api/users/${target.id}/audit?limit=1&page=2`);
    expect(actions(second.body.logs)).toEqual(['user.bulk.level_up']);
    expect(second.body.logs[0].summary.refused).toEqual([{ userId: target.id, error: 'You cannot promote to level 4' }]);
  });

  it('is for Super Admins; a bad id is 404 and bad paging 400', async () => {
    const target = await insertUser(server, { level: 1, schoolName: HARBOR });
    expect((await harbor.get(`/api/users/${target.id}/audit`)).status).toBe(403);
    expect((await admin.get('/api/users/not-an-id/audit')).status).toBe(404);
    const bad = await admin.get(`/api/users/${target.id}/audit?limit=500`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^Invalid request: limit: /);
  });
});
