/**
 * A Redis outage under two real server processes with live editors and autosaves: a private
 * redis-server (never the shared one) is killed with SIGKILL mid-session and later started again,
 * empty, on the same port. Throughout, no server process exits; during the outage every request
 * and realtime event degrades (no 500, no "permission denied" for a permitted user), a REST save
 * still reaches the live documents of the process that took it; after recovery the live-editor
 * marks and presence are back at once, the processes exchange what they missed, no acknowledged
 * save is lost and the stored answers equal the converged documents.
 *
 * Needs DATABASE_URL (two processes cannot share an embedded PGlite) and REDIS_URL (as every
 * multi-process test; the processes here use their own redis-server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collabDocumentName, readAnswers, writeAnswers } from '@csp/shared';
import { createTestDatabase } from '../server/src/testing/testDatabase.ts';
import { sharedStoreEnv, startServerProcess, type ServerProcess } from '../server/src/testing/serverProcess.ts';
import { startOwnRedis, type OwnRedis } from '../server/src/testing/ownRedis.ts';
import { signIn, sessionToken, clientWithToken } from '../server/src/testing/signIn.ts';
import { createRedisClient } from '../server/src/kv/redis.ts';
import { openLiveClient, sorted, textOf, waitForConvergence, type LiveClient } from '../server/src/testing/collab.ts';
import { connectRealtime, type RealtimeClient } from '../server/src/testing/realtime.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../server/src/testing/demoNames.ts';
import { formIdOf, readStep, shareWith, stepPath, whoAmI } from '../server/src/testing/plans.ts';
import { stepOf } from '../server/src/testing/bundledBank.ts';
import { waitFor } from '../server/src/testing/wait.ts';

const STEP = 'attendancePlan';
const OTHER_STEP = 'counselingPlan';
const { step: counseling } = stepOf(OTHER_STEP);
const AP = 'ap.harbor@example.org';

describe.skipIf(!process.env.DATABASE_URL || !process.env.REDIS_URL)('a Redis outage under two server processes', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let redis: OwnRedis | undefined;
  let inspector: ReturnType<typeof createRedisClient> | undefined;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  let prefix: string;
  let formId: string;
  let principal: string;
  let admin: string;
  let ap: string;
  const opened: { destroy(): void }[] = [];
  /** Markers of saves acknowledged with 200: each must be in the final stored answers. */
  const acknowledged: { marker: string; questionId: string }[] = [];

  async function live(server: ServerProcess, token: string, stepKey: string, label: string): Promise<LiveClient> {
    const client = await openLiveClient(server.url, token, formId, stepKey, { label });
    opened.push(client);
    return client;
  }

  async function realtime(server: ServerProcess, token: string, label: string): Promise<RealtimeClient> {
    const client = await connectRealtime(server.url, token, { label });
    opened.push({ destroy: () => client.close() });
    return client;
  }

  /** Types a marker at the end of a text answer, as an editor's keystrokes. */
  function type(client: LiveClient, questionId: string, marker: string) {
    const text = textOf(client.doc, questionId);
    text.insert(text.length, ` ${marker}`);
  }

  /** The web client's autosave of its live document (last-write-wins); the markers it carried count as acknowledged on 200. */
  async function autosave(client: LiveClient, server: ServerProcess, token: string, markers: { marker: string; questionId: string }[] = []) {
    await client.settled();
    const response = await clientWithToken(server, token).put(stepPath(formId, STEP), {
      stepData: { data: readAnswers(client.doc) },
      mergeStrategy: 'last-write-wins',
    });
    if (response.status === 200) acknowledged.push(...markers);
    return response;
  }

  function expectAlive(...servers: ServerProcess[]) {
    for (const server of servers)
      expect({ exitCode: server.child.exitCode, signal: server.child.signalCode }, server.output().slice(-3000)).toEqual({ exitCode: null, signal: null });
  }

  const liveMarksOf = async (stepKey: string) => Object.keys(await inspector!.hgetall(`${prefix}collab:live:${collabDocumentName(formId, stepKey)}`));

  beforeAll(async () => {
    redis = await startOwnRedis();
    database = await createTestDatabase();
    const env = sharedStoreEnv(database.databaseUrl!, redis.url, 'outage');
    prefix = env.REDIS_PREFIX!;
    a = await startServerProcess(env);
    b = await startServerProcess(env);
    inspector = createRedisClient(redis.url);
    const [principalSession, adminSession, apSession] = await Promise.all([PRINCIPAL_HARBOR, SUPERADMIN, AP].map((email) => signIn(a!.url, email)));
    [principal, admin, ap] = [principalSession!, adminSession!, apSession!].map(sessionToken) as [string, string, string];
    formId = await formIdOf(adminSession!, HARBOR);
    await shareWith(adminSession!, formId, [(await whoAmI(apSession!)).id], 'edit');
    // Stored answers the documents are seeded from (texts to type into), then the lock released.
    const seeded = await adminSession!.put(stepPath(formId, STEP), { stepData: { data: { att_strategy: 'Daily calls.', att_barriers: 'Late buses.' } } });
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);
    expect((await adminSession!.post(stepPath(formId, STEP, '/unlock'), {})).status).toBe(200);
  });

  afterAll(async () => {
    for (const client of opened) client.destroy();
    inspector?.disconnect();
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.kill();
    await database?.drop();
  });

  it('no process exits, nothing answers 500 or refuses a permitted user, saves reach live documents, and everything converges after Redis restarts empty', async () => {
    // Live editors on both processes, and a realtime socket on each, joined to the plan.
    const onA = await live(a!, principal, STEP, 'principal on A');
    const onB = await live(b!, ap, STEP, 'ap on B');
    await waitFor('both live-editor marks', async () => (await liveMarksOf(STEP)).length === 2);
    const socketA = await realtime(a!, principal, 'principal socket on A');
    const socketB = await realtime(b!, ap, 'ap socket on B');
    for (const socket of [socketA, socketB]) expect(await socket.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });

    await redis!.kill();

    // 1. Realtime events while Redis is down: answered, and the processes stay up.
    const stepAck = await socketA.request('presence:step', { formId, stepKey: OTHER_STEP });
    expect(stepAck).toMatchObject({ ok: true, warning: expect.any(String) });
    expect(await socketB.request('plan:leave', { formId })).toEqual({ ok: true });
    expect(await socketB.request('plan:join', { formId, stepKey: STEP })).toMatchObject({ ok: true, warning: expect.any(String) });

    // 4. REST routes that need Redis answer 503 with Retry-After, never 500.
    const paths = [
      ['GET', `/api/forms/${formId}/locks`],
      ['GET', `/api/forms/${formId}/editors`],
      ['POST', `/api/forms/${formId}/editors/register`],
      ['POST', stepPath(formId, STEP, '/unlock')],
    ] as const;
    for (const server of [a!, b!]) {
      for (const [method, path] of paths) {
        const response = await clientWithToken(server, principal).json(method, path, method === 'POST' ? { stepKey: STEP } : undefined);
        expect({ method, path, status: response.status, retryAfter: response.headers.get('retry-after') }).toEqual({
          method,
          path,
          status: 503,
          retryAfter: '5',
        });
      }
    }
    // 4. A document nobody has open yet opens for a permitted user.
    const other = await live(b!, principal, OTHER_STEP, 'principal on B, other step');
    expect(other.isLive()).toBe(true);

    // 2. A REST save by someone not editing live reaches the live document of the process that took it.
    const saved = await clientWithToken(a!, admin).put(stepPath(formId, STEP), {
      stepData: { data: { att_sameDayOutreach: 'Saved over REST during the outage.' } },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.warning).toEqual(expect.any(String));
    acknowledged.push({ marker: 'Saved over REST during the outage.', questionId: 'att_sameDayOutreach' });
    await waitFor('the live editor on A to receive the REST save', () => onA.answers().att_sameDayOutreach === 'Saved over REST during the outage.');
    // Its next autosave (last-write-wins) keeps it.
    type(onA, 'att_strategy', '[A during outage]');
    const duringA = await autosave(onA, a!, principal, [{ marker: '[A during outage]', questionId: 'att_strategy' }]);
    expect(duringA.status, JSON.stringify(duringA.body)).toBe(200);
    expect(duringA.body.stepData.data.att_sameDayOutreach).toBe('Saved over REST during the outage.');
    // B's editor types and autosaves too (step locks fail open with a warning).
    type(onB, 'att_barriers', '[B during outage]');
    const duringB = await autosave(onB, b!, ap);
    expect(duringB.status, JSON.stringify(duringB.body)).toBe(200);
    expectAlive(a!, b!);

    // 3. Redis back, empty: this process's live marks (and presence) are written again at once.
    await redis!.restart();
    await waitFor('both live-editor marks again', async () => (await liveMarksOf(STEP)).length === 2, { timeoutMs: 15_000, intervalMs: 100 });
    await waitFor('presence of the joined sockets again', async () => {
      const { status, body } = await clientWithToken(a!, principal).get(`/api/forms/${formId}/editors`);
      return status === 200 && body.editors.length === 2;
    });
    // The processes exchange what they missed: the documents converge with every edit of the outage.
    const converged = await waitForConvergence([onA, onB], 30_000);
    expect(converged.att_sameDayOutreach).toBe('Saved over REST during the outage.');
    expect(converged.att_strategy as string).toContain('[A during outage]');
    expect(converged.att_barriers as string).toContain('[B during outage]');

    // The document opened on B during the outage is shared again: edits flow both ways with a process that opens it now.
    const otherOnA = await live(a!, ap, OTHER_STEP, 'ap on A, other step');
    writeAnswers(other.doc, counseling, { csl_missionStatement: 'Typed on B after the outage.' });
    await waitFor('A to receive the edit on B', () => otherOnA.answers().csl_missionStatement === 'Typed on B after the outage.');
    writeAnswers(otherOnA.doc, counseling, { csl_missionStatement: 'Typed on A after the outage.' });
    await waitFor('B to receive the edit on A', () => other.answers().csl_missionStatement === 'Typed on A after the outage.');

    // Both editors type and autosave through their own process: both are live (no 423), no text goes.
    type(onA, 'att_strategy', '[A after]');
    type(onB, 'att_barriers', '[B after]');
    const afterA = await autosave(onA, a!, principal, [{ marker: '[A after]', questionId: 'att_strategy' }]);
    expect(afterA.status, JSON.stringify(afterA.body)).toBe(200);
    await waitFor('B to see what A typed', () => (onB.answers().att_strategy as string).includes('[A after]'));
    const afterB = await autosave(onB, b!, ap, [{ marker: '[B after]', questionId: 'att_barriers' }]);
    expect(afterB.status, JSON.stringify(afterB.body)).toBe(200);
    await waitFor('A to see what B typed', () => (onA.answers().att_barriers as string).includes('[B after]'));

    // Stored answers equal the converged documents; no acknowledged save is lost; no process exited.
    const final = await waitForConvergence([onA, onB], 30_000);
    expect((await autosave(onA, a!, principal)).status).toBe(200);
    const stored = await readStep(clientWithToken(b!, ap), formId, STEP);
    expect(sorted(stored.stepData.data)).toEqual(sorted(final));
    for (const { marker, questionId } of acknowledged) expect(stored.stepData.data[questionId] as string, marker).toContain(marker);
    expectAlive(a!, b!);
    console.log(`redisOutage.multiprocess: 0 process exits, ${acknowledged.length} acknowledged saves, 0 lost`);
  });
});
