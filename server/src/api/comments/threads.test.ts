/**
 * Review threads over HTTP against a real server: a thread at a question, replies, resolve and
 * reopen (also through the specification's PUT with `fixed`), the resolved list, mentions, who may
 * do each (reviewer, principal, an edit share limited to one step, a coordinator who only reads, a
 * teacher with no access, nobody), the notifications people get and their links, the live events,
 * and the e-mail items queued in the same transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { sessionToken, signInAll } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { createPlan, planPath, shareWith } from '../../testing/plans.ts';
import { insertUser, userByEmail } from '../../testing/users.ts';
import { connectRealtime, type RealtimeClient } from '../../testing/realtime.ts';
import { PRINCIPAL_HARBOR, SUPERADMIN } from '../../testing/demoNames.ts';
import { auditLogs, mailOutbox, notifications, plans } from '../../storage/schema.ts';
import type { UserRow } from '../../storage/rows.ts';

const QUESTION = { stepKey: 'childAbuseIntervention', questionId: 'cai_staffTrainingDate' };
const ATTENDANCE = 'attendancePlan';

let server: TestServer;
let reviewer: HttpClient;
let principal: HttpClient;
let coordinator: HttpClient;
let sectionEditor: HttpClient;
let teacher: HttpClient;
const people = {} as Record<'reviewer' | 'principal' | 'coordinator' | 'sectionEditor' | 'teacher', UserRow>;
let formId: string;
let schoolName: string;
let principalSocket: RealtimeClient;
const db = () => server.services.storage.db;

const threads = (client: HttpClient, status = 'all') => client.get(planPath(formId, `/comments?status=${status}`));
const notificationsOf = async (user: UserRow) =>
  db()
    .select()
    .from(notifications)
    .where(and(eq(notifications.userId, user.id), eq(notifications.formId, formId)));

beforeAll(async () => {
  server = await startTestServer({}, { mail: { poll: false } });
  [reviewer, principal] = await signInAll(server.url, [SUPERADMIN, PRINCIPAL_HARBOR]);
  formId = await createPlan(reviewer, 'Threads');
  [{ schoolName }] = (await db().select({ schoolName: plans.schoolName }).from(plans).where(eq(plans.id, formId))) as [{ schoolName: string }];
  // The plan's school: a coordinator who reads it; a teacher with an edit share limited to one step; a teacher with nothing.
  const coordinatorRow = await insertUser(server, { level: 2, schoolName, name: 'Cora Coordinator' });
  const sectionRow = await insertUser(server, { level: 1, schoolName, name: 'Sam Section' });
  const teacherRow = await insertUser(server, { level: 1, schoolName, name: 'Tess Teacher' });
  await shareWith(reviewer, formId, [sectionRow.id], 'edit', [ATTENDANCE]);
  [coordinator, sectionEditor, teacher] = await signInAll(server.url, [coordinatorRow.email, sectionRow.email, teacherRow.email]);
  Object.assign(people, {
    reviewer: await userByEmail(server, SUPERADMIN),
    principal: await userByEmail(server, PRINCIPAL_HARBOR),
    coordinator: coordinatorRow,
    sectionEditor: sectionRow,
    teacher: teacherRow,
  });
  principalSocket = await connectRealtime(server.url, sessionToken(principal), { label: 'principal' });
  expect(await principalSocket.request('plan:join', { formId })).toEqual({ ok: true });
});

afterAll(async () => {
  principalSocket?.close();
  await server?.stop();
});

describe('a thread at a question', () => {
  let threadId: string;

  it('the reviewer starts it; the principal hears of it live and in words, linking to the question', async () => {
    const since = principalSocket.mark();
    const created = await reviewer.post(planPath(formId, '/comments'), { comment: 'Please give the training date.', questionId: QUESTION.questionId });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    threadId = created.body.comment._id;
    // The step is found from the question.
    expect(created.body.comment).toMatchObject({ ...QUESTION, status: 'open', replies: [], resolvedAt: null, authorName: people.reviewer.name });

    const event = await principalSocket.waitForEvent('comment', (payload) => payload.comment._id === threadId, { since });
    expect(event.formId).toBe(formId);
    const { notification } = await principalSocket.waitForEvent('notification', (payload) => payload.notification.formId === formId, { since });
    expect(notification).toMatchObject({
      kind: 'comment',
      message: `${people.reviewer.name} commented on 2c. On what date will all staff be trained on recognizing and…`,
      link: `/plans/${formId}/step/2?thread=${threadId}`,
      readAt: null,
    });
    // The step's editors hear of it; a coordinator who only reads, and an editor of another step, do not.
    expect(await notificationsOf(people.coordinator)).toHaveLength(0);
    expect((await notificationsOf(people.sectionEditor)).map((note) => note.kind)).toEqual(['shared']);
    const mail = await db()
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.key, `comment:${threadId}:${people.principal.id}`));
    expect(mail[0]?.data).toMatchObject({ type: 'comment', where: { short: '2c' }, link: `/plans/${formId}/step/2?thread=${threadId}` });
    expect(JSON.stringify(mail[0]?.data)).not.toContain('training date.');
  });

  it('is shown to the plan’s readers, not to a share limited to another step, nor to someone with no access', async () => {
    for (const client of [reviewer, principal, coordinator]) {
      const listed = await threads(client);
      expect(listed.status).toBe(200);
      expect(listed.body.threads.map((thread: { _id: string }) => thread._id)).toEqual([threadId]);
    }
    expect((await threads(sectionEditor)).body.threads).toEqual([]);
    expect((await threads(teacher)).status).toBe(403);
    expect((await threads(new HttpClient(server.url))).status).toBe(401);
    const full = await coordinator.get(planPath(formId));
    expect(full.body.comments.map((comment: { _id: string }) => comment._id)).toEqual([threadId]);
  });

  it('the principal replies; the reviewer hears of it; readers and outsiders may not reply', async () => {
    const since = principalSocket.mark();
    const replied = await principal.post(planPath(formId, `/comments/${threadId}/replies`), { body: 'The training is on 4 September.' });
    expect(replied.status, JSON.stringify(replied.body)).toBe(200);
    expect(replied.body.comment.replies).toEqual([
      expect.objectContaining({ body: 'The training is on 4 September.', authorName: people.principal.name, authorId: people.principal.id, mentions: [] }),
    ]);
    const live = await principalSocket.waitForEvent('comment', (payload) => payload.comment._id === threadId && payload.comment.replies.length === 1, {
      since,
    });
    expect(live.comment.replies[0].body).toBe('The training is on 4 September.');
    const told = (await notificationsOf(people.reviewer)).find((note) => note.kind === 'reply');
    expect(told, JSON.stringify(await notificationsOf(people.reviewer))).toMatchObject({
      kind: 'reply',
      message: `${people.principal.name} replied on 2c. On what date will all staff be trained on recognizing and…`,
    });

    expect((await coordinator.post(planPath(formId, `/comments/${threadId}/replies`), { body: 'Me too' })).status).toBe(403);
    expect((await teacher.post(planPath(formId, `/comments/${threadId}/replies`), { body: 'Me too' })).status).toBe(403);
    // An editor of another step cannot reach this thread at all.
    expect((await sectionEditor.post(planPath(formId, `/comments/${threadId}/replies`), { body: 'Me too' })).status).toBe(404);
    expect((await principal.post(planPath(formId, `/comments/${'f'.repeat(24)}/replies`), { body: 'Lost' })).status).toBe(404);
    for (const bad of [{}, { body: '' }, { body: 'x', extra: 1 }, { body: 'x'.repeat(5001) }, { body: 'x', mentions: ['nope'] }]) {
      expect((await principal.post(planPath(formId, `/comments/${threadId}/replies`), bad)).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await threads(principal)).body.threads[0].replies).toHaveLength(1);
    // Only a reviewer starts a thread (the specification's route keeps its rule).
    expect((await principal.post(planPath(formId, '/comments'), { comment: 'Question for the district' })).status).toBe(403);
  });

  it('the reviewer resolves it: it leaves the open list for the Resolved one, for both; the school reopens it', async () => {
    const since = principalSocket.mark();
    const resolved = await reviewer.post(planPath(formId, `/comments/${threadId}/resolve`));
    expect(resolved.status).toBe(200);
    expect(resolved.body.comment).toMatchObject({ status: 'fixed', resolvedByName: people.reviewer.name, resolvedAt: expect.any(String) });
    await principalSocket.waitForEvent('comment', (payload) => payload.comment._id === threadId && payload.comment.status === 'fixed', { since });
    for (const client of [reviewer, principal]) {
      expect((await threads(client, 'open')).body.threads).toEqual([]);
      expect(
        (await threads(client, 'resolved')).body.threads.map((thread: { _id: string; replies: unknown[] }) => [thread._id, thread.replies.length]),
      ).toEqual([[threadId, 1]]);
    }
    expect((await principal.get(planPath(formId))).body.comments).toEqual([]);
    // The plan tells each person whether they may reply, resolve and reopen, as the routes decide it.
    const canDiscuss = async (client: HttpClient) => (await client.get(planPath(formId))).body.userPermission.canDiscuss;
    expect(await Promise.all([reviewer, principal, coordinator].map(canDiscuss))).toEqual([true, true, false]);

    expect((await coordinator.post(planPath(formId, `/comments/${threadId}/reopen`))).status).toBe(403);
    const reopened = await principal.post(planPath(formId, `/comments/${threadId}/reopen`));
    expect(reopened.body.comment).toMatchObject({ status: 'open', resolvedAt: null, resolvedByName: null });
    // The specification's PUT with `fixed` resolves too, recording who.
    const fixed = await principal.put(planPath(formId, `/comments/${threadId}`), { action: 'fixed' });
    expect(fixed.body.comment).toMatchObject({ status: 'fixed', resolvedByName: people.principal.name });
    // A reply opens a resolved thread again.
    const revived = await reviewer.post(planPath(formId, `/comments/${threadId}/replies`), { body: 'One more thing.' });
    expect(revived.body.comment).toMatchObject({ status: 'open', resolvedAt: null });
    const actions = await db().select({ action: auditLogs.action }).from(auditLogs).where(eq(auditLogs.targetId, formId));
    expect(actions.map((row) => row.action)).toEqual(expect.arrayContaining(['comment.create', 'comment.reply', 'comment.fixed', 'comment.reopen']));
  });
});

describe('mentions', () => {
  it('lists people who can read the plan, by the start of a name or e-mail, for its editors and reviewers', async () => {
    const found = await principal.get(planPath(formId, '/mentions?q=cor'));
    expect(found.status).toBe(200);
    expect(found.body.people).toEqual([{ _id: people.coordinator.id, name: 'Cora Coordinator', email: people.coordinator.email }]);
    const all = (await reviewer.get(planPath(formId, '/mentions'))).body.people.map((person: { _id: string }) => person._id);
    expect(all).toEqual(expect.arrayContaining([people.coordinator.id, people.principal.id, people.sectionEditor.id, people.reviewer.id]));
    expect(all).not.toContain(people.teacher.id);
    expect((await principal.get(planPath(formId, '/mentions?q=100%25'))).body.people).toEqual([]);
    expect((await coordinator.get(planPath(formId, '/mentions?q=a'))).status).toBe(403);
    expect((await teacher.get(planPath(formId, '/mentions?q=a'))).status).toBe(403);
  });

  it('a mentioned reader is told once, as a mention; someone who cannot read the thread cannot be mentioned', async () => {
    const refused = await reviewer.post(planPath(formId, '/comments'), {
      comment: '@Tess please look',
      stepKey: QUESTION.stepKey,
      mentions: [people.teacher.id],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual({ userIds: [people.teacher.id] });
    // The section editor reads only attendance: not a thread on another step.
    const elsewhere = await reviewer.post(planPath(formId, '/comments'), { comment: '@Sam', stepKey: QUESTION.stepKey, mentions: [people.sectionEditor.id] });
    expect(elsewhere.status).toBe(400);
    expect((await threads(reviewer)).body.threads).toHaveLength(1);

    const created = await reviewer.post(planPath(formId, '/comments'), {
      comment: '@Cora Coordinator and @Sam Section, please check the attendance team.',
      stepKey: ATTENDANCE,
      mentions: [people.coordinator.id, people.sectionEditor.id],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const threadId = created.body.comment._id;
    expect(created.body.comment.mentions).toEqual([people.coordinator.id, people.sectionEditor.id]);
    const [coordinatorNote] = await notificationsOf(people.coordinator);
    expect(coordinatorNote).toMatchObject({
      kind: 'mention',
      message: `${people.reviewer.name} mentioned you on step 6, Attendance Plan`,
      link: `/plans/${formId}/step/6?thread=${threadId}`,
    });
    // The section editor edits this step: mentioned, so told once (as a mention), not twice.
    const sectionNotes = (await notificationsOf(people.sectionEditor)).filter((note) => note.kind !== 'shared');
    expect(sectionNotes.map((note) => note.kind)).toEqual(['mention']);
    const principalNotes = (await notificationsOf(people.principal)).filter((note) => note.link?.includes(threadId));
    expect(principalNotes.map((note) => note.kind)).toEqual(['comment']);
    const items = await db().select({ key: mailOutbox.key }).from(mailOutbox).where(eq(mailOutbox.userId, people.coordinator.id));
    expect(items.map((item) => item.key)).toEqual([`mention:${threadId}:${people.coordinator.id}`]);
    // The section editor sees this thread (its step) and may reply in it.
    expect((await threads(sectionEditor)).body.threads.map((thread: { _id: string }) => thread._id)).toEqual([threadId]);
    expect((await sectionEditor.post(planPath(formId, `/comments/${threadId}/replies`), { body: 'Checked.', mentions: [people.principal.id] })).status).toBe(
      200,
    );
    expect((await notificationsOf(people.principal)).filter((note) => note.kind === 'mention')).toHaveLength(1);
  });

  it('while the district holds a plan the school cannot change its answers but still replies in its threads, as the plan says', async () => {
    const held = await createPlan(reviewer, 'Threads Held');
    expect((await principal.put(planPath(held), { action: 'submit' })).status).toBe(200);
    const thread = await reviewer.post(planPath(held, '/comments'), { comment: 'Which date?', questionId: QUESTION.questionId });
    expect((await principal.get(planPath(held))).body.userPermission).toMatchObject({ canEdit: false, canDiscuss: true });
    expect((await principal.post(planPath(held, `/comments/${thread.body.comment._id}/replies`), { body: 'The 4th.' })).status).toBe(200);
  });

  it('a comment on an unknown step or question changes nothing', async () => {
    const before = (await threads(reviewer)).body.threads.length;
    for (const body of [
      { comment: 'x', stepKey: 'noSuchStep' },
      { comment: 'x', questionId: 'no_such_question' },
      { comment: 'x', stepKey: ATTENDANCE, questionId: QUESTION.questionId },
    ]) {
      expect((await reviewer.post(planPath(formId, '/comments'), body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await threads(reviewer)).body.threads).toHaveLength(before);
  });
});
