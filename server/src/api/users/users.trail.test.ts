/**
 * GET /api/users/:id/audit: one user's trail, for the Users page's History. It holds the changes
 * to that user alone and the bulk actions and imports that touched the user among others, and
 * nothing about other users.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { HARBOR } from '../../testing/demoNames.ts';
import { insertUser } from '../../testing/users.ts';

let server: TestServer;
let admin: HttpClient;
let harbor: HttpClient;

beforeAll(async () => {
  server = await startTestServer();
  [admin, harbor] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org']);
});
afterAll(() => server?.stop());

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
