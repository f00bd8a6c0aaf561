/**
 * Socket.IO across two real server processes sharing PostgreSQL and Redis (the Socket.IO Redis
 * adapter): presence, lock and review-thread events caused on process A reach sockets on process B
 * and back, and a user without access joins the plan on neither. Needs DATABASE_URL (two processes cannot
 * share an embedded PGlite) and REDIS_URL (the adapter that carries events between processes).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../server/src/testing/testDatabase.ts';
import { sharedStoreEnv, startServerProcess, type ServerProcess } from '../server/src/testing/serverProcess.ts';
import { HttpClient } from '../server/src/testing/httpClient.ts';
import { connectRealtime, type RealtimeClient } from '../server/src/testing/realtime.ts';
import { openLiveClient } from '../server/src/testing/collab.ts';
import { sessionToken, signInAll, clientWithToken } from '../server/src/testing/signIn.ts';
import { waitFor } from '../server/src/testing/wait.ts';
import { HARBOR, PRINCIPAL_HARBOR, RIVERSIDE, SUPERADMIN } from '../server/src/testing/demoNames.ts';
import { createPubSubClient } from '../server/src/kv/redis.ts';
import { formIdOf, stepPath, whoAmI, type UserRef } from '../server/src/testing/plans.ts';

const STEP = 'attendancePlan';

interface EditorView {
  userId: string;
  email: string;
  stepKey: string | null;
}

const editorOf = (payload: { editors: EditorView[] }, email: string) => payload.editors.find((editor) => editor.email === email);

describe.skipIf(!process.env.DATABASE_URL || !process.env.REDIS_URL)('realtime events across two server processes', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  let principalOnA: HttpClient;
  let principalOnB: HttpClient;
  let adminOnB: HttpClient;
  let adminOnA: HttpClient;
  let teacherToken: string;
  let principalUser: UserRef;
  let formId: string;
  const sockets: RealtimeClient[] = [];

  async function socketOn(server: ServerProcess, token: string, label: string): Promise<RealtimeClient> {
    const socket = await connectRealtime(server.url, token, { label });
    sockets.push(socket);
    return socket;
  }

  let redisPrefix: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = sharedStoreEnv(database.databaseUrl!, process.env.REDIS_URL!, 'rt');
    redisPrefix = env.REDIS_PREFIX!;
    // One after the other: the first migrates and seeds the fresh database.
    a = await startServerProcess(env);
    b = await startServerProcess(env);
    const [principal, admin, teacher] = await signInAll(a.url, [PRINCIPAL_HARBOR, SUPERADMIN, 'teacher.riverside@example.org']);
    principalOnA = principal;
    principalOnB = clientWithToken(b, sessionToken(principal));
    adminOnB = clientWithToken(b, sessionToken(admin));
    adminOnA = admin;
    teacherToken = sessionToken(teacher);
    principalUser = await whoAmI(principalOnB);
    formId = await formIdOf(principalOnA, HARBOR);
  });

  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });

  afterAll(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  it('presence and lock events caused on process A reach a socket on process B, and back', async () => {
    const onB = await socketOn(b!, sessionToken(adminOnB), 'admin on B');
    expect(await onB.request('plan:join', { formId })).toEqual({ ok: true });
    const onA = await socketOn(a!, sessionToken(principalOnA), 'principal on A');

    // Presence: a socket joining on A.
    let since = onB.mark();
    expect(await onA.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    const joined = await onB.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === STEP, { since });
    expect(editorOf(joined, PRINCIPAL_HARBOR)).toMatchObject({ userId: principalUser.id, stepKey: STEP });
    // ...and the admin's own join on B is in the list A's socket receives.
    expect(editorOf(await onA.waitForEvent('presence', (p) => p.formId === formId && !!editorOf(p, SUPERADMIN)), SUPERADMIN)).toBeDefined();

    // Presence: presence:step on A, and a REST heartbeat sent to A.
    since = onB.mark();
    expect(await onA.request('presence:step', { formId, stepKey: 'counselingPlan' })).toEqual({ ok: true });
    await onB.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === 'counselingPlan', { since });
    since = onB.mark();
    expect((await principalOnA.post(`/api/forms/${formId}/editors/register`, { stepKey: STEP })).status).toBe(200);
    await onB.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === STEP, { since });
    // B's REST presence route sees what A registered.
    const { body: editorsOnB } = await adminOnB.get(`/api/forms/${formId}/editors`);
    expect((editorsOnB.editors as EditorView[]).map((editor) => editor.email).sort()).toEqual([PRINCIPAL_HARBOR, SUPERADMIN].sort());

    // Lock: a save and an unlock through A.
    since = onB.mark();
    const saved = await principalOnA.put(stepPath(formId, STEP), { stepData: { data: { att_barriers: 'Saved through A' } } });
    expect(saved.status, a!.output()).toBe(200);
    const acquired = await onB.waitForEvent('lock', (p) => p.formId === formId && p.state === 'acquired', { since });
    expect(acquired).toMatchObject({ formId, stepKey: STEP, state: 'acquired', lockedBy: { userId: principalUser.id, email: PRINCIPAL_HARBOR } });
    expect(await onB.waitForEvent('step:saved', (p) => p.formId === formId, { since })).toMatchObject({
      formId,
      stepKey: STEP,
      revisionCount: saved.body.revisionCount,
    });
    // B's lock list and B's refusal of another user's save agree with A's lock.
    const { body: locksOnB } = await adminOnB.get(`/api/forms/${formId}/locks`);
    expect(locksOnB.locks).toEqual([expect.objectContaining({ stepKey: STEP, lockedBy: acquired.lockedBy })]);
    expect((await adminOnB.put(stepPath(formId, STEP), { stepData: { data: { att_barriers: 'Admin through B' } } })).status).toBe(423);
    expect((await principalOnA.post(stepPath(formId, STEP, '/unlock'), {})).status).toBe(200);
    expect(await onB.waitForEvent('lock', (p) => p.formId === formId && p.state === 'released', { since })).toMatchObject({
      formId,
      stepKey: STEP,
      state: 'released',
    });

    // The other way: a save through B reaches the socket on A.
    const sinceA = onA.mark();
    expect((await adminOnB.put(stepPath(formId, STEP), { stepData: { data: { att_barriers: 'Admin through B' } } })).status).toBe(200);
    expect(await onA.waitForEvent('lock', (p) => p.formId === formId && p.state === 'acquired', { since: sinceA })).toMatchObject({
      lockedBy: { email: SUPERADMIN },
    });
    expect((await adminOnB.post(stepPath(formId, STEP, '/unlock'), {})).status).toBe(200);
    await onA.waitForEvent('lock', (p) => p.formId === formId && p.state === 'released', { since: sinceA });

    // Disconnecting on A: B hears that the principal left.
    since = onB.mark();
    onA.close();
    await onB.waitForEvent('presence', (p) => p.formId === formId && !editorOf(p, PRINCIPAL_HARBOR), { since });
  });

  it('presence stays while the same user still has a socket on the other process', async () => {
    const observer = await socketOn(b!, sessionToken(adminOnB), 'admin on B');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });
    const tabA = await socketOn(a!, sessionToken(principalOnA), 'principal tab on A');
    const tabB = await socketOn(b!, sessionToken(principalOnA), 'principal tab on B');
    expect(await tabA.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    expect(await tabB.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });

    const since = observer.mark();
    expect(await tabA.request('plan:leave', { formId })).toEqual({ ok: true });
    // The leave on A looked across processes and found the tab on B: the principal is still present.
    const { body } = await adminOnB.get(`/api/forms/${formId}/editors`);
    expect((body.editors as EditorView[]).map((editor) => editor.email)).toContain(PRINCIPAL_HARBOR);
    expect(observer.events.slice(since).filter((event) => event.name === 'presence' && !editorOf(event.payload, PRINCIPAL_HARBOR))).toEqual([]);
  });

  it('a step lock stays while its holder has a tab on the step on the other process, and goes with the last one', async () => {
    const observer = await socketOn(a!, sessionToken(adminOnA), 'admin on A');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });
    const tabA = await socketOn(a!, sessionToken(principalOnA), 'principal tab on A');
    const tabB = await socketOn(b!, sessionToken(principalOnA), 'principal tab on B');
    expect(await tabA.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    expect(await tabB.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    expect((await principalOnA.put(stepPath(formId, STEP), { stepData: { data: { att_barriers: 'Two processes, one lock' } } })).status).toBe(200);
    const heldSteps = async () => ((await adminOnB.get(`/api/forms/${formId}/locks`)).body.locks as { stepKey: string }[]).map((lock) => lock.stepKey);
    expect(await heldSteps()).toEqual([STEP]);

    // The tab on A moves on; A looks across processes, finds the tab on B still on the step, and keeps the lock.
    let since = observer.mark();
    expect(await tabA.request('presence:step', { formId, stepKey: 'counselingPlan' })).toEqual({ ok: true });
    expect(await tabB.request('presence:step', { formId, stepKey: STEP })).toEqual({ ok: true });
    await observer.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === STEP, { since });
    expect(await heldSteps()).toEqual([STEP]);

    // The tab on B closes: B releases the lock, A's observer hears it, and presence shows the step of the tab on A.
    since = observer.mark();
    tabB.close();
    expect(await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'released', { since })).toMatchObject({
      stepKey: STEP,
      lockedBy: { email: PRINCIPAL_HARBOR },
    });
    await observer.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === 'counselingPlan', { since });
    expect(await heldSteps()).toEqual([]);
  });

  it('a user without access cannot join on either process, and receives none of the plan’s events', async () => {
    const observer = await socketOn(a!, sessionToken(principalOnA), 'principal on A');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });
    const outsiders = [await socketOn(a!, teacherToken, 'teacher on A'), await socketOn(b!, teacherToken, 'teacher on B')];
    for (const outsider of outsiders) {
      expect(await outsider.request('plan:join', { formId, stepKey: STEP })).toMatchObject({ ok: false, error: expect.any(String) });
    }

    const since = observer.mark();
    expect((await adminOnB.post(`/api/forms/${formId}/editors/register`, { stepKey: STEP })).status).toBe(200);
    expect((await adminOnB.put(stepPath(formId, 'counselingPlan'), { stepData: { data: { csl_missionStatement: 'Every student' } } })).status).toBe(200);
    await observer.waitForEvent('presence', (p) => p.formId === formId && !!editorOf(p, SUPERADMIN), { since });
    await observer.waitForEvent('step:saved', (p) => p.formId === formId && p.stepKey === 'counselingPlan', { since });
    expect((await adminOnB.post(stepPath(formId, 'counselingPlan', '/unlock'), {})).status).toBe(200);
    await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'released', { since });

    for (const outsider of outsiders) {
      // A round trip after the broadcasts: anything sent to this socket arrived before the ack.
      expect(await outsider.request('plan:leave', { formId })).toEqual({ ok: true });
      expect(outsider.events).toEqual([]);
    }
  });

  it('revoking access through one process closes the live connections on the other', async () => {
    const teacher = clientWithToken(b!, teacherToken);
    const teacherUser = await whoAmI(teacher);
    const shared = await adminOnB.post('/api/admin/forms/share', { formId, userIds: [teacherUser.id], permissions: 'edit', sections: [] });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);

    // The shared user edits live and follows the plan on process A.
    const document = await openLiveClient(a!.url, teacherToken, formId, STEP, { label: 'teacher on A' });
    try {
      const socket = await socketOn(a!, teacherToken, 'teacher on A');
      expect(await socket.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
      const observer = await socketOn(b!, sessionToken(principalOnB), 'principal on B');
      expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });
      await observer.waitForEvent('presence', (p) => p.formId === formId && !!editorOf(p, teacherUser.email));

      // The share is removed through B.
      const since = observer.mark();
      const removed = await adminOnB.delete('/api/admin/forms/share', { formId, userIds: [teacherUser.id] });
      expect(removed.status, JSON.stringify(removed.body)).toBe(200);
      await waitFor('the collaboration connection on A to be closed', () => document.closes.length > 0 && !document.provider?.isAuthenticated, {
        timeoutMs: 10_000,
      });
      // The socket on A left the plan's room: presence without the teacher, and no more plan events.
      await observer.waitForEvent('presence', (p) => p.formId === formId && !editorOf(p, teacherUser.email), { since, timeoutMs: 10_000 });
      const afterLeave = socket.mark();
      expect((await principalOnB.put(stepPath(formId, 'counselingPlan'), { stepData: { data: { csl_selGoal: 'After the unshare' } } })).status).toBe(200);
      await observer.waitForEvent('step:saved', (p) => p.formId === formId && p.stepKey === 'counselingPlan', { since });
      expect(await socket.request('plan:join', { formId })).toMatchObject({ ok: false });
      expect(socket.events.slice(afterLeave)).toEqual([]);
    } finally {
      document.destroy();
    }
  });

  it('a review thread started on A reaches the principal on B live with its notification; the reply made on B reaches the reviewer on A', async () => {
    const principalSocket = await socketOn(b!, sessionToken(principalOnB), 'principal on B');
    const reviewerSocket = await socketOn(a!, sessionToken(adminOnA), 'reviewer on A');
    expect(await principalSocket.request('plan:join', { formId })).toEqual({ ok: true });
    expect(await reviewerSocket.request('plan:join', { formId })).toEqual({ ok: true });

    const sinceOnB = principalSocket.mark();
    const created = await adminOnA.post(`/api/forms/${formId}/comments`, { comment: 'Which day is the staff training?', questionId: 'cai_staffTrainingDate' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const threadId = created.body.comment._id as string;
    const started = await principalSocket.waitForEvent('comment', (payload) => payload.comment._id === threadId, { since: sinceOnB });
    expect(started.comment.comment).toBe('Which day is the staff training?');
    const { notification } = await principalSocket.waitForEvent('notification', (payload) => payload.notification.formId === formId, { since: sinceOnB });
    expect(notification.link).toContain(`thread=${threadId}`);

    const sinceOnA = reviewerSocket.mark();
    const replied = await principalOnB.post(`/api/forms/${formId}/comments/${threadId}/replies`, { body: 'The fourth of September.' });
    expect(replied.status, JSON.stringify(replied.body)).toBe(200);
    const reply = await reviewerSocket.waitForEvent('comment', (payload) => payload.comment._id === threadId && payload.comment.replies.length === 1, {
      since: sinceOnA,
    });
    expect(reply.comment.replies[0].body).toBe('The fourth of September.');
  });

  it('an event of a plan nobody follows is not published; once a socket on B follows it, a save on A reaches it', async () => {
    const riversideId = await formIdOf(adminOnA, RIVERSIDE);
    // What the processes publish to each other through Redis, read by a plain subscriber.
    const published: string[] = [];
    const listener = createPubSubClient(process.env.REDIS_URL!, () => {});
    listener.on('pmessageBuffer', (_pattern: Buffer, _channel: Buffer, message: Buffer) => published.push(message.toString('latin1')));
    await listener.psubscribe(`${redisPrefix}socket.io#*`);
    const aboutRiverside = () => published.filter((message) => message.includes(riversideId)).length;
    const save = (answer: string) => adminOnA.put(stepPath(riversideId, STEP), { stepData: { data: { att_barriers: answer } } });
    try {
      expect((await save('Nobody follows this plan')).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(aboutRiverside()).toBe(0);

      const onB = await socketOn(b!, sessionToken(adminOnB), 'admin watching on B');
      expect(await onB.request('plan:join', { formId: riversideId, watch: true })).toEqual({ ok: true });
      let saved = 0;
      await waitFor('a save on A reaches the socket on B', async () => {
        const since = onB.mark();
        expect((await save(`Followed from B ${++saved}`)).status).toBe(200);
        return onB
          .waitForEvent('step:saved', (p) => p.formId === riversideId, { since, timeoutMs: 300 })
          .then(() => true)
          .catch(() => false);
      });
      expect(saved, 'A heard of B’s room at once').toBe(1);

      expect(await onB.request('plan:leave', { formId: riversideId })).toEqual({ ok: true });
      // Once A has heard that B's room closed, saves publish nothing again.
      await waitFor('A to stop publishing the plan’s events', async () => {
        const before = aboutRiverside();
        expect((await save(`Nobody again ${Date.now()}`)).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return aboutRiverside() === before;
      });
    } finally {
      await listener.quit();
    }
  });
});
