/**
 * The System page's figures in `GET /api/admin/health` against a real server: the application's
 * version from the root package.json, and this process's realtime gateway (open sockets, people)
 * and collaboration server (documents loaded, connections) as clients connect and leave; the answer
 * matches the shared schema the web app parses, key for key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { adminHealthSchema, healthSchema } from '@csp/shared/api/health';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll, sessionToken } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { SESSION_COOKIE } from '../../auth/sessions.ts';
import { connectRealtime, type RealtimeClient } from '../../testing/realtime.ts';
import { openLiveClient, type LiveClient } from '../../testing/collab.ts';
import { HARBOR } from '../../testing/demoNames.ts';
import { formIdOf } from '../../testing/plans.ts';
import { waitFor } from '../../testing/wait.ts';

let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
const sockets: RealtimeClient[] = [];
const live: LiveClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
  [admin, principal] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org']);
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  for (const client of live) client.destroy();
  await server?.stop();
});

async function adminHealth() {
  const { status, body } = await admin.get('/api/admin/health');
  expect(status, JSON.stringify(body)).toBe(200);
  // zod drops keys a schema lacks: equal after parsing means the schema declares every key sent.
  expect(adminHealthSchema.parse(body)).toEqual(body);
  return adminHealthSchema.parse(body);
}

describe('GET /api/admin/health for the System page', () => {
  it('names the running version from the root package.json', async () => {
    const root = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(root.version).toMatch(/^\d+\.\d+\.\d+/);
    expect((await adminHealth()).version).toBe(root.version);
  });

  it('reports the realtime gateway: sockets open on this process and the people behind them, in-process without Redis', async () => {
    const sharing = process.env.REDIS_URL ? 'redis' : 'in-process';
    const before = (await adminHealth()).realtime!;
    expect(before).toMatchObject({ status: 'ok', sharing });

    sockets.push(await connectRealtime(server.url, admin.cookies.get(SESSION_COOKIE)!, { label: 'admin tab 1' }));
    sockets.push(await connectRealtime(server.url, admin.cookies.get(SESSION_COOKIE)!, { label: 'admin tab 2' }));
    sockets.push(await connectRealtime(server.url, principal.cookies.get(SESSION_COOKIE)!, { label: 'principal' }));
    const during = (await adminHealth()).realtime!;
    expect(during.connections).toBe(before.connections + 3);
    expect(during.users).toBe(before.users + 2);

    sockets.pop()!.close();
    await waitFor('the principal’s socket to be gone', async () => (await adminHealth()).realtime!.connections === before.connections + 2);
    expect((await adminHealth()).realtime!.users).toBe(before.users + 1);
  });

  it('reports the collaboration server: documents loaded and connections open on this process', async () => {
    const before = (await adminHealth()).collaboration!;
    expect(before).toMatchObject({ status: 'ok', documents: 0, connections: 0, sharing: process.env.REDIS_URL ? 'redis' : 'in-process' });
    const formId = await formIdOf(principal, HARBOR);
    live.push(await openLiveClient(server.url, sessionToken(principal), formId, 'attendancePlan', { label: 'principal' }));
    live.push(await openLiveClient(server.url, sessionToken(admin), formId, 'attendancePlan', { label: 'admin' }));
    live.push(await openLiveClient(server.url, sessionToken(principal), formId, 'temporaryHousing', { label: 'principal, other step' }));
    expect((await adminHealth()).collaboration).toMatchObject({ status: 'ok', documents: 2, connections: 3 });

    for (const client of live.splice(0)) client.destroy();
    await waitFor('every collaboration connection to close', async () => (await adminHealth()).collaboration!.connections === 0);
    await waitFor('the documents to unload', async () => (await adminHealth()).collaboration!.documents === 0);
  });

  it('keeps the public probe as it was: no version, no live figures', async () => {
    const { status, body } = await new HttpClient(server.url).get('/api/health');
    expect(status).toBe(200);
    expect(healthSchema.parse(body)).toEqual(body);
    expect(body).toEqual({ status: 'ok', database: 'ok', redis: process.env.REDIS_URL ? 'ok' : 'not configured', store: server.services.storage.kind });
  });

  it('is still for Super Admins only', async () => {
    const { status, body } = await principal.get('/api/admin/health');
    expect(status).toBe(403);
    expect(body.realtime).toBeUndefined();
  });
});
