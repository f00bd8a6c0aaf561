/**
 * Access matrix of the Users API: every route for every kind of caller (no session, levels 1 to 5,
 * targets of the same school, of another school, and oneself), with the expected status and the
 * expected effect read back from the database. Rows that mutate get fresh target users of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';

import { DISTRICT, HARBOR, RIVERSIDE } from '../../testing/demoNames.ts';
import { findUserByEmail, freshEmail, insertUser, userById } from '../../testing/users.ts';
import type { UserRow } from '../../storage/rows.ts';

/** Callers: no session, or a demo user of each level (levels 1 to 4 at Harbor, 5 at the District Office). */
type Caller = 'none' | 'L1' | 'L2' | 'L3' | 'L4' | 'L5';
const CALLER_EMAIL: Record<Exclude<Caller, 'none'>, string> = {
  L1: 'teacher.harbor@example.org',
  L2: 'coordinator.harbor@example.org',
  L3: 'ap.harbor@example.org',
  L4: 'principal.harbor@example.org',
  L5: 'superadmin@example.org',
};
const CALLER_SCHOOL: Record<Caller, string> = { none: HARBOR, L1: HARBOR, L2: HARBOR, L3: HARBOR, L4: HARBOR, L5: DISTRICT };
const OTHER_SCHOOL: Record<Caller, string> = { none: RIVERSIDE, L1: RIVERSIDE, L2: RIVERSIDE, L3: RIVERSIDE, L4: RIVERSIDE, L5: HARBOR };

type Route =
  | 'GET /api/users'
  | 'PUT /api/users'
  | 'DELETE /api/users'
  | 'PUT /api/users/:id/permissions'
  | 'POST /api/users/bulk'
  | 'POST /api/users/create'
  | 'POST /api/users/bulk-import'
  | 'GET /api/users/audit-logs';

/**
 * The target user, relative to the caller: `same`/`other` school, `L5` another Super Admin, `self`
 * the caller. For create and bulk-import it is the user the request would make; `-` for reads.
 */
type Target = '-' | 'self' | 'L1 same' | 'L3 same' | 'L4 same' | 'L1 other' | 'L3 other' | 'L4 other' | 'L5';

/**
 * What the database must show afterwards: `changed` (PUT sets the title, DELETE removes the row,
 * permissions sets canEditPlans, bulk deactivates) or `unchanged`; `created`/`not created` for
 * create and import; `-` for reads.
 */
type Effect = '-' | 'changed' | 'unchanged' | 'created' | 'not created';

type Row = [caller: Caller, route: Route, target: Target, status: number, effect: Effect];

// prettier-ignore
const MATRIX: Row[] = [
  // ── no session: 401 everywhere, nothing happens ─────────────────────────────────────────────
  ['none', 'GET /api/users',                 '-',        401, '-'],
  ['none', 'PUT /api/users',                 'L1 same',  401, 'unchanged'],
  ['none', 'DELETE /api/users',              'L1 same',  401, 'unchanged'],
  ['none', 'PUT /api/users/:id/permissions', 'L1 same',  401, 'unchanged'],
  ['none', 'POST /api/users/bulk',           'L1 same',  401, 'unchanged'],
  ['none', 'POST /api/users/create',         'L1 same',  401, 'not created'],
  ['none', 'POST /api/users/bulk-import',    'L1 same',  401, 'not created'],
  ['none', 'GET /api/users/audit-logs',      '-',        401, '-'],
  // ── level 1 (teacher): 403 on every users route, even on an equal level and on oneself ──────
  ['L1',   'GET /api/users',                 '-',        403, '-'],
  ['L1',   'PUT /api/users',                 'L1 same',  403, 'unchanged'],
  ['L1',   'PUT /api/users',                 'self',     403, 'unchanged'],
  ['L1',   'DELETE /api/users',              'L1 same',  403, 'unchanged'],
  ['L1',   'PUT /api/users/:id/permissions', 'L1 same',  403, 'unchanged'],
  ['L1',   'PUT /api/users/:id/permissions', 'self',     403, 'unchanged'],
  ['L1',   'POST /api/users/bulk',           'L1 same',  403, 'unchanged'],
  ['L1',   'POST /api/users/create',         'L1 same',  403, 'not created'],
  ['L1',   'POST /api/users/bulk-import',    'L1 same',  403, 'not created'],
  ['L1',   'GET /api/users/audit-logs',      '-',        403, '-'],
  // ── level 2 (coordinator): 403 on every users route, even on a lower level of the same school
  ['L2',   'GET /api/users',                 '-',        403, '-'],
  ['L2',   'PUT /api/users',                 'L1 same',  403, 'unchanged'],
  ['L2',   'DELETE /api/users',              'L1 same',  403, 'unchanged'],
  ['L2',   'PUT /api/users/:id/permissions', 'L1 same',  403, 'unchanged'],
  ['L2',   'POST /api/users/bulk',           'L1 same',  403, 'unchanged'],
  ['L2',   'POST /api/users/create',         'L1 same',  403, 'not created'],
  ['L2',   'POST /api/users/bulk-import',    'L1 same',  403, 'not created'],
  ['L2',   'GET /api/users/audit-logs',      '-',        403, '-'],
  // ── level 3 (assistant principal): 403 on every users route ─────────────────────────────────
  ['L3',   'GET /api/users',                 '-',        403, '-'],
  ['L3',   'PUT /api/users',                 'L1 same',  403, 'unchanged'],
  ['L3',   'DELETE /api/users',              'L1 same',  403, 'unchanged'],
  ['L3',   'PUT /api/users/:id/permissions', 'L1 same',  403, 'unchanged'],
  ['L3',   'POST /api/users/bulk',           'L1 same',  403, 'unchanged'],
  ['L3',   'POST /api/users/create',         'L1 same',  403, 'not created'],
  ['L3',   'POST /api/users/bulk-import',    'L1 same',  403, 'not created'],
  ['L3',   'GET /api/users/audit-logs',      '-',        403, '-'],
  // ── level 4 (principal of Harbor): levels 1 to 3 of the own school only ─────────────────────
  ['L4',   'GET /api/users',                 '-',        200, '-'],
  ['L4',   'GET /api/users/audit-logs',      '-',        403, '-'],
  ['L4',   'POST /api/users/bulk-import',    'L1 same',  403, 'not created'],
  ['L4',   'POST /api/users/create',         'L1 same',  200, 'created'],
  ['L4',   'POST /api/users/create',         'L3 same',  200, 'created'],
  ['L4',   'POST /api/users/create',         'L4 same',  403, 'not created'],
  ['L4',   'POST /api/users/create',         'L5',       403, 'not created'],
  ['L4',   'POST /api/users/create',         'L1 other', 403, 'not created'],
  ['L4',   'PUT /api/users',                 'L1 same',  200, 'changed'],
  ['L4',   'PUT /api/users',                 'L3 same',  200, 'changed'],
  ['L4',   'PUT /api/users',                 'L4 same',  403, 'unchanged'],
  ['L4',   'PUT /api/users',                 'L1 other', 403, 'unchanged'],
  ['L4',   'PUT /api/users',                 'L3 other', 403, 'unchanged'],
  ['L4',   'PUT /api/users',                 'L5',       403, 'unchanged'],
  ['L4',   'PUT /api/users',                 'self',     403, 'unchanged'],
  ['L4',   'DELETE /api/users',              'L1 same',  200, 'changed'],
  ['L4',   'DELETE /api/users',              'L3 same',  200, 'changed'],
  ['L4',   'DELETE /api/users',              'L4 same',  403, 'unchanged'],
  ['L4',   'DELETE /api/users',              'L1 other', 403, 'unchanged'],
  ['L4',   'DELETE /api/users',              'L3 other', 403, 'unchanged'],
  ['L4',   'DELETE /api/users',              'L5',       403, 'unchanged'],
  ['L4',   'DELETE /api/users',              'self',     403, 'unchanged'],
  ['L4',   'PUT /api/users/:id/permissions', 'L1 same',  200, 'changed'],
  ['L4',   'PUT /api/users/:id/permissions', 'L3 same',  200, 'changed'],
  ['L4',   'PUT /api/users/:id/permissions', 'L4 same',  403, 'unchanged'],
  ['L4',   'PUT /api/users/:id/permissions', 'L1 other', 403, 'unchanged'],
  ['L4',   'PUT /api/users/:id/permissions', 'L3 other', 403, 'unchanged'],
  ['L4',   'PUT /api/users/:id/permissions', 'L5',       403, 'unchanged'],
  ['L4',   'PUT /api/users/:id/permissions', 'self',     403, 'unchanged'],
  // bulk answers 200 with a per-id result: the effect column says whether the id was applied
  ['L4',   'POST /api/users/bulk',           'L1 same',  200, 'changed'],
  ['L4',   'POST /api/users/bulk',           'L3 same',  200, 'changed'],
  ['L4',   'POST /api/users/bulk',           'L4 same',  200, 'unchanged'],
  ['L4',   'POST /api/users/bulk',           'L1 other', 200, 'unchanged'],
  ['L4',   'POST /api/users/bulk',           'L3 other', 200, 'unchanged'],
  ['L4',   'POST /api/users/bulk',           'L5',       200, 'unchanged'],
  ['L4',   'POST /api/users/bulk',           'self',     200, 'unchanged'],
  // ── level 5 (Super Admin): anyone below level 5, any school; never oneself or another level 5
  ['L5',   'GET /api/users',                 '-',        200, '-'],
  ['L5',   'GET /api/users/audit-logs',      '-',        200, '-'],
  ['L5',   'POST /api/users/bulk-import',    'L1 other', 200, 'created'],
  ['L5',   'POST /api/users/create',         'L1 other', 200, 'created'],
  ['L5',   'POST /api/users/create',         'L5',       200, 'created'],
  ['L5',   'PUT /api/users',                 'L1 other', 200, 'changed'],
  ['L5',   'PUT /api/users',                 'L4 other', 200, 'changed'],
  ['L5',   'PUT /api/users',                 'L5',       403, 'unchanged'],
  ['L5',   'PUT /api/users',                 'self',     403, 'unchanged'],
  ['L5',   'DELETE /api/users',              'L1 other', 200, 'changed'],
  ['L5',   'DELETE /api/users',              'L4 other', 200, 'changed'],
  ['L5',   'DELETE /api/users',              'L5',       403, 'unchanged'],
  ['L5',   'DELETE /api/users',              'self',     403, 'unchanged'],
  ['L5',   'PUT /api/users/:id/permissions', 'L1 other', 200, 'changed'],
  ['L5',   'PUT /api/users/:id/permissions', 'L4 other', 200, 'changed'],
  ['L5',   'PUT /api/users/:id/permissions', 'L5',       403, 'unchanged'],
  ['L5',   'PUT /api/users/:id/permissions', 'self',     403, 'unchanged'],
  ['L5',   'POST /api/users/bulk',           'L1 other', 200, 'changed'],
  ['L5',   'POST /api/users/bulk',           'L4 other', 200, 'changed'],
  ['L5',   'POST /api/users/bulk',           'L5',       200, 'unchanged'],
  ['L5',   'POST /api/users/bulk',           'self',     200, 'unchanged'],
];

let server: TestServer;
const clients = new Map<Caller, HttpClient>();
const self = new Map<Caller, UserRow>();

beforeAll(async () => {
  server = await startTestServer();
  clients.set('none', new HttpClient(server.url));
  for (const [caller, email] of Object.entries(CALLER_EMAIL) as [Exclude<Caller, 'none'>, string][]) {
    clients.set(caller, await signIn(server.url, email));
    self.set(caller, (await findUserByEmail(server, email))!);
  }
});
afterAll(() => server?.stop());

/** The level and school a target descriptor stands for, for this caller. */
function targetSpec(caller: Caller, target: Target): { level: number; schoolName: string } {
  if (target === 'L5') return { level: 5, schoolName: DISTRICT };
  const [level, where] = target.split(' ') as [string, 'same' | 'other'];
  return { level: Number(level.slice(1)), schoolName: where === 'same' ? CALLER_SCHOOL[caller] : OTHER_SCHOOL[caller] };
}

/** A fresh user for the row (or the caller itself for `self`). */
async function targetUser(caller: Caller, target: Target): Promise<UserRow> {
  if (target === 'self') return self.get(caller)!;
  return insertUser(server, targetSpec(caller, target));
}

describe('Users API access matrix', () => {
  it.each(MATRIX.map((row, index) => [index + 1, ...row] as const))('#%i %s %s → target %s: %i, %s', async (n, caller, route, target, status, effect) => {
    const client = clients.get(caller)!;
    const marker = `Matrix row ${n}`;

    switch (route) {
      case 'GET /api/users':
      case 'GET /api/users/audit-logs': {
        const response = await client.get(route.slice(4));
        expect(response.status).toBe(status);
        if (status === 200) expect(Array.isArray(response.body.users ?? response.body.logs)).toBe(true);
        else expect(typeof response.body.error).toBe('string');
        return;
      }

      case 'POST /api/users/create':
      case 'POST /api/users/bulk-import': {
        const email = freshEmail(`matrix${n}`);
        const user = { name: marker, email, ...targetSpec(caller, target) };
        const response =
          route === 'POST /api/users/create' ? await client.post('/api/users/create', user) : await client.post('/api/users/bulk-import', { users: [user] });
        expect(response.status).toBe(status);
        if (route === 'POST /api/users/bulk-import' && status === 200) expect(response.body.results).toEqual([{ row: 0, email, status: 'created' }]);
        const stored = await findUserByEmail(server, email);
        if (effect === 'created') expect(stored).toMatchObject({ name: marker, level: user.level, schoolName: user.schoolName });
        else expect(stored).toBeUndefined();
        return;
      }

      default: {
        const before = await targetUser(caller, target);
        let response;
        if (route === 'PUT /api/users') response = await client.put('/api/users', { userId: before.id, title: marker });
        else if (route === 'DELETE /api/users') response = await client.delete('/api/users', { userId: before.id });
        else if (route === 'PUT /api/users/:id/permissions')
          response = await client.put(`/api/users/${before.id}/permissions`, { permissions: { canEditPlans: true } });
        else response = await client.post('/api/users/bulk', { userIds: [before.id], action: 'deactivate' });

        expect(response.status, JSON.stringify(response.body)).toBe(status);
        if (status >= 400) expect(typeof response.body.error).toBe('string');
        if (route === 'POST /api/users/bulk' && status === 200) {
          expect(response.body.results).toHaveLength(1);
          expect(response.body.results[0]).toMatchObject({ userId: before.id, success: effect === 'changed' });
          expect(response.body.applied).toBe(effect === 'changed' ? 1 : 0);
        }

        const after = await userById(server, before.id);
        if (effect === 'unchanged') {
          expect(after).toEqual(before);
          return;
        }
        if (route === 'PUT /api/users') expect(after?.title).toBe(marker);
        else if (route === 'DELETE /api/users') expect(after).toBeUndefined();
        else if (route === 'PUT /api/users/:id/permissions') expect(after?.permissions).toEqual({ ...before.permissions, canEditPlans: true });
        else expect(after?.isActive).toBe(false);
      }
    }
  });
});

describe('per-user rate limit on the users routes', () => {
  it('counts even refused calls, answers 429 with Retry-After: 60, and only for that user', async () => {
    // users-import allows 5 per minute per user; the limit is counted before the level check.
    const coordinator = await signIn(server.url, 'coordinator.riverside@example.org');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await coordinator.post('/api/users/bulk-import', { users: [] })).status);
    expect(statuses).toEqual([403, 403, 403, 403, 403, 429]);
    const limited = await coordinator.post('/api/users/bulk-import', { users: [] });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Too many requests' });
    expect(limited.headers.get('retry-after')).toBe('60');
    // Another user (the matrix's teacher used bulk-import once) is not limited by it.
    expect((await clients.get('L1')!.post('/api/users/bulk-import', { users: [] })).status).toBe(403);
  });
});
