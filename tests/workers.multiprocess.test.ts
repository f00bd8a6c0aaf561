/**
 * `WORKERS=2`: the real server entry as a primary process with two workers sharing one port
 * (node:cluster hands each new connection to a worker in turn) on PostgreSQL and Redis. Both
 * workers answer; a save taken by one reaches Socket.IO and Hocuspocus clients on the other; a
 * killed worker is replaced; SIGTERM stops the whole group cleanly. Signing in (beforeAll) already
 * crosses workers: each step of the development provider's flow may land on either.
 *
 * Which worker answered is the `process.pid` of `GET /api/admin/health`, asked on a connection of
 * its own; its `realtime` and `collaboration` figures count that worker's open connections.
 * Needs DATABASE_URL and REDIS_URL, as the configuration does for more than one worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHealthSchema, type AdminHealth } from '@csp/shared/api/health';
import { createTestDatabase } from '../server/src/testing/testDatabase.ts';
import { sharedStoreEnv, startServerProcess, type ServerProcess } from '../server/src/testing/serverProcess.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { connectRealtime, type RealtimeClient } from '../server/src/testing/realtime.ts';
import { openLiveClient, type LiveClient } from '../server/src/testing/collab.ts';
import { sessionToken, signInAll } from '../server/src/testing/signIn.ts';
import { waitFor } from '../server/src/testing/wait.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../server/src/testing/demoNames.ts';
import { formIdOf, stepPath } from '../server/src/testing/plans.ts';

const WORKERS = 2;
/** A worker's replacement starts after the primary's back-off, then migrates nothing and listens. */
const REPLACEMENT_TIMEOUT_MS = 60_000;

describe.skipIf(!process.env.DATABASE_URL || !process.env.REDIS_URL)('WORKERS=2: one primary, two workers on one port', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let server: ServerProcess | undefined;
  let admin: HttpClient;
  let principalToken: string;
  let formId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startServerProcess({
      ...sharedStoreEnv(database.databaseUrl!, process.env.REDIS_URL!, 'workers'),
      WORKERS: String(WORKERS),
      // The primary's and the workers' start and stop lines are at info.
      LOG_LEVEL: 'info',
    });
    const [adminClient, principal] = await signInAll(server.url, [SUPERADMIN, PRINCIPAL_HARBOR]);
    admin = adminClient;
    principalToken = sessionToken(principal);
    formId = await formIdOf(admin, HARBOR);
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
  });

  /** The health of whichever worker takes a new connection. */
  async function healthOfNextWorker(): Promise<AdminHealth> {
    const response = await admin.request('GET', '/api/admin/health', { headers: { connection: 'close' } });
    if (response.status !== 200) throw new Error(`admin health answered ${response.status}`);
    return adminHealthSchema.parse(await response.json());
  }

  /** Each worker's health, asked after this call, by pid; waits until `WORKERS` of them answered. */
  async function workers(what = `${WORKERS} workers to answer`, timeoutMs?: number): Promise<Map<number, AdminHealth>> {
    const seen = new Map<number, AdminHealth>();
    await waitFor(
      what,
      async () => {
        const health = await healthOfNextWorker();
        seen.set(health.process.pid, health);
        return seen.size >= WORKERS;
      },
      { timeoutMs },
    );
    return seen;
  }

  /**
   * Opens clients until every worker holds at least one of them, as its own count says: whichever
   * worker then takes a save, a client on another worker can only hear of it through Redis.
   */
  async function onEveryWorker<T>(open: () => Promise<T>, connections: (health: AdminHealth) => number): Promise<T[]> {
    const clients: T[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      clients.push(await open());
      if (clients.length < WORKERS) continue;
      if ([...(await workers()).values()].every((health) => connections(health) > 0)) return clients;
    }
    throw new Error(`${clients.length} clients, still not on every worker`);
  }

  it('two worker processes, neither of them the primary, answer on the one port; the primary loaded the demo district once', async () => {
    const pids = [...(await workers()).keys()];
    expect(pids).toHaveLength(WORKERS);
    expect(pids).not.toContain(server!.child.pid);
    expect(server!.output().match(/demo district loaded/g)).toHaveLength(1);
  });

  it('takes Socket.IO over WebSocket only: a long-polling handshake is refused (its requests could reach another worker)', async () => {
    const polling = await admin.request('GET', '/realtime/?EIO=4&transport=polling');
    expect(polling.status).toBe(400);
    expect(await polling.json()).toMatchObject({ message: 'Transport unknown' });
  });

  it('a save taken by either worker reaches Socket.IO clients on both', async () => {
    const sockets: RealtimeClient[] = [];
    try {
      const open = async () => {
        const socket = await connectRealtime(server!.url, principalToken, { label: `principal socket ${sockets.length + 1}` });
        sockets.push(socket);
        expect(await socket.request('plan:join', { formId })).toEqual({ ok: true });
        return socket;
      };
      await onEveryWorker(open, (health) => health.realtime?.connections ?? 0);
      const since = sockets.map((socket) => socket.mark());
      const saved = await admin.put(stepPath(formId, 'attendancePlan'), { stepData: { data: { att_barriers: 'Saved through one worker' } } });
      expect(saved.status, server!.output()).toBe(200);
      for (const [i, socket] of sockets.entries()) {
        expect(await socket.waitForEvent('step:saved', (p) => p.formId === formId, { since: since[i] })).toMatchObject({
          formId,
          stepKey: 'attendancePlan',
          revisionCount: saved.body.revisionCount,
        });
      }
    } finally {
      for (const socket of sockets) socket.close();
    }
  });

  it('a REST save taken by either worker reaches Hocuspocus clients on both', async () => {
    const live: LiveClient[] = [];
    try {
      const open = async () => {
        const client = await openLiveClient(server!.url, principalToken, formId, 'temporaryHousing', { label: `principal live ${live.length + 1}` });
        live.push(client);
        return client;
      };
      await onEveryWorker(open, (health) => health.collaboration?.connections ?? 0);
      const saved = await admin.put(stepPath(formId, 'temporaryHousing'), { stepData: { data: { sth_transportation: 'MetroCards for families.' } } });
      expect(saved.status, server!.output()).toBe(200);
      for (const client of live) {
        await waitFor(`${client.label} to receive the save`, () => client.answers().sth_transportation === 'MetroCards for families.');
      }
    } finally {
      for (const client of live) client.destroy();
    }
  });

  it('a worker killed with SIGKILL is replaced by the primary', async () => {
    const [victim, survivor] = [...(await workers()).keys()] as [number, number];
    process.kill(victim, 'SIGKILL');
    await waitFor('the primary to report the dead worker', () => server!.output().includes('worker exited unexpectedly'));
    const now = [...(await workers('the survivor and a replacement to answer', REPLACEMENT_TIMEOUT_MS)).keys()];
    expect(now).toContain(survivor);
    expect(now).not.toContain(victim);
    expect(now).not.toContain(server!.child.pid);
  });

  it('SIGTERM stops every worker cleanly, then the primary, which exits 0', async () => {
    const pids = [...(await workers()).keys()];
    await server!.stop('SIGTERM');
    expect(server!.child.exitCode, server!.output()).toBe(0);
    const stoppedCleanly = (pid: number | undefined) => new RegExp(`"pid":${pid},[^\\n]*"msg":"stopped cleanly"`).test(server!.output());
    for (const pid of [...pids, server!.child.pid]) expect(stoppedCleanly(pid), `${pid} stopped cleanly`).toBe(true);
    // The primary waited for its workers: none is left running.
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });
});
