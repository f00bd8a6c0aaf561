/**
 * The audit log of the Users API: every user mutation writes one record (actor, action, target,
 * before/after summary, client address); GET /api/users/audit-logs filters it, newest first, and
 * is for the Super Admin only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn, signInAll } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';

import { HARBOR, RIVERSIDE } from '../../testing/demoNames.ts';
import { auditRecords } from '../../testing/audit.ts';
import { findUserByEmail, freshEmail, insertUser } from '../../testing/users.ts';
import type { UserRow } from '../../storage/rows.ts';

let server: TestServer;
let admin: HttpClient;
let adminRow: UserRow;
let harbor: HttpClient;
let harborRow: UserRow;

beforeAll(async () => {
  server = await startTestServer();
  [admin, harbor] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org']);
  adminRow = (await findUserByEmail(server, 'superadmin@example.org'))!;
  harborRow = (await findUserByEmail(server, 'principal.harbor@example.org'))!;
});
afterAll(() => server?.stop());

interface AuditLog {
  _id: string;
  actorId: string | null;
  actorEmail: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  summary: Record<string, any>;
  ip: string | null;
  createdAt: string;
}

/** The audit records matching a query, read through the API as the Super Admin. */
async function logs(query: Record<string, string> = {}): Promise<{ logs: AuditLog[]; total: number }> {
  const response = await admin.get(`/api/users/audit-logs?${new URLSearchParams(query)}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** Runs one request and returns the audit records it wrote (read from the table). */
async function recordsWrittenBy(run: () => Promise<unknown>) {
  const before = new Set((await auditRecords(server)).map((r) => r.id));
  await run();
  return (await auditRecords(server)).filter((r) => !before.has(r.id));
}

/** The addresses of a client's X-Forwarded-For: the server records one of them. */
const forwardedAddresses = (forwardedFor: string) => forwardedFor.split(',').map((part) => part.trim());

function expectActor(log: AuditLog, client: HttpClient, actor: UserRow) {
  expect(log.actorId).toBe(actor.id);
  expect(log.actorEmail).toBe(actor.email);
  expect(forwardedAddresses(client.forwardedFor)).toContain(log.ip);
  expect(Number.isNaN(Date.parse(log.createdAt))).toBe(false);
}

describe('every user mutation writes an audit record', () => {
  it('create: actor, action user.create, the new user as target, the created values, the client address', async () => {
    const email = freshEmail('audit.create');
    let created!: { _id: string };
    const written = await recordsWrittenBy(async () => {
      const response = await admin.post('/api/users/create', { name: 'Audited', email, level: 2, schoolName: HARBOR });
      // (the status itself is the create tests' business)
      expect(response.body.success, JSON.stringify(response.body)).toBe(true);
      created = response.body.user;
    });
    expect(written).toHaveLength(1);
    const [log] = (await logs({ targetId: created._id })).logs;
    expect(log).toMatchObject({
      action: 'user.create',
      targetType: 'user',
      targetId: created._id,
      summary: { after: { email, level: 2, schoolName: HARBOR, isActive: true } },
    });
    expectActor(log!, admin, adminRow);
  });

  it('update: the changed fields before and after', async () => {
    const target = await insertUser(server, { level: 1, schoolName: HARBOR, title: 'Teacher' });
    const written = await recordsWrittenBy(async () => {
      expect((await harbor.put('/api/users', { userId: target.id, level: 2, title: 'Coordinator', isActive: false })).status).toBe(200);
    });
    expect(written).toHaveLength(1);
    const [log] = (await logs({ targetId: target.id })).logs;
    expect(log).toMatchObject({
      action: 'user.update',
      targetType: 'user',
      targetId: target.id,
      summary: { email: target.email, before: { level: 1, title: 'Teacher', isActive: true }, after: { level: 2, title: 'Coordinator', isActive: false } },
    });
    expectActor(log!, harbor, harborRow);
  });

  it('delete: the deleted user as it was', async () => {
    const target = await insertUser(server, { level: 3, schoolName: RIVERSIDE });
    const written = await recordsWrittenBy(async () => {
      const response = await admin.delete('/api/users', { userId: target.id });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    });
    expect(written).toHaveLength(1);
    const [log] = (await logs({ targetId: target.id })).logs;
    expect(log).toMatchObject({
      action: 'user.delete',
      targetType: 'user',
      targetId: target.id,
      summary: { before: { email: target.email, level: 3, schoolName: RIVERSIDE } },
    });
    expectActor(log!, admin, adminRow);
  });

  it('permissions: the flags before and after', async () => {
    const target = await insertUser(server, { level: 1, schoolName: HARBOR, permissions: { canViewPlans: true } });
    const written = await recordsWrittenBy(async () => {
      expect((await harbor.put(`/api/users/${target.id}/permissions`, { permissions: { canEditPlans: true } })).status).toBe(200);
    });
    expect(written).toHaveLength(1);
    const [log] = (await logs({ targetId: target.id })).logs;
    expect(log).toMatchObject({
      action: 'user.permissions',
      targetType: 'user',
      targetId: target.id,
      summary: { before: { canViewPlans: true }, after: { canViewPlans: true, canEditPlans: true } },
    });
    expectActor(log!, harbor, harborRow);
  });

  it('bulk: the action and the ids applied and refused', async () => {
    const applied = await insertUser(server, { level: 1, schoolName: HARBOR });
    const refused = await insertUser(server, { level: 1, schoolName: RIVERSIDE });
    const written = await recordsWrittenBy(async () => {
      expect((await harbor.post('/api/users/bulk', { userIds: [applied.id, refused.id], action: 'level_up' })).status).toBe(200);
    });
    expect(written.length).toBeGreaterThanOrEqual(1);
    const [log] = (await logs({ action: 'user.bulk.level_up' })).logs;
    expect(written.map((r) => r.id)).toContain(log!._id);
    expect(log).toMatchObject({ action: 'user.bulk.level_up', targetType: 'user' });
    expect(log!.summary.changes).toEqual([
      { userId: applied.id, email: applied.email, before: { level: 1, isActive: true }, after: { level: 2, isActive: true } },
    ]);
    expect(log!.summary.refused).toEqual([{ userId: refused.id, error: 'Access denied' }]);
    expectActor(log!, harbor, harborRow);
  });

  it('bulk delete: the records still say who was deleted (the ids alone name no one afterwards)', async () => {
    const target = await insertUser(server, { level: 1, schoolName: HARBOR });
    const written = await recordsWrittenBy(async () => {
      expect((await admin.post('/api/users/bulk', { userIds: [target.id], action: 'delete' })).status).toBe(200);
    });
    expect(written.length).toBeGreaterThanOrEqual(1);
    const mentions = written.filter((r) => r.targetId === target.id || JSON.stringify(r.summary).includes(target.id));
    expect(mentions.length).toBeGreaterThanOrEqual(1);
    // Before/after summary: the deleted user's e-mail must be kept, as DELETE /api/users keeps it.
    expect(
      mentions.some((r) => JSON.stringify(r.summary).includes(target.email)),
      JSON.stringify(mentions.map((r) => r.summary)),
    ).toBe(true);
  });

  it('bulk import: the counts of the import', async () => {
    const existing = await insertUser(server, { level: 1, schoolName: HARBOR });
    const email = freshEmail('audit.import');
    const written = await recordsWrittenBy(async () => {
      const response = await admin.post('/api/users/bulk-import', {
        users: [
          { name: 'Imported', email, level: 1, schoolName: HARBOR },
          { name: 'Updated', email: existing.email, level: 2, schoolName: HARBOR },
          { name: 'Broken', email: 'nope', level: 1, schoolName: HARBOR },
        ],
      });
      expect(response.status).toBe(200);
    });
    expect(written.length).toBeGreaterThanOrEqual(1);
    const [log] = (await logs({ action: 'user.import' })).logs;
    expect(log).toMatchObject({ action: 'user.import', targetType: 'user', summary: { rows: 3, created: 1, updated: 1, errors: 1 } });
    expectActor(log!, admin, adminRow);
  });

  it('bulk import: the records name the users created and updated', async () => {
    const existing = await insertUser(server, { level: 1, schoolName: HARBOR });
    const email = freshEmail('audit.import.named');
    const written = await recordsWrittenBy(async () => {
      const response = await admin.post('/api/users/bulk-import', {
        users: [
          { name: 'Imported', email, level: 1, schoolName: HARBOR },
          { name: 'Updated', email: existing.email, level: 2, schoolName: HARBOR },
        ],
      });
      expect(response.status).toBe(200);
    });
    const text = JSON.stringify(written.map((r) => [r.targetId, r.summary]));
    const created = await findUserByEmail(server, email);
    // Who was created and who was changed must be recoverable from the audit log.
    expect(text.includes(email) || text.includes(created!.id), text).toBe(true);
    expect(text.includes(existing.email) || text.includes(existing.id), text).toBe(true);
  });

  it('writes nothing for refused or invalid requests', async () => {
    const otherSchool = await insertUser(server, { level: 1, schoolName: RIVERSIDE });
    const written = await recordsWrittenBy(async () => {
      expect((await harbor.put('/api/users', { userId: otherSchool.id, title: 'No' })).status).toBe(403);
      expect((await harbor.put(`/api/users/${otherSchool.id}/permissions`, { permissions: { canEditPlans: true } })).status).toBe(403);
      expect((await harbor.post('/api/users/create', { name: 'No', email: freshEmail('no'), level: 4, schoolName: HARBOR })).status).toBe(403);
      expect((await admin.post('/api/users/create', { name: 'No', email: 'broken', level: 1, schoolName: HARBOR })).status).toBe(400);
      expect((await admin.put(`/api/users/${otherSchool.id}/permissions`, { permissions: { canFly: true } })).status).toBe(400);
      expect((await harbor.post('/api/users/bulk-import', { users: [{ name: 'No', email: freshEmail('no'), level: 1, schoolName: HARBOR }] })).status).toBe(
        403,
      );
    });
    expect(written).toEqual([]);
  });
});

describe('GET /api/users/audit-logs', () => {
  /** Three known records: admin creates A, the principal creates B, admin updates A. */
  let a: string;
  let b: string;
  let startedAt: string;
  beforeAll(async () => {
    startedAt = new Date(Date.now() - 1000).toISOString();
    a = (await admin.post('/api/users/create', { name: 'Filter A', email: freshEmail('filter.a'), level: 1, schoolName: RIVERSIDE })).body.user._id;
    b = (await harbor.post('/api/users/create', { name: 'Filter B', email: freshEmail('filter.b'), level: 1, schoolName: HARBOR })).body.user._id;
    expect((await admin.put('/api/users', { userId: a, title: 'Filtered' })).status).toBe(200);
  });

  it('lists newest first, the last mutation on top', async () => {
    const { logs: all, total } = await logs({ limit: '200' });
    expect(total).toBe((await auditRecords(server)).length);
    expect(all.length).toBe(Math.min(total, 200));
    const times = all.map((l) => Date.parse(l.createdAt));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(all[0]).toMatchObject({ action: 'user.update', targetId: a });
    expect(all[1]).toMatchObject({ action: 'user.create', targetId: b });
    expect(all[2]).toMatchObject({ action: 'user.create', targetId: a });
  });

  it('filters by actorId, action, targetType and targetId, alone and together', async () => {
    const byPrincipal = await logs({ actorId: harborRow.id, limit: '200' });
    expect(byPrincipal.logs.length).toBeGreaterThan(0);
    expect(byPrincipal.logs.every((l) => l.actorId === harborRow.id)).toBe(true);
    expect(byPrincipal.logs.some((l) => l.targetId === b)).toBe(true);
    expect(byPrincipal.logs.some((l) => l.targetId === a)).toBe(false);

    const updates = await logs({ action: 'user.update', limit: '200' });
    expect(updates.logs.length).toBeGreaterThan(0);
    expect(updates.logs.every((l) => l.action === 'user.update')).toBe(true);
    expect(updates.total).toBe(updates.logs.length);

    expect((await logs({ targetType: 'user', limit: '200' })).logs.every((l) => l.targetType === 'user')).toBe(true);
    expect((await logs({ targetType: 'plan' })).logs).toEqual([]);

    const onA = await logs({ targetId: a });
    expect(onA.logs.map((l) => l.action)).toEqual(['user.update', 'user.create']);
    expect(onA.total).toBe(2);

    const combined = await logs({ actorId: adminRow.id, action: 'user.create', targetType: 'user', targetId: a });
    expect(combined.logs).toHaveLength(1);
    expect(combined.logs[0]).toMatchObject({ actorId: adminRow.id, action: 'user.create', targetId: a });
    expect((await logs({ actorId: harborRow.id, targetId: a })).logs).toEqual([]);
  });

  it('filters by time with from and to (timestamps or whole days)', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await logs({ from: future })).logs).toEqual([]);
    expect((await logs({ to: '2000-01-01' })).logs).toEqual([]);
    expect((await logs({ to: '2000-01-01T00:00:00Z' })).total).toBe(0);

    const recent = await logs({ from: startedAt, to: new Date(Date.now() + 1000).toISOString(), targetId: a });
    expect(recent.total).toBe(2);
    const today = new Date().toISOString().slice(0, 10);
    expect((await logs({ from: today, to: today, targetId: a })).total).toBe(2);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await logs({ to: yesterday, targetId: a })).total).toBe(0);
  });

  it('pages with page and limit (at most 200)', async () => {
    const four = await logs({ limit: '4' });
    const page1 = await logs({ limit: '2', page: '1' });
    const page2 = await logs({ limit: '2', page: '2' });
    expect(four.logs).toHaveLength(4);
    expect([...page1.logs, ...page2.logs].map((l) => l._id)).toEqual(four.logs.map((l) => l._id));
    expect(page1.total).toBe(four.total);
    expect((await admin.get('/api/users/audit-logs?page=2&limit=2')).body).toMatchObject({ page: 2, limit: 2 });
  });

  it('answers 400 for bad query parameters', async () => {
    for (const query of ['actorId=not-hex', 'limit=201', 'limit=0', 'page=0', 'from=yesterday', 'to=2026-13-45']) {
      const response = await admin.get(`/api/users/audit-logs?${query}`);
      expect(response.status, query).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
  });

  it('is for the Super Admin only: 403 for a principal and an assistant principal, 401 without a session', async () => {
    expect(await harbor.get('/api/users/audit-logs')).toMatchObject({ status: 403, body: { error: 'Access denied' } });
    const ap = await signIn(server.url, 'ap.harbor@example.org');
    expect((await ap.get('/api/users/audit-logs')).status).toBe(403);
    expect((await new HttpClient(server.url).get('/api/users/audit-logs')).status).toBe(401);
  });
});
