/**
 * POST /api/users/bulk (per-id results) and POST /api/users/bulk-import (per-row results), with
 * every outcome read back from the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn, signInAll } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';

import { DISTRICT, HARBOR, RIVERSIDE } from '../../testing/demoNames.ts';
import { allUsers, findUserByEmail, freshEmail, insertUser, userById } from '../../testing/users.ts';
import type { UserRow } from '../../storage/rows.ts';

let server: TestServer;
let admin: HttpClient;
let adminRow: UserRow;
let harbor: HttpClient;
let harborRow: UserRow;
let riverside: HttpClient;

beforeAll(async () => {
  server = await startTestServer();
  [admin, harbor, riverside] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org', 'principal.riverside@example.org']);
  adminRow = (await findUserByEmail(server, 'superadmin@example.org'))!;
  harborRow = (await findUserByEmail(server, 'principal.harbor@example.org'))!;
});
afterAll(() => server?.stop());

interface BulkResult {
  userId: string;
  success: boolean;
  error?: string;
  level?: number;
}

/** The per-id result for one user. */
function resultFor(results: BulkResult[], id: string): BulkResult {
  const found = results.filter((r) => r.userId === id);
  expect(found, `one result for ${id}`).toHaveLength(1);
  return found[0]!;
}

const UNKNOWN_ID = 'abcdefabcdefabcdefabcdef';

describe('POST /api/users/bulk', () => {
  it('activate: sets isActive true on the permitted ids only', async () => {
    const l1 = await insertUser(server, { level: 1, schoolName: HARBOR, isActive: false });
    const l3 = await insertUser(server, { level: 3, schoolName: HARBOR, isActive: false });
    const otherSchool = await insertUser(server, { level: 1, schoolName: RIVERSIDE, isActive: false });
    const samelevel = await insertUser(server, { level: 4, schoolName: HARBOR, isActive: false });
    const { status, body } = await harbor.post('/api/users/bulk', { userIds: [l1.id, l3.id, otherSchool.id, samelevel.id], action: 'activate' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, action: 'activate', applied: 2 });
    expect(resultFor(body.results, l1.id).success).toBe(true);
    expect(resultFor(body.results, l3.id).success).toBe(true);
    expect(resultFor(body.results, otherSchool.id)).toMatchObject({ success: false, error: 'Access denied' });
    expect(resultFor(body.results, samelevel.id)).toMatchObject({ success: false, error: 'Access denied' });
    expect((await userById(server, l1.id))?.isActive).toBe(true);
    expect((await userById(server, l3.id))?.isActive).toBe(true);
    expect(await userById(server, otherSchool.id)).toEqual(otherSchool);
    expect(await userById(server, samelevel.id)).toEqual(samelevel);
    // The activated user can sign in now.
    expect((await (await signIn(server.url, l1.email)).get('/api/auth/session')).status).toBe(200);
  });

  it("deactivate: sets isActive false, and the users' existing sessions answer 401 at once", async () => {
    const a = await insertUser(server, { level: 1, schoolName: HARBOR });
    const b = await insertUser(server, { level: 2, schoolName: HARBOR });
    const bystander = await insertUser(server, { level: 1, schoolName: HARBOR });
    const [aClient, bClient, bystanderClient] = await Promise.all([a, b, bystander].map((u) => signIn(server.url, u.email)));
    for (const client of [aClient!, bClient!]) expect((await client.get('/api/auth/session')).status).toBe(200);

    const { status, body } = await harbor.post('/api/users/bulk', { userIds: [a.id, b.id], action: 'deactivate' });
    expect(status).toBe(200);
    expect(body.applied).toBe(2);
    expect(body.results.map((r: BulkResult) => r.success)).toEqual([true, true]);
    expect((await userById(server, a.id))?.isActive).toBe(false);
    expect((await userById(server, b.id))?.isActive).toBe(false);
    for (const client of [aClient!, bClient!]) {
      const session = await client.get('/api/auth/session');
      expect(session.status).toBe(401);
      expect(typeof session.body.error).toBe('string');
    }
    expect((await bystanderClient!.get('/api/auth/session')).status).toBe(200);
  });

  it('delete: removes the permitted users only; their sessions end', async () => {
    const l1 = await insertUser(server, { level: 1, schoolName: HARBOR });
    const l4 = await insertUser(server, { level: 4, schoolName: RIVERSIDE });
    const otherAdmin = await insertUser(server, { level: 5, schoolName: DISTRICT });
    const l1Client = await signIn(server.url, l1.email);
    const { status, body } = await admin.post('/api/users/bulk', { userIds: [l1.id, l4.id, otherAdmin.id, adminRow.id, UNKNOWN_ID], action: 'delete' });
    expect(status).toBe(200);
    expect(body.applied).toBe(2);
    expect(resultFor(body.results, l1.id).success).toBe(true);
    expect(resultFor(body.results, l4.id).success).toBe(true);
    expect(resultFor(body.results, otherAdmin.id)).toMatchObject({ success: false, error: 'Access denied' });
    expect(resultFor(body.results, adminRow.id)).toMatchObject({ success: false });
    expect(resultFor(body.results, UNKNOWN_ID)).toMatchObject({ success: false, error: 'User not found' });
    expect(await userById(server, l1.id)).toBeUndefined();
    expect(await userById(server, l4.id)).toBeUndefined();
    expect(await userById(server, otherAdmin.id)).toEqual(otherAdmin);
    expect(await userById(server, adminRow.id)).toEqual(adminRow);
    expect((await l1Client.get('/api/auth/session')).status).toBe(401);
    // The Super Admin still works.
    expect((await admin.get('/api/auth/session')).status).toBe(200);
  });

  it('level_up (Super Admin): increments, up to 5 at most; a level-5 user is then out of reach', async () => {
    const l1 = await insertUser(server, { level: 1, schoolName: HARBOR });
    const l3 = await insertUser(server, { level: 3, schoolName: RIVERSIDE });
    const l4 = await insertUser(server, { level: 4, schoolName: RIVERSIDE });
    const up = await admin.post('/api/users/bulk', { userIds: [l1.id, l3.id, l4.id], action: 'level_up' });
    expect(up.status).toBe(200);
    expect(up.body.applied).toBe(3);
    expect(resultFor(up.body.results, l1.id)).toMatchObject({ success: true, level: 2 });
    expect(resultFor(up.body.results, l3.id)).toMatchObject({ success: true, level: 4 });
    expect(resultFor(up.body.results, l4.id)).toMatchObject({ success: true, level: 5 });
    expect((await userById(server, l1.id))?.level).toBe(2);
    expect((await userById(server, l3.id))?.level).toBe(4);
    expect((await userById(server, l4.id))?.level).toBe(5);

    // Capped: the new level-5 user is not raised any further (and is no longer below the caller).
    const again = await admin.post('/api/users/bulk', { userIds: [l4.id, l3.id], action: 'level_up' });
    expect(again.status).toBe(200);
    expect(resultFor(again.body.results, l4.id).success).toBe(false);
    expect(resultFor(again.body.results, l3.id)).toMatchObject({ success: true, level: 5 });
    expect((await userById(server, l4.id))?.level).toBe(5);
    expect((await userById(server, l3.id))?.level).toBe(5);
  });

  it('level_up (principal): promotes within 1 to 3, never to 4', async () => {
    const l2 = await insertUser(server, { level: 2, schoolName: HARBOR });
    const l3 = await insertUser(server, { level: 3, schoolName: HARBOR });
    const { status, body } = await harbor.post('/api/users/bulk', { userIds: [l2.id, l3.id], action: 'level_up' });
    expect(status).toBe(200);
    expect(body.applied).toBe(1);
    expect(resultFor(body.results, l2.id)).toMatchObject({ success: true, level: 3 });
    const refused = resultFor(body.results, l3.id);
    expect(refused.success).toBe(false);
    expect(refused.error).toMatch(/level 4/);
    expect((await userById(server, l2.id))?.level).toBe(3);
    expect(await userById(server, l3.id)).toEqual(l3);
  });

  it('level_down: decrements, and stays at 1 at the bottom', async () => {
    const l1 = await insertUser(server, { level: 1, schoolName: HARBOR });
    const l2 = await insertUser(server, { level: 2, schoolName: HARBOR });
    const l4 = await insertUser(server, { level: 4, schoolName: HARBOR });
    const byAdmin = await admin.post('/api/users/bulk', { userIds: [l1.id, l2.id, l4.id], action: 'level_down' });
    expect(byAdmin.status).toBe(200);
    expect(resultFor(byAdmin.body.results, l1.id)).toMatchObject({ success: true, level: 1 });
    expect(resultFor(byAdmin.body.results, l2.id)).toMatchObject({ success: true, level: 1 });
    expect(resultFor(byAdmin.body.results, l4.id)).toMatchObject({ success: true, level: 3 });
    expect((await userById(server, l1.id))?.level).toBe(1);
    expect((await userById(server, l2.id))?.level).toBe(1);
    expect((await userById(server, l4.id))?.level).toBe(3);

    const otherSchool = await insertUser(server, { level: 3, schoolName: RIVERSIDE });
    const byPrincipal = await harbor.post('/api/users/bulk', { userIds: [l4.id, l1.id, otherSchool.id], action: 'level_down' });
    expect(byPrincipal.status).toBe(200);
    expect(byPrincipal.body.applied).toBe(2);
    expect(resultFor(byPrincipal.body.results, l4.id)).toMatchObject({ success: true, level: 2 });
    expect(resultFor(byPrincipal.body.results, l1.id)).toMatchObject({ success: true, level: 1 });
    expect(resultFor(byPrincipal.body.results, otherSchool.id)).toMatchObject({ success: false, error: 'Access denied' });
    expect((await userById(server, l4.id))?.level).toBe(2);
    expect((await userById(server, l1.id))?.level).toBe(1);
    expect(await userById(server, otherSchool.id)).toEqual(otherSchool);
  });

  it('refuses self, equal or higher levels and other schools per id, while applying the permitted ones', async () => {
    const permitted = await insertUser(server, { level: 1, schoolName: HARBOR });
    const permitted2 = await insertUser(server, { level: 3, schoolName: HARBOR });
    const peer = await insertUser(server, { level: 4, schoolName: HARBOR });
    const otherSchool = await insertUser(server, { level: 1, schoolName: RIVERSIDE });
    const superAdmin = await insertUser(server, { level: 5, schoolName: HARBOR });
    const ids = [harborRow.id, permitted.id, peer.id, otherSchool.id, superAdmin.id, UNKNOWN_ID, permitted2.id, permitted.id];
    const { status, body } = await harbor.post('/api/users/bulk', { userIds: ids, action: 'deactivate' });
    expect(status).toBe(200);
    // One result per distinct id.
    expect(body.results).toHaveLength(7);
    expect(body.applied).toBe(2);
    expect(resultFor(body.results, harborRow.id)).toMatchObject({ success: false });
    expect(resultFor(body.results, harborRow.id).error).toMatch(/own account/);
    expect(resultFor(body.results, permitted.id).success).toBe(true);
    expect(resultFor(body.results, permitted2.id).success).toBe(true);
    expect(resultFor(body.results, peer.id)).toMatchObject({ success: false, error: 'Access denied' });
    expect(resultFor(body.results, otherSchool.id)).toMatchObject({ success: false, error: 'Access denied' });
    expect(resultFor(body.results, superAdmin.id)).toMatchObject({ success: false, error: 'Access denied' });
    expect(resultFor(body.results, UNKNOWN_ID)).toMatchObject({ success: false, error: 'User not found' });

    expect((await userById(server, permitted.id))?.isActive).toBe(false);
    expect((await userById(server, permitted2.id))?.isActive).toBe(false);
    for (const untouched of [peer, otherSchool, superAdmin]) expect(await userById(server, untouched.id)).toEqual(untouched);
    expect((await userById(server, harborRow.id))?.isActive).toBe(true);
    expect((await harbor.get('/api/auth/session')).status).toBe(200);
  });

  it('answers 400 for bad bodies, applying nothing', async () => {
    const target = await insertUser(server, { level: 1, schoolName: RIVERSIDE });
    const bodies: unknown[] = [
      { userIds: [target.id], action: 'promote' },
      { userIds: [target.id] },
      { userIds: [], action: 'deactivate' },
      { userIds: target.id, action: 'deactivate' },
      { userIds: [target.id, 'not-a-hex-id'], action: 'deactivate' },
      { userIds: [target.id], action: 'deactivate', level: 5 },
    ];
    for (const body of bodies) {
      const response = await riverside.post('/api/users/bulk', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect(await userById(server, target.id)).toEqual(target);
  });
});

describe('POST /api/users/bulk-import', () => {
  it('reports every row: created, updated, and errors (invalid rows create nothing)', async () => {
    const newEmail = freshEmail('import.new');
    const mixedEmail = freshEmail('import.mixed');
    const invalidEmails = [freshEmail('bad.level'), freshEmail('no.name'), freshEmail('smuggle'), freshEmail('smuggle2')];
    const existing = await insertUser(server, { level: 1, schoolName: HARBOR, title: 'Teacher', permissions: { canViewPlans: true } });
    const existingBad = await insertUser(server, { level: 2, schoolName: HARBOR });
    const otherAdmin = await insertUser(server, { level: 5, schoolName: DISTRICT });
    const rows: unknown[] = [
      /* 0 */ { name: 'New Person', email: newEmail, level: 2, schoolName: RIVERSIDE, title: 'Coordinator' },
      /* 1 */ { name: 'Renamed Teacher', email: existing.email.toUpperCase(), level: 3, schoolName: RIVERSIDE },
      /* 2 */ { name: 'Bad Level', email: invalidEmails[0], level: 6, schoolName: HARBOR },
      /* 3 */ { name: 'Bad Mail', email: 'not-an-email', level: 1, schoolName: HARBOR },
      /* 4 */ { email: invalidEmails[1], level: 1, schoolName: HARBOR },
      /* 5 */ { name: 'Smuggler', email: invalidEmails[2], level: 1, schoolName: HARBOR, isActive: false },
      /* 6 */ { name: 'Duplicate', email: newEmail.toUpperCase(), level: 1, schoolName: HARBOR },
      /* 7 */ { name: 'Me', email: 'superadmin@example.org', level: 1, schoolName: HARBOR },
      /* 8 */ { name: 'Peer', email: otherAdmin.email, level: 1, schoolName: HARBOR },
      /* 9 */ 'just a string',
      /* 10 */ { name: 'Existing But Bad', email: existingBad.email, level: 9, schoolName: HARBOR },
      /* 11 */ {
        name: 'Mixed Case',
        email: `  ${mixedEmail.replace('import', 'IMPORT').replace('example.org', 'Example.ORG')}  `,
        level: 1,
        schoolName: HARBOR,
      },
      /* 12 */ { name: 'Smuggler Two', email: invalidEmails[3], level: 1, schoolName: HARBOR, permissions: { canEditPlans: true } },
    ];
    const before = (await allUsers(server)).length;
    const { status, body } = await admin.post('/api/users/bulk-import', { users: rows });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, created: 2, updated: 1, errors: 10 });
    expect(body.results).toHaveLength(rows.length);
    expect(body.results.map((r: { row: number }) => r.row)).toEqual(rows.map((_, i) => i));
    const statusOf = (row: number) => body.results[row].status;
    expect(statusOf(0)).toBe('created');
    expect(statusOf(1)).toBe('updated');
    expect(statusOf(11)).toBe('created');
    for (const row of [2, 3, 4, 5, 6, 7, 8, 9, 10, 12]) {
      expect(statusOf(row), `row ${row}`).toBe('error');
      expect(typeof body.results[row].error, `row ${row}`).toBe('string');
    }
    expect(body.results[0].email).toBe(newEmail);
    expect(body.results[6]).toMatchObject({ email: newEmail, status: 'error' });
    expect(body.results[6].error).toMatch(/duplicate/i);
    expect(body.results[7].error).toBe('Access denied');
    expect(body.results[8].error).toBe('Access denied');
    expect(body.results[11].email).toBe(mixedEmail);

    // Exactly the two created rows were added.
    expect((await allUsers(server)).length).toBe(before + 2);
    expect(await findUserByEmail(server, newEmail)).toMatchObject({
      name: 'New Person',
      level: 2,
      schoolName: RIVERSIDE,
      title: 'Coordinator',
      isActive: true,
    });
    expect(await findUserByEmail(server, mixedEmail)).toMatchObject({ name: 'Mixed Case', level: 1, schoolName: HARBOR });
    // Updated: name, level, school changed; the title (not sent), flags and activity kept.
    expect(await userById(server, existing.id)).toMatchObject({
      email: existing.email,
      name: 'Renamed Teacher',
      level: 3,
      schoolName: RIVERSIDE,
      title: 'Teacher',
      isActive: true,
      permissions: { canViewPlans: true },
    });
    // Invalid rows created nothing and changed nothing.
    for (const email of invalidEmails) expect(await findUserByEmail(server, email), email).toBeUndefined();
    expect(await userById(server, existingBad.id)).toEqual(existingBad);
    expect(await userById(server, otherAdmin.id)).toEqual(otherAdmin);
    expect(await userById(server, adminRow.id)).toEqual(adminRow);
  });

  it('imports the same rows again as updates (no duplicates)', async () => {
    const email = freshEmail('reimport');
    const row = { name: 'Repeat', email, level: 1, schoolName: HARBOR };
    const first = await admin.post('/api/users/bulk-import', { users: [row] });
    expect(first.body.results).toEqual([{ row: 0, email, status: 'created' }]);
    const second = await admin.post('/api/users/bulk-import', { users: [{ ...row, email: email.toUpperCase(), level: 2 }] });
    expect(second.status).toBe(200);
    expect(second.body.results).toEqual([{ row: 0, email, status: 'updated' }]);
    expect((await allUsers(server)).filter((u) => u.email === email)).toHaveLength(1);
    expect((await findUserByEmail(server, email))?.level).toBe(2);
  });

  it('answers 400 for a body that is not { users: [...] }', async () => {
    const secondAdmin = await insertUser(server, { level: 5, schoolName: DISTRICT });
    const client = await signIn(server.url, secondAdmin.email);
    const before = (await allUsers(server)).length;
    const email = freshEmail('import.badbody');
    for (const body of [{}, { users: [] }, { users: 'x' }, { users: [{ name: 'X', email, level: 1, schoolName: HARBOR }], dryRun: true }]) {
      const response = await client.post('/api/users/bulk-import', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect((await allUsers(server)).length).toBe(before);
  });

  it('is for the Super Admin only: a principal gets 403 and nothing is created', async () => {
    const email = freshEmail('import.principal');
    const response = await harbor.post('/api/users/bulk-import', { users: [{ name: 'Via Principal', email, level: 1, schoolName: HARBOR }] });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'Access denied' });
    expect(await findUserByEmail(server, email)).toBeUndefined();
  });
});
