/**
 * The Socket.IO gateway on /realtime (docs/collaboration.md), with real socket.io-client sockets
 * carrying the session cookie: handshake checks, plan rooms joined only with access, presence,
 * lock, comment, status, flag and step:saved events to the plan's room, notifications to the
 * user's room, lock expiry, and the REST presence routes showing the same state.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../testing/testServer.ts';
import { signIn, signInAll, sessionToken } from '../testing/signIn.ts';
import type { HttpClient } from '../testing/httpClient.ts';
import { plans, sessions } from '../storage/schema.ts';
import { SESSION_COOKIE, sessionIdOf } from '../auth/sessions.ts';
import { stepLockKey } from '../domain/plans/stepLocks.ts';
import { waitFor } from '../testing/wait.ts';
import { connectRealtime, realtimeRefusal, type RealtimeClient } from '../testing/realtime.ts';
import { startTcpProxy } from '../testing/tcpProxy.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../testing/demoNames.ts';
import { createPlan, formIdOf, shareWith, stepPath, whoAmI, type UserRef } from '../testing/plans.ts';
import type { Editor, StepLock } from '@csp/shared/api/forms';

const STEP = 'attendancePlan';

const sockets: RealtimeClient[] = [];

async function socketOf(server: TestServer, session: HttpClient | null, label: string): Promise<RealtimeClient> {
  const client = await connectRealtime(server.url, session ? sessionToken(session) : null, { label });
  sockets.push(client);
  return client;
}

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

/** Presence payload without the heartbeat time, sorted, for comparing socket and REST views. */
const withoutLastSeen = (editors: Editor[]) => editors.map(({ lastSeen: _lastSeen, ...editor }) => editor).sort((a, b) => a.email.localeCompare(b.email));

const editorOf = (payload: { editors: Editor[] }, email: string) => payload.editors.find((editor) => editor.email === email);

describe('realtime gateway', () => {
  let server: TestServer;
  let principal: HttpClient;
  let admin: HttpClient;
  let teacherRiverside: HttpClient;
  let principalUser: UserRef;
  let adminUser: UserRef;

  beforeAll(async () => {
    // A silent socket counts as gone after 2 s here (20 s by default), so a dropped network is seen quickly.
    server = await startTestServer({ REALTIME_TIMEOUT_SECONDS: '2' });
    [principal, admin, teacherRiverside] = await signInAll(server.url, [PRINCIPAL_HARBOR, SUPERADMIN, 'teacher.riverside@example.org']);
    [principalUser, adminUser] = await Promise.all([whoAmI(principal), whoAmI(admin)]);
  });
  afterAll(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await server?.stop();
  });

  describe('handshake', () => {
    it('fails without a session cookie, or with a cookie that is no session', async () => {
      expect(await realtimeRefusal(server.url, null)).toBe('Unauthorized');
      expect(await realtimeRefusal(server.url, 'not-a-session-token')).toBe('Unauthorized');
      expect(await realtimeRefusal(server.url, null, { cookie: `other=1; ${SESSION_COOKIE}=` })).toBe('Unauthorized');
    });

    it('refuses a foreign Origin even with a valid session; accepts its own origin', async () => {
      const message = await realtimeRefusal(server.url, sessionToken(principal), { origin: 'https://evil.example.com' });
      expect(message).toBeTruthy();
      const own = await connectRealtime(server.url, sessionToken(principal), { origin: new URL(server.url).origin, label: 'same origin' });
      sockets.push(own);
      expect(own.socket.connected).toBe(true);
    });

    it('one process also takes a long-polling handshake, as Socket.IO clients start by default', async () => {
      const polling = await principal.request('GET', '/realtime/?EIO=4&transport=polling');
      expect(polling.status).toBe(200);
      expect(await polling.text()).toContain('"sid"');
    });
  });

  it('a socket whose session ends (sign-out) is disconnected', async () => {
    const formId = await createPlan(admin, 'SignOut');
    const session = await signIn(server.url, PRINCIPAL_HARBOR);
    const token = sessionToken(session);
    const socket = await socketOf(server, session, 'signing out');
    expect(await socket.request('plan:join', { formId })).toEqual({ ok: true });
    const disconnected = new Promise<string>((resolve) => socket.socket.once('disconnect', (reason) => resolve(reason)));
    expect((await session.post('/api/auth/signout', {})).status).toBe(200);
    expect(await disconnected).toBe('io server disconnect');
    // The ended session cannot open a new socket either.
    expect(await realtimeRefusal(server.url, token)).toBe('Unauthorized');
  });

  it('plan:join acks { ok: true } with access and { ok: false, error, code } without; the refused user gets none of the plan’s events', async () => {
    const formId = await createPlan(admin, 'Join');
    const observer = await socketOf(server, admin, 'admin');
    const outsider = await socketOf(server, teacherRiverside, 'teacher.riverside');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });

    // Each refusal carries its message and the kind of the server's error, as HTTP answers carry a status.
    const refusal = (code: string) => ({ ok: false, error: expect.any(String), code });
    expect(await outsider.request('plan:join', { formId, stepKey: STEP })).toEqual(refusal('forbidden'));
    expect(await outsider.request('plan:join', { formId: 'not-an-id' })).toEqual(refusal('invalid'));
    expect(await outsider.request('plan:join', { formId: 'f'.repeat(24) })).toEqual(refusal('not-found'));
    expect(await outsider.request('presence:step', { formId, stepKey: STEP })).toEqual(refusal('conflict'));
    expect(await outsider.request('presence:step', { formId })).toEqual(refusal('invalid'));
    // Harbor's own plan is refused too (another school).
    expect(await outsider.request('plan:join', { formId: await formIdOf(principal, HARBOR) })).toEqual(refusal('forbidden'));
    // An unknown step of a permitted plan is refused.
    expect(await observer.request('plan:join', { formId, stepKey: 'noSuchStep' })).toEqual(refusal('not-found'));

    // Activity on the plan: presence, a lock and a save, a comment.
    const since = observer.mark();
    const owner = await socketOf(server, principal, 'principal');
    expect(await owner.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    expect((await principal.put(stepPath(formId, STEP), { stepData: { data: { att_barriers: 'Join test' } } })).status).toBe(200);
    expect((await admin.post(`/api/forms/${formId}/comments`, { comment: 'Join test comment' })).status).toBe(200);
    await observer.waitForEvent('presence', (p) => p.formId === formId && !!editorOf(p, PRINCIPAL_HARBOR), { since });
    await observer.waitForEvent('lock', (p) => p.formId === formId, { since });
    await observer.waitForEvent('step:saved', (p) => p.formId === formId, { since });
    await observer.waitForEvent('comment', (p) => p.formId === formId, { since });

    // A round trip on the outsider's socket after those emits: anything broadcast to it came first.
    expect(await outsider.request('plan:leave', { formId })).toEqual({ ok: true });
    expect(outsider.events).toEqual([]);
  });

  it('presence on join, presence:step, leave and disconnect; the REST presence routes show the same state', async () => {
    const formId = await createPlan(admin, 'Presence');
    const observer = await socketOf(server, admin, 'admin');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });
    const own = await observer.waitForEvent('presence', (p) => p.formId === formId && !!editorOf(p, SUPERADMIN));
    expect(editorOf(own, SUPERADMIN)).toMatchObject({ userId: adminUser.id, name: adminUser.name, stepKey: null });

    const restEditors = async () => {
      const { status, body } = await principal.get(`/api/forms/${formId}/editors`);
      expect(status, JSON.stringify(body)).toBe(200);
      return body.editors as Editor[];
    };

    // Join with a step.
    const tab = await socketOf(server, principal, 'principal');
    let since = observer.mark();
    expect(await tab.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    const joined = await observer.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === STEP, { since });
    expect(editorOf(joined, PRINCIPAL_HARBOR)).toEqual({
      userId: principalUser.id,
      name: principalUser.name,
      email: PRINCIPAL_HARBOR,
      stepKey: STEP,
      lastSeen: expect.any(String),
    });
    expect(new Date(editorOf(joined, PRINCIPAL_HARBOR)!.lastSeen).toISOString()).toBe(editorOf(joined, PRINCIPAL_HARBOR)!.lastSeen);
    expect(withoutLastSeen(await restEditors())).toEqual(withoutLastSeen(joined.editors));
    // The joining socket hears it too.
    await tab.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === STEP);

    // Move to another step.
    since = observer.mark();
    expect(await tab.request('presence:step', { formId, stepKey: 'counselingPlan' })).toEqual({ ok: true });
    const moved = await observer.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === 'counselingPlan', { since });
    expect(withoutLastSeen(await restEditors())).toEqual(withoutLastSeen(moved.editors));

    // A REST heartbeat (another tab without a socket) reaches the sockets.
    since = observer.mark();
    const registered = await principal.post(`/api/forms/${formId}/editors/register`, { stepKey: 'temporaryHousing' });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const viaRest = await observer.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === 'temporaryHousing', {
      since,
    });
    expect(withoutLastSeen(viaRest.editors)).toEqual(withoutLastSeen(registered.body.editors));

    // Leave.
    since = observer.mark();
    expect(await tab.request('plan:leave', { formId })).toEqual({ ok: true });
    const left = await observer.waitForEvent('presence', (p) => p.formId === formId && !editorOf(p, PRINCIPAL_HARBOR), { since });
    expect(left.editors.map((editor: Editor) => editor.email)).toEqual([SUPERADMIN]);
    expect(withoutLastSeen(await restEditors())).toEqual(withoutLastSeen(left.editors));

    // Join again, then disconnect.
    since = observer.mark();
    expect(await tab.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    await observer.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === STEP, { since });
    since = observer.mark();
    tab.close();
    const gone = await observer.waitForEvent('presence', (p) => p.formId === formId && !editorOf(p, PRINCIPAL_HARBOR), { since });
    expect(gone.editors.map((editor: Editor) => editor.email)).toEqual([SUPERADMIN]);
    expect(withoutLastSeen(await restEditors())).toEqual(withoutLastSeen(gone.editors));
  });

  it('a watching socket hears the plan’s events without being present, and does not keep its user present', async () => {
    const formId = await createPlan(admin, 'Watch');
    const dashboard = await socketOf(server, principal, 'principal dashboard');
    expect(await dashboard.request('plan:join', { formId, watch: true })).toEqual({ ok: true });
    expect(await (await socketOf(server, teacherRiverside, 'outsider')).request('plan:join', { formId, watch: true })).toMatchObject({ ok: false });

    // Someone else arrives: the watcher hears it, and is not in the list itself.
    const observer = await socketOf(server, admin, 'admin');
    expect(await observer.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    const arrived = await dashboard.waitForEvent('presence', (p) => p.formId === formId && !!editorOf(p, SUPERADMIN));
    expect(arrived.editors.map((editor: Editor) => editor.email)).toEqual([SUPERADMIN]);

    // The same user on the plan in another tab, then leaving it: presence goes although the watcher stays.
    const tab = await socketOf(server, principal, 'principal on the plan');
    let since = dashboard.mark();
    expect(await tab.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    await dashboard.waitForEvent('presence', (p) => p.formId === formId && !!editorOf(p, PRINCIPAL_HARBOR), { since });
    since = dashboard.mark();
    expect(await tab.request('plan:leave', { formId })).toEqual({ ok: true });
    const left = await dashboard.waitForEvent('presence', (p) => p.formId === formId && !editorOf(p, PRINCIPAL_HARBOR), { since });
    expect(left.editors.map((editor: Editor) => editor.email)).toEqual([SUPERADMIN]);

    // Leaving stops the events.
    expect(await dashboard.request('plan:leave', { formId })).toEqual({ ok: true });
    since = dashboard.mark();
    expect(await observer.request('presence:step', { formId, stepKey: 'counselingPlan' })).toEqual({ ok: true });
    await observer.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, SUPERADMIN)?.stepKey === 'counselingPlan');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(dashboard.events.slice(since).filter((event) => event.name === 'presence')).toEqual([]);
  });

  it('presence stays while another socket of the same user is still on the plan', async () => {
    const formId = await createPlan(admin, 'TwoTabs');
    const observer = await socketOf(server, admin, 'admin');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });
    const tab1 = await socketOf(server, principal, 'tab 1');
    const tab2 = await socketOf(server, principal, 'tab 2');
    expect(await tab1.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    expect(await tab2.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    const tab1Id = tab1.socket.id!;
    tab1.close();
    // Tab 2 is still there: once the server has dropped tab 1, a round trip on tab 2, then the presence is unchanged.
    const { io } = server.realtime;
    await waitFor('the server to drop tab 1', () => !io.of('/').sockets.has(tab1Id));
    expect(await tab2.request('presence:step', { formId, stepKey: STEP })).toEqual({ ok: true });
    const { body } = await principal.get(`/api/forms/${formId}/editors`);
    expect((body.editors as Editor[]).map((editor) => editor.email).sort()).toEqual([PRINCIPAL_HARBOR, SUPERADMIN].sort());
  });

  it('a step lock goes once none of its holder’s tabs is on the step: moved away, closed, left; presence shows the step a remaining tab is on', async () => {
    const formId = await createPlan(admin, 'Lock follows presence');
    const observer = await socketOf(server, admin, 'admin');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });
    const heldSteps = async () =>
      ((await admin.get(`/api/forms/${formId}/locks`)).body.locks as StepLock[]).map((lock) => `${lock.stepKey} ${lock.lockedBy.email}`);
    const save = async (client: HttpClient, stepKey: string, data: Record<string, string>) =>
      expect((await client.put(stepPath(formId, stepKey), { stepData: { data } })).status).toBe(200);
    const tab1 = await socketOf(server, principal, 'tab 1');
    const tab2 = await socketOf(server, principal, 'tab 2');
    expect(await tab1.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    expect(await tab2.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    await save(principal, STEP, { att_coordinatorName: 'Two tabs' });
    expect(await heldSteps()).toEqual([`${STEP} ${PRINCIPAL_HARBOR}`]);

    // Tab 1 moves on while tab 2 stays on the step: the lock stays.
    let since = observer.mark();
    expect(await tab1.request('presence:step', { formId, stepKey: 'counselingPlan' })).toEqual({ ok: true });
    expect(await tab2.request('presence:step', { formId, stepKey: STEP })).toEqual({ ok: true });
    await observer.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === STEP, { since });
    expect(await heldSteps()).toEqual([`${STEP} ${PRINCIPAL_HARBOR}`]);
    expect(observer.events.slice(since).filter((event) => event.name === 'lock')).toEqual([]);

    // Tab 2 is closed: nobody of theirs is on the step. The lock is released, and presence shows tab 1's step.
    since = observer.mark();
    tab2.close();
    expect(await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'released', { since })).toMatchObject({
      stepKey: STEP,
      lockedBy: { userId: principalUser.id, email: PRINCIPAL_HARBOR },
    });
    await observer.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === 'counselingPlan', { since });
    expect(await heldSteps()).toEqual([]);

    // Back on the step, a save takes it again; leaving the plan releases it.
    expect(await tab1.request('presence:step', { formId, stepKey: STEP })).toEqual({ ok: true });
    await save(principal, STEP, { att_coordinatorName: 'Back again' });
    since = observer.mark();
    expect(await tab1.request('plan:leave', { formId })).toEqual({ ok: true });
    await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'released' && p.stepKey === STEP, { since });
    expect(await heldSteps()).toEqual([]);

    // Someone else's lock stays whoever comes and goes.
    await save(admin, 'counselingPlan', { csl_missionStatement: 'The admin’s words' });
    expect(await tab1.request('plan:join', { formId, stepKey: 'counselingPlan' })).toEqual({ ok: true });
    expect(await tab1.request('presence:step', { formId, stepKey: STEP })).toEqual({ ok: true });
    expect(await tab1.request('plan:leave', { formId })).toEqual({ ok: true });
    expect(await heldSteps()).toEqual([`counselingPlan ${SUPERADMIN}`]);
  });

  it('a socket whose network drops without a word leaves presence and its step lock once the silence passes the timeout', async () => {
    const formId = await createPlan(admin, 'Dropped network');
    const observer = await socketOf(server, admin, 'admin');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });
    // The principal's tab reaches the server through a proxy that will stop carrying bytes, closing nothing.
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port });
    try {
      const tab = await connectRealtime(`http://127.0.0.1:${proxy.port}`, sessionToken(principal), { label: 'principal behind the proxy' });
      sockets.push(tab);
      expect(await tab.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
      await observer.waitForEvent('presence', (p) => p.formId === formId && editorOf(p, PRINCIPAL_HARBOR)?.stepKey === STEP);
      expect((await principal.put(stepPath(formId, STEP), { stepData: { data: { att_barriers: 'Then the train went into a tunnel' } } })).status).toBe(200);
      await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'acquired');

      const since = observer.mark();
      proxy.freeze();
      await observer.waitForEvent('presence', (p) => p.formId === formId && !editorOf(p, PRINCIPAL_HARBOR), { since });
      expect(await observer.waitForEvent('lock', (p) => p.formId === formId, { since })).toMatchObject({ stepKey: STEP, state: 'released' });
      expect((await admin.get(`/api/forms/${formId}/locks`)).body.locks).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('the periodic heartbeat renews the presence of every open socket whose session is still valid, at once', async () => {
    const formId = await createPlan(admin, 'Heartbeat');
    const coordinator = await signIn(server.url, 'coordinator.harbor@example.org');
    await shareWith(admin, formId, [(await whoAmI(coordinator)).id], 'edit');
    const tab = await socketOf(server, principal, 'principal');
    const ended = await socketOf(server, coordinator, 'coordinator');
    expect(await tab.request('plan:join', { formId, stepKey: STEP })).toEqual({ ok: true });
    expect(await ended.request('plan:join', { formId })).toEqual({ ok: true });
    const editors = async () =>
      ((await principal.get(`/api/forms/${formId}/editors`)).body.editors as Editor[]).map((editor) => [editor.email, editor.stepKey]);
    expect((await editors()).sort()).toEqual(
      [
        [PRINCIPAL_HARBOR, STEP],
        ['coordinator.harbor@example.org', null],
      ].sort(),
    );

    // Both entries lapse; the coordinator's session expires while the socket stays open.
    const db = server.services.storage.db;
    await db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(sessions.id, sessionIdOf(sessionToken(coordinator))));
    for (const email of [PRINCIPAL_HARBOR, 'coordinator.harbor@example.org']) await server.services.kv.hashDelete(`presence:${formId}`, email);
    expect(await editors()).toEqual([]);

    await server.realtime.refreshPresence();
    expect(await editors()).toEqual([[PRINCIPAL_HARBOR, STEP]]);
  });

  it('keeps the step lock of an editor whose socket is on that step, and no one else’s', async () => {
    const formId = await createPlan(admin, 'Lock renewal');
    expect((await principal.put(stepPath(formId, STEP), { stepData: { data: { att_coordinatorName: 'Renewed' } } })).status).toBe(200);
    const key = stepLockKey(formId, STEP);
    const ttlOf = async () => (await server.services.kv.getMany([key]))[0]?.ttlMs ?? 0;
    // The lock is about to lapse; a heartbeat from a socket on another step must not renew it.
    expect(await server.services.kv.extend(key, principalUser.id, 5_000)).toBe(true);
    const tab = await socketOf(server, principal, 'principal');
    expect(await tab.request('plan:join', { formId, stepKey: 'counselingPlan' })).toEqual({ ok: true });
    await server.realtime.refreshPresence();
    expect(await ttlOf()).toBeLessThanOrEqual(5_000);
    // Once the editor is on the locked step, the heartbeat renews the full lock time.
    expect(await tab.request('presence:step', { formId, stepKey: STEP })).toEqual({ ok: true });
    await server.realtime.refreshPresence();
    expect(await ttlOf()).toBeGreaterThan(60_000);
  });

  it('lock acquired after a REST save and released after unlock; step:saved after the save', async () => {
    const formId = await createPlan(admin, 'Locks');
    const observer = await socketOf(server, admin, 'admin');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });

    let since = observer.mark();
    const save = await principal.put(stepPath(formId, STEP), { stepData: { data: { att_coordinatorName: 'Lock holder' } } });
    expect(save.status, JSON.stringify(save.body)).toBe(200);
    const acquired = await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'acquired', { since });
    expect(acquired).toMatchObject({
      formId,
      stepKey: STEP,
      state: 'acquired',
      lockedBy: { userId: principalUser.id, name: principalUser.name, email: PRINCIPAL_HARBOR },
    });
    const saved = await observer.waitForEvent('step:saved', (p) => p.formId === formId, { since });
    expect(saved).toEqual({
      formId,
      stepKey: STEP,
      revisionCount: save.body.revisionCount,
      lastUpdated: save.body.lastUpdated,
      by: { userId: principalUser.id, name: principalUser.name },
    });

    // The REST lock list shows the lock the event announced.
    const { body: lockList } = await admin.get(`/api/forms/${formId}/locks`);
    expect(lockList.locks).toEqual([expect.objectContaining({ stepKey: STEP, lockedBy: acquired.lockedBy, isCurrentUser: false })]);

    // A renewal (second save by the holder) is a save, not a new acquisition.
    since = observer.mark();
    const again = await principal.put(stepPath(formId, STEP), { stepData: { data: { att_coordinatorName: 'Lock holder 2' } } });
    expect(again.status).toBe(200);
    const savedAgain = await observer.waitForEvent('step:saved', (p) => p.formId === formId, { since });
    expect(savedAgain.revisionCount).toBe(again.body.revisionCount);

    const unlocked = await principal.post(stepPath(formId, STEP, '/unlock'), {});
    expect(unlocked.status, JSON.stringify(unlocked.body)).toBe(200);
    const released = await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'released', { since });
    expect(released).toMatchObject({ formId, stepKey: STEP, state: 'released', lockedBy: { userId: principalUser.id, email: PRINCIPAL_HARBOR } });
    expect(observer.events.slice(since).filter((event) => event.name === 'lock' && event.payload.state === 'acquired')).toEqual([]);
  });

  it('comment to the plan room and a notification to the owner’s user room', async () => {
    const formId = await createPlan(admin, 'Comments');
    const observer = await socketOf(server, admin, 'admin');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });
    // The owner's socket is connected but has not joined the plan: user room only.
    const inbox = await socketOf(server, principal, 'owner inbox');

    const since = observer.mark();
    const created = await admin.post(`/api/forms/${formId}/comments`, {
      comment: 'Please add the committee dates.',
      stepKey: STEP,
      questionId: 'att_committeeSchedule',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const comment = await observer.waitForEvent('comment', (p) => p.formId === formId, { since });
    expect(comment).toEqual({ formId, comment: created.body.comment });
    expect(comment.comment).toMatchObject({
      comment: 'Please add the committee dates.',
      stepKey: STEP,
      questionId: 'att_committeeSchedule',
      authorId: adminUser.id,
      status: 'open',
    });

    const ping = await inbox.waitForEvent('notification', (p) => p.notification?.formId === formId);
    expect(ping.notification).toMatchObject({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      formId,
      kind: 'comment',
      message: expect.any(String),
      readAt: null,
    });
    // The same notification is what the REST inbox lists.
    const { body: listed } = await principal.get('/api/notifications');
    expect(listed.notifications).toContainEqual(ping.notification);
    // The inbox socket is not in the plan's room.
    expect(inbox.events.filter((event) => event.name !== 'notification')).toEqual([]);
    // The Super Admin is not the owner: no notification to the admin.
    expect(observer.events.filter((event) => event.name === 'notification')).toEqual([]);
  });

  it('status on submit and review, with a notification to the owner on review', async () => {
    const formId = await createPlan(admin, 'Status');
    const observer = await socketOf(server, principal, 'owner');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });

    let since = observer.mark();
    const submitted = await principal.put(`/api/forms/${formId}`, { action: 'submit' });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(await observer.waitForEvent('status', (p) => p.formId === formId, { since })).toMatchObject({ formId, status: 'submitted' });

    since = observer.mark();
    const reviewed = await admin.put(`/api/forms/${formId}`, { action: 'review' });
    expect(reviewed.status, JSON.stringify(reviewed.body)).toBe(200);
    expect(await observer.waitForEvent('status', (p) => p.formId === formId, { since })).toMatchObject({ formId, status: 'under_review' });
    const ping = await observer.waitForEvent('notification', (p) => p.notification?.formId === formId && p.notification.kind === 'review', { since });
    expect(ping.notification.message).toContain('under review');

    since = observer.mark();
    expect((await admin.put(`/api/forms/${formId}`, { action: 'review', status: 'approved', comment: 'Well done' })).status).toBe(200);
    expect(await observer.waitForEvent('status', (p) => p.formId === formId, { since })).toMatchObject({ formId, status: 'approved' });
    await observer.waitForEvent('notification', (p) => p.notification?.formId === formId && p.notification.message.includes('Well done'), { since });
  });

  it('flag when a review flag is cleared', async () => {
    const formId = await createPlan(admin, 'Flags');
    await server.services.storage.db
      .update(plans)
      .set({
        needsUpdate: [
          { questionId: 'att_barriers', stepKey: STEP, reason: 'revisit', label: 'Same as last year: confirm names, dates and targets' },
          { questionId: 'att_strategy', stepKey: STEP, reason: 'revisit', label: 'Same as last year: confirm names, dates and targets' },
        ],
      })
      .where(eq(plans.id, formId));
    const observer = await socketOf(server, admin, 'admin');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });

    const since = observer.mark();
    const cleared = await principal.post(`/api/forms/${formId}/review-flag`, { questionId: 'att_barriers', stepKey: STEP });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(await observer.waitForEvent('flag', (p) => p.formId === formId, { since })).toEqual({ formId, stepKey: STEP, questionId: 'att_barriers' });
    expect(cleared.body.needsUpdate).toEqual([expect.objectContaining({ questionId: 'att_strategy' })]);
  });
});

describe('lock expiry (STEP_LOCK_TTL_SECONDS=2, a server of its own)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ STEP_LOCK_TTL_SECONDS: '2' });
  });
  afterAll(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await server?.stop();
  });

  it('announces expired when the lock lapses without a release', async () => {
    const [principal, admin] = await signInAll(server.url, [PRINCIPAL_HARBOR, SUPERADMIN]);
    const principalUser = await whoAmI(principal);
    const formId = await formIdOf(principal, HARBOR);
    const observer = await socketOf(server, admin, 'admin');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });

    const since = observer.mark();
    expect((await principal.put(stepPath(formId, STEP), { stepData: { data: { att_barriers: 'Will expire' } } })).status).toBe(200);
    await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'acquired', { since });
    const expired = await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'expired', { since, timeoutMs: 20_000 });
    expect(expired).toMatchObject({ formId, stepKey: STEP, state: 'expired', lockedBy: { userId: principalUser.id, email: PRINCIPAL_HARBOR } });
    const { body } = await admin.get(`/api/forms/${formId}/locks`);
    expect(body.locks).toEqual([]);
    // After the expiry the other user's save takes the step.
    expect((await admin.put(stepPath(formId, STEP), { stepData: { data: { att_barriers: 'Admin after expiry' } } })).status).toBe(200);
  });
});
