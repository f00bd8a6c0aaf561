/**
 * The JSON the server really sends, read with the shared response schemas the web client parses
 * (shared/src/api/*.ts): for the demo district, every route and realtime event those schemas
 * describe is called or provoked on a real server, parsed with `schema.parse`, and searched for
 * keys the schema does not declare, at any depth. (Zod objects strip unknown keys without a word,
 * so a field the server sends that the schema lacks would otherwise pass unnoticed.) Last, every
 * answer the suite received, sign-ins and errors included, is checked against the OpenAPI document
 * the server serves, and every operation the document lists must have answered at least once.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { currentSchoolYear, nextSchoolYear, previousSchoolYear } from '@csp/shared';
import {
  attestResponseSchema,
  commentResponseSchema,
  compareResponseSchema,
  duplicateResponseSchema,
  editorsResponseSchema,
  emailShareResponseSchema,
  fullPlanSchema,
  lockedErrorSchema,
  locksResponseSchema,
  planListSchema,
  planUpdateResponseSchema,
  reviewFlagResponseSchema,
  stepResponseSchema,
  transferCandidatesSchema,
  transferResponseSchema,
} from '@csp/shared/api/forms';
import { auditActorListSchema, auditLogListSchema } from '@csp/shared/api/audit';
import { bulkResponseSchema, importResponseSchema, userListSchema, userSchoolsSchema, userWriteResponseSchema } from '@csp/shared/api/users';
import { previewResponseSchema, sessionSchema } from '@csp/shared/api/auth';
import { markNotificationReadResponseSchema, notificationListSchema } from '@csp/shared/api/notifications';
import { questionBankResponseSchema } from '@csp/shared/api/questionBank';
import { adminBankSchema, adminBankViewSchema, publishResponseSchema } from '@csp/shared/api/questionBankAdmin';
import { errorBodySchema, successSchema } from '@csp/shared/api/common';
import { deleteYearResponseSchema, yearListSchema, yearSettingsResponseSchema, yearSettingsSchema } from '@csp/shared/api/schoolYears';
import {
  liveResponseSchema,
  planSharesSchema,
  rolloverProgressResponseSchema,
  rolloverResultSchema,
  shareResponseSchema,
  unshareResponseSchema,
} from '@csp/shared/api/admin';
import { clientErrorResponseSchema, publicOverviewSchema } from '@csp/shared/api/public';
import { adminHealthSchema, healthSchema } from '@csp/shared/api/health';
import { notStartedListSchema, statusTimelineSchema, yearFiguresSchema } from '@csp/shared/api/reports';
import {
  commentEventSchema,
  flagEventSchema,
  lockEventSchema,
  notificationEventSchema,
  presenceEventSchema,
  rolloverEventSchema,
  statusEventSchema,
  stepSavedEventSchema,
} from '@csp/shared/api/realtime';
import { historyResponseSchema, planVersionSchema, restoreResponseSchema, versionListSchema } from '@csp/shared/api/history';
import { startTestServer, type TestServer } from '../testing/testServer.ts';
import { signInAll } from '../testing/signIn.ts';
import { HttpClient, onExchange, type Exchange } from '../testing/httpClient.ts';
import { OpenApiConformance } from '../testing/openapiConformance.ts';
import { SESSION_COOKIE } from '../auth/sessions.ts';
import { connectRealtime, type RealtimeClient } from '../testing/realtime.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../testing/demoNames.ts';
import { createPlan, formIdOf, planPath, stepPath, whoAmI } from '../testing/plans.ts';
import { waitFor } from '../testing/wait.ts';
import { userByEmail } from '../testing/users.ts';
import { mailMessages } from '../storage/schema.ts';
import { unsubscribeToken } from '../mail/unsubscribeToken.ts';
import { mailboxSchema, mailSettingsSchema, unsubscribeResponseSchema } from '@csp/shared/mail';
import { mentionListSchema, threadListSchema } from '@csp/shared/api/forms';
import { stepAt } from '../testing/bundledBank.ts';

const YEAR = currentSchoolYear();
const PREVIOUS_YEAR = previousSchoolYear(YEAR);
/** A year no plan and no stored settings exist for. */
const EMPTY_YEAR = '2090-2091';
const STEP = 6;
const STEP_KEY = stepAt(STEP).key;
const TABLE_ANSWER = { headers: ['Name', 'Role'], rows: [['Ana Diaz', 'Attendance teacher']] };

/** Paths of the keys in `value` that `schema` does not declare, at any depth (open objects excepted). */
function undeclaredKeys(schema: z.ZodType, value: unknown, path = 'body'): string[] {
  if (value === null || value === undefined) return [];
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault || schema instanceof z.ZodReadonly) {
    return undeclaredKeys(schema.unwrap() as z.ZodType, value, path);
  }
  if (schema instanceof z.ZodPipe) return undeclaredKeys(schema.in as z.ZodType, value, path);
  if (schema instanceof z.ZodUnion) {
    const option = (schema.options as readonly z.ZodType[]).find((candidate) => candidate.safeParse(value).success);
    return option ? undeclaredKeys(option, value, path) : [];
  }
  if (typeof value !== 'object') return [];
  if (schema instanceof z.ZodArray) {
    return Array.isArray(value) ? value.flatMap((item, index) => undeclaredKeys(schema.element as z.ZodType, item, `${path}[${index}]`)) : [];
  }
  if (schema instanceof z.ZodRecord) {
    return Object.entries(value).flatMap(([key, item]) => undeclaredKeys(schema.valueType as z.ZodType, item, `${path}.${key}`));
  }
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, z.ZodType>;
    const catchall = schema.def.catchall;
    const open = catchall !== undefined && !(catchall instanceof z.ZodNever);
    return Object.entries(value).flatMap(([key, item]) => {
      const field = shape[key];
      if (field) return undeclaredKeys(field, item, `${path}.${key}`);
      return open ? [] : [`${path}.${key}`];
    });
  }
  return [];
}

/** `schema.parse(body)`, and no key in the body the schema lacks. Returns the parsed body. */
function conforms<S extends z.ZodType>(schema: S, body: unknown, what: string): z.infer<S> {
  const parsed = schema.parse(body);
  expect(undeclaredKeys(schema, body), `${what}: keys the schema does not declare`).toEqual([]);
  return parsed;
}

async function ok(response: Promise<{ status: number; body: any }>, status = 200): Promise<any> {
  const { status: actual, body } = await response;
  expect(actual, JSON.stringify(body)).toBe(status);
  return body;
}

const PLAN_EVENTS = {
  presence: presenceEventSchema,
  lock: lockEventSchema,
  comment: commentEventSchema,
  status: statusEventSchema,
  flag: flagEventSchema,
  'step:saved': stepSavedEventSchema,
} as const;

describe('the key check', () => {
  it('finds keys a schema lacks at any depth, and only those', () => {
    const comment = {
      _id: 'a'.repeat(24),
      formId: 'b'.repeat(24),
      stepKey: null,
      questionId: null,
      comment: 'Looks good',
      authorId: null,
      authorName: 'Dana Whitfield',
      status: 'open',
      createdAt: '2026-11-22T12:00:00.000Z',
      updatedAt: '2026-11-22T12:00:00.000Z',
      mentions: [],
      replies: [],
      resolvedAt: null,
      resolvedByName: null,
    };
    expect(undeclaredKeys(commentResponseSchema, { success: true, comment })).toEqual([]);
    expect(undeclaredKeys(commentResponseSchema, { success: true, comment: { ...comment, secret: 'x' }, extra: 1 })).toEqual([
      'body.comment.secret',
      'body.extra',
    ]);
    const step = { completed: false, data: { q: TABLE_ANSWER }, revisionCount: 1, lastUpdated: null, updatedBy: 'x' };
    expect(undeclaredKeys(fullPlanSchema.shape.formData, { [STEP_KEY]: step })).toEqual([`body.${STEP_KEY}.updatedBy`]);
    // The parse alone lets such a body through: the key check is what catches it.
    expect(() => commentResponseSchema.parse({ success: true, comment: { ...comment, secret: 'x' } })).not.toThrow();
  });
});

describe('responses and realtime events parse with the shared schemas', () => {
  let server: TestServer;
  let principal: HttpClient;
  let admin: HttpClient;
  let previewer: HttpClient;
  let formId: string;
  let previousFormId: string;
  let copyId: string;
  let commentId: string;
  const sockets: RealtimeClient[] = [];
  /** The Super Admin, watching the Harbor plan's room (and later the copy's). */
  let observer: RealtimeClient;
  /** The Harbor principal's own socket: the plan's room and the user's notifications. */
  let principalSocket: RealtimeClient;
  /** Every request of this suite's clients and its answer, for the check against the OpenAPI document. */
  const exchanges: Exchange[] = [];
  const stopRecording = onExchange((exchange) => exchanges.push(exchange));

  const socketOf = async (client: HttpClient, label: string) => {
    const socket = await connectRealtime(server.url, client.cookies.get(SESSION_COOKIE)!, { label });
    sockets.push(socket);
    return socket;
  };

  beforeAll(async () => {
    server = await startTestServer();
    [principal, admin, previewer] = await signInAll(server.url, [PRINCIPAL_HARBOR, SUPERADMIN, SUPERADMIN]);
    formId = await formIdOf(principal, HARBOR);
    previousFormId = await formIdOf(principal, HARBOR, PREVIOUS_YEAR);
    observer = await socketOf(admin, 'superadmin');
    expect(await observer.request('plan:join', { formId })).toEqual({ ok: true });
    principalSocket = await socketOf(principal, 'principal');
  });
  afterAll(async () => {
    stopRecording();
    for (const socket of sockets.splice(0)) socket.close();
    await server?.stop();
  });

  it('GET /api/public/overview (signed out)', async () => {
    const body = conforms(publicOverviewSchema, await ok(new HttpClient(server.url).get('/api/public/overview')), 'overview');
    expect(body.currentYear).toBe(YEAR);
  });

  it('GET /api/users: the Super Admin and a principal', async () => {
    const all = conforms(userListSchema, await ok(admin.get('/api/users?limit=200')), 'users (Super Admin)');
    expect(all.users.map((user) => user.email)).toContain(PRINCIPAL_HARBOR);
    expect(all.users.every((user) => Array.isArray(user.assignedForms))).toBe(true);
    conforms(userListSchema, await ok(principal.get('/api/users')), 'users (principal)');
  });

  it('the users admin routes: schools, create, update, permissions, bulk, import, audit log', async () => {
    conforms(userSchoolsSchema, await ok(admin.get('/api/users/schools')), 'user schools');
    const email = `responses.${Date.now()}@example.org`;
    const { user } = conforms(
      userWriteResponseSchema,
      await ok(principal.post('/api/users/create', { name: 'Rae Response', email, level: 1, schoolName: HARBOR })),
      'user create',
    );
    expect(user.lastSignedInAt).toBeNull();
    conforms(userWriteResponseSchema, await ok(principal.put('/api/users', { userId: user._id, title: 'Teacher' })), 'user update');
    conforms(userWriteResponseSchema, await ok(principal.put(`/api/users/${user._id}/permissions`, { permissions: { canViewPlans: true } })), 'permissions');
    conforms(bulkResponseSchema, await ok(principal.post('/api/users/bulk', { userIds: [user._id, 'f'.repeat(24)], action: 'deactivate' })), 'bulk');
    const imported = conforms(
      importResponseSchema,
      await ok(admin.post('/api/users/bulk-import', { users: [{ name: 'Rae Response', email, level: 2, schoolName: HARBOR }, { email: 'nope' }] })),
      'import',
    );
    expect(imported.results.map((result) => result.status)).toEqual(['updated', 'error']);
    const logs = conforms(auditLogListSchema, await ok(admin.get(`/api/users/audit-logs?targetType=user&targetId=${user._id}`)), 'audit log');
    expect(logs.logs.length).toBeGreaterThan(0);
    const trail = conforms(auditLogListSchema, await ok(admin.get(`/api/users/${user._id}/audit`)), 'user trail');
    expect(trail.logs.map((log) => log.action)).toContain('user.bulk.deactivate');
  });

  it('GET /api/auth/session, also while a Super Admin previews a demo user', async () => {
    const own = conforms(sessionSchema, await ok(principal.get('/api/auth/session')), 'session');
    expect(own).toMatchObject({ previewing: false, user: { email: PRINCIPAL_HARBOR } });
    expect(own).not.toHaveProperty('signedInAs');

    const { users } = await ok(admin.get('/api/users?q=demo.principal'));
    await ok(previewer.post('/api/auth/preview', { userId: users[0]._id }));
    const previewing = conforms(sessionSchema, await ok(previewer.get('/api/auth/session')), 'session (previewing)');
    expect(previewing).toMatchObject({ previewing: true, user: { isDemo: true }, signedInAs: { email: SUPERADMIN } });
  });

  it('GET /api/question-bank and GET /api/school-year (stored years and a year without settings)', async () => {
    const bank = conforms(questionBankResponseSchema, await ok(principal.get('/api/question-bank')), 'question bank');
    expect(bank.steps.length).toBeGreaterThan(0);
    for (const year of [YEAR, PREVIOUS_YEAR, EMPTY_YEAR]) {
      const settings = conforms(yearSettingsSchema, await ok(principal.get(`/api/school-year?schoolYear=${year}`)), `school year ${year}`);
      expect(settings.stored).toBe(year !== EMPTY_YEAR);
    }
  });

  it('GET /api/forms for this year and last year', async () => {
    for (const year of [YEAR, PREVIOUS_YEAR]) {
      const list = conforms(planListSchema, await ok(principal.get(`/api/forms?schoolYear=${year}`)), `plans of ${year}`);
      expect(list.forms.map((form) => form.schoolName)).toContain(HARBOR);
    }
  });

  it('GET /api/forms/:id: this year’s draft and last year’s answered, archived plan', async () => {
    const current = conforms(fullPlanSchema, await ok(principal.get(planPath(formId))), 'full plan');
    expect(current).toMatchObject({ _id: formId, locked: false, userPermission: { canEdit: true } });
    const previous = conforms(fullPlanSchema, await ok(admin.get(planPath(previousFormId))), 'full plan (previous year)');
    expect(previous.locked).toBe(true);
    expect(Object.values(previous.formData).some((step) => Object.keys(step.data).length > 0)).toBe(true);
  });

  it('step routes: GET, PUT (with and without conflicts), the 423 of a locked step, locks, editors', async () => {
    const since = observer.mark();
    const read = conforms(stepResponseSchema, await ok(principal.get(stepPath(formId, STEP))), 'GET step');
    expect(read).toMatchObject({ stepKey: STEP_KEY, stepNumber: STEP });

    const saved = conforms(
      stepResponseSchema,
      await ok(principal.put(stepPath(formId, STEP), { stepData: { data: { att_coordinatorName: 'Ana Diaz', att_roles: TABLE_ANSWER } } })),
      'PUT step',
    );
    expect(saved).not.toHaveProperty('conflicts');
    expect(saved.revisionCount).toBe(read.revisionCount + 1);
    // Based on the revision before that save, with `merge`: the changed answer comes back as a conflict.
    const merged = conforms(
      stepResponseSchema,
      await ok(
        principal.put(stepPath(formId, STEP), {
          stepData: { data: { att_coordinatorName: 'Someone else' } },
          revisionCount: read.revisionCount,
          mergeStrategy: 'merge',
        }),
      ),
      'PUT step (conflict)',
    );
    expect(merged.conflicts).toEqual(['att_coordinatorName']);

    const locked = conforms(lockedErrorSchema, await ok(admin.put(stepPath(formId, STEP), { stepData: { data: { att_barriers: 'x' } } }), 423), '423');
    expect(locked.lockedBy.email).toBe(PRINCIPAL_HARBOR);

    const { locks } = conforms(locksResponseSchema, await ok(principal.get(planPath(formId, '/locks'))), 'locks');
    expect(locks).toEqual([expect.objectContaining({ stepKey: STEP_KEY, isCurrentUser: true })]);

    await ok(principal.post(planPath(formId, '/editors/register'), { stepKey: STEP_KEY }));
    const { editors } = conforms(editorsResponseSchema, await ok(admin.get(planPath(formId, '/editors'))), 'editors');
    expect(editors.map((editor) => editor.email)).toContain(PRINCIPAL_HARBOR);

    await ok(principal.post(stepPath(formId, STEP, '/unlock')));
    await observer.waitForEvent('step:saved', (p) => p.formId === formId, { since });
    await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'acquired', { since });
    await observer.waitForEvent('lock', (p) => p.formId === formId && p.state === 'released', { since });
    await observer.waitForEvent('presence', (p) => p.formId === formId && p.editors.length > 0, { since });
  });

  it('presence on joining the plan’s room', async () => {
    const since = observer.mark();
    expect(await principalSocket.request('plan:join', { formId, stepKey: STEP_KEY })).toEqual({ ok: true });
    await observer.waitForEvent('presence', (p) => p.formId === formId && p.editors.some((e: { email: string }) => e.email === PRINCIPAL_HARBOR), { since });
  });

  it('PUT /api/forms/:id (update, submit, review) and POST attest', async () => {
    const since = observer.mark();
    const updated = conforms(planUpdateResponseSchema, await ok(principal.put(planPath(formId), { action: 'update', assignedTo: null })), 'update');
    expect(updated).not.toHaveProperty('status');
    const attested = conforms(attestResponseSchema, await ok(principal.post(planPath(formId, '/attest'), { name: 'Elena Rodriguez' })), 'attest');
    expect(attested.attestation).toMatchObject({ confirmed: true, name: 'Elena Rodriguez', signedBy: (await whoAmI(principal)).id });
    const submitted = conforms(planUpdateResponseSchema, await ok(principal.put(planPath(formId), { action: 'submit' })), 'submit');
    expect(submitted).toMatchObject({ status: 'submitted', form: { status: 'submitted' } });
    const reviewed = conforms(planUpdateResponseSchema, await ok(admin.put(planPath(formId), { action: 'review' })), 'review');
    expect(reviewed.status).toBe('under_review');
    await observer.waitForEvent('status', (p) => p.formId === formId && p.status === 'under_review', { since });
    await principalSocket.waitForEvent('notification', (p) => p.notification?.formId === formId);
  });

  it('history and versions: an answer’s history, a restore, the versions of a submitted and returned plan, a step restored from one', async () => {
    const planId = await createPlan(admin, 'History');
    await ok(principal.put(stepPath(planId, STEP), { stepData: { data: { att_coordinatorName: 'Ana Diaz' } } }));
    const { revisions } = await waitFor('the revision', async () => {
      const history = conforms(
        historyResponseSchema,
        await ok(principal.get(planPath(planId, `/history?stepKey=${STEP_KEY}&questionId=att_coordinatorName`))),
        'history',
      );
      return history.revisions.length > 0 ? history : undefined;
    });
    const restored = conforms(
      restoreResponseSchema,
      await ok(principal.post(planPath(planId, `/history/${revisions[0]!._id}/restore`), { to: 'before' })),
      'restore',
    );
    expect(restored.restored).toEqual(['att_coordinatorName']);
    await ok(principal.put(planPath(planId), { action: 'submit' }));
    await ok(admin.put(planPath(planId), { action: 'review' }));
    await ok(admin.put(planPath(planId), { action: 'review', status: 'rejected', comment: 'Name a coordinator' }));
    const { versions } = conforms(versionListSchema, await ok(principal.get(planPath(planId, '/versions'))), 'versions');
    const submitted = versions.find((version) => version.kind === 'submitted')!;
    conforms(planVersionSchema, await ok(principal.get(planPath(planId, `/versions/${submitted._id}`))), 'version');
    conforms(restoreResponseSchema, await ok(principal.post(planPath(planId, `/versions/${submitted._id}/restore`), { stepKey: STEP_KEY })), 'version restore');
  });

  it('comments: POST by the Super Admin, PUT read by the principal; then GET /api/notifications', async () => {
    const since = observer.mark();
    const created = conforms(
      commentResponseSchema,
      await ok(admin.post(planPath(formId, '/comments'), { comment: 'Please name a second contact', stepKey: STEP_KEY, questionId: 'att_coordinatorName' })),
      'POST comment',
    );
    commentId = created.comment._id;
    const read = conforms(commentResponseSchema, await ok(principal.put(planPath(formId, `/comments/${commentId}`), { action: 'read' })), 'PUT comment');
    expect(read.comment.status).toBe('read');
    await observer.waitForEvent('comment', (p) => p.comment?._id === commentId && p.comment.status === 'read', { since });

    const inbox = conforms(notificationListSchema, await ok(principal.get('/api/notifications')), 'notifications');
    expect(inbox.notifications.length).toBeGreaterThanOrEqual(2);
    expect(inbox.unread).toBe(inbox.notifications.length);
    const plan = conforms(fullPlanSchema, await ok(principal.get(planPath(formId))), 'full plan (with a comment, attested, under review)');
    expect(plan.comments.map((comment) => comment._id)).toContain(commentId);
  });

  it('threads: a reply with a mention, resolve, reopen, the list, the people one may mention', async () => {
    const { people } = conforms(mentionListSchema, await ok(principal.get(planPath(formId, '/mentions?q=a'))), 'mentions');
    const replied = conforms(
      commentResponseSchema,
      await ok(principal.post(planPath(formId, `/comments/${commentId}/replies`), { body: 'Added a second contact', mentions: [people[0]!._id] })),
      'reply',
    );
    expect(replied.comment.replies).toHaveLength(1);
    conforms(commentResponseSchema, await ok(admin.post(planPath(formId, `/comments/${commentId}/resolve`))), 'resolve');
    const { threads } = conforms(threadListSchema, await ok(principal.get(planPath(formId, '/comments?status=resolved'))), 'threads');
    expect(threads.map((thread) => thread._id)).toContain(commentId);
    conforms(commentResponseSchema, await ok(principal.post(planPath(formId, `/comments/${commentId}/reopen`))), 'reopen');
  });

  it('POST duplicate, POST review-flag on the copy, GET compare', async () => {
    const nextYear = nextSchoolYear(YEAR);
    const copy = conforms(duplicateResponseSchema, await ok(principal.post(planPath(previousFormId, '/duplicate'), { schoolYear: nextYear })), 'duplicate');
    expect(copy).toMatchObject({ schoolYear: nextYear, sourceYear: PREVIOUS_YEAR });
    copyId = copy.formId;

    expect(await observer.request('plan:join', { formId: copyId })).toEqual({ ok: true });
    const since = observer.mark();
    const copied = conforms(fullPlanSchema, await ok(principal.get(planPath(copyId))), 'full plan (copy)');
    const flag = copied.needsUpdate[0]!;
    expect(flag).toBeDefined();
    const cleared = conforms(
      reviewFlagResponseSchema,
      await ok(principal.post(planPath(copyId, '/review-flag'), { questionId: flag.questionId, stepKey: flag.stepKey })),
      'review-flag',
    );
    expect(cleared.needsUpdate).toHaveLength(copied.needsUpdate.length - 1);
    await observer.waitForEvent('flag', (p) => p.formId === copyId && p.questionId === flag.questionId, { since });

    const compared = conforms(compareResponseSchema, await ok(principal.get(planPath(formId, '/compare'))), 'compare');
    expect(compared).toMatchObject({ currentFormId: formId, previousFormId, compareYear: PREVIOUS_YEAR });
    expect(compared.rows.some((row) => row.previousValue !== '')).toBe(true);
    const unmatched = conforms(compareResponseSchema, await ok(principal.get(planPath(formId, `/compare?steps=all&compareYear=${EMPTY_YEAR}`))), 'compare');
    expect(unmatched.previousFormId).toBeNull();
  });

  it('question-bank administration: GET the view, edit the draft (question, new question, order, step), DELETE the draft, publish', async () => {
    const BANK = '/api/admin/question-bank';
    const before = conforms(adminBankViewSchema, await ok(admin.get(BANK)), 'question-bank admin view (no draft)');
    expect(before.draft).toBeNull();
    const firstStep = before.published!.steps[0]!;
    const edited = conforms(adminBankSchema, await ok(admin.put(`${BANK}/steps/${firstStep.key}`, { intro: 'Read it all.' })), 'step update');
    const attendance = edited.steps.find((step) => step.key === 'attendancePlan')!;
    conforms(adminBankSchema, await ok(admin.put(`${BANK}/questions/${attendance.questions[0]!.id}`, { title: 'Renamed' })), 'question update');
    const added = conforms(
      adminBankSchema,
      await ok(admin.post(`${BANK}/questions`, { stepKey: 'attendancePlan', question: { number: '6z', title: 'New', type: 'text', required: false } })),
      'question add',
    );
    const ids = added.steps.find((step) => step.key === 'attendancePlan')!.questions.map((question) => question.id);
    conforms(adminBankSchema, await ok(admin.put(`${BANK}/steps/attendancePlan/order`, { questionIds: [...ids].reverse() })), 'reorder');
    conforms(adminBankSchema, await ok(admin.post(`${BANK}/questions/${ids[1]}/active`, { active: false })), 'deactivate');
    const during = conforms(adminBankViewSchema, await ok(admin.get(BANK)), 'question-bank admin view (with a draft)');
    expect(during.differences.addedQuestions).toHaveLength(1);
    conforms(successSchema, await ok(admin.delete(`${BANK}/draft`)), 'discard');
    conforms(adminBankSchema, await ok(admin.put(`${BANK}/steps/${firstStep.key}`, { title: firstStep.title })), 'step update (no change)');
    const published = conforms(publishResponseSchema, await ok(admin.post(`${BANK}/publish`, {})), 'publish');
    expect(published.draftVersion).toBe(published.version + 1);
  });

  it('every plan event and notification the sockets received parses with its event schema', () => {
    const received = observer.events.filter((event) => event.name in PLAN_EVENTS);
    for (const [index, event] of received.entries()) {
      conforms(PLAN_EVENTS[event.name as keyof typeof PLAN_EVENTS], event.payload, `${event.name} event #${index}`);
    }
    expect(new Set(received.map((event) => event.name))).toEqual(new Set(Object.keys(PLAN_EVENTS)));
    const lockStates = new Set(received.filter((event) => event.name === 'lock').map((event) => event.payload.state));
    expect(lockStates).toEqual(new Set(['acquired', 'released']));
    expect(new Set(received.filter((event) => event.name === 'status').map((event) => event.payload.action))).toEqual(new Set(['submit', 'review']));

    const notifications = principalSocket.events.filter((event) => event.name === 'notification');
    expect(notifications.length).toBeGreaterThanOrEqual(2);
    for (const [index, event] of notifications.entries()) conforms(notificationEventSchema, event.payload, `notification event #${index}`);
  });

  it('school years: the list, PUT and POST; a district rollover, its progress and its `rollover` events', async () => {
    const SOURCE = '2080-2081';
    const TARGET = '2081-2082';
    const list = conforms(yearListSchema, await ok(admin.get('/api/school-year/years')), 'school-year list');
    expect(list.years.map((year) => year.schoolYear)).toContain(YEAR);
    const goals = [{ key: 'attendance', label: 'Attendance rate', target: 95, unit: '%' }];
    conforms(yearSettingsResponseSchema, await ok(admin.put('/api/school-year', { schoolYear: SOURCE, districtGoals: goals })), 'PUT school-year');
    await ok(admin.post('/api/forms', { schoolName: HARBOR, schoolYear: SOURCE }));

    const since = observer.mark();
    const result = conforms(rolloverResultSchema, await ok(admin.post('/api/admin/forms/rollover', { sourceYear: SOURCE, targetYear: TARGET })), 'rollover');
    expect(result).toMatchObject({ considered: 1, archivedYear: SOURCE });
    expect(result.created).toHaveLength(1);
    const progress = conforms(
      rolloverProgressResponseSchema,
      await ok(admin.get(`/api/admin/forms/rollover?sourceYear=${SOURCE}&targetYear=${TARGET}`)),
      'rollover progress',
    );
    expect(progress.progress).toMatchObject({ state: 'done', total: 1, processed: 1, created: 1 });
    expect(progress.result).toEqual(result);
    await observer.waitForEvent('rollover', (p) => p.progress?.state === 'done', { since });
    const events = observer.events.slice(since).filter((event) => event.name === 'rollover');
    for (const [index, event] of events.entries()) conforms(rolloverEventSchema, event.payload, `rollover event #${index}`);

    conforms(yearSettingsResponseSchema, await ok(admin.post('/api/school-year', { fromYear: TARGET })), 'POST school-year');
  });

  it('health, system health, the client-error sink and the API reference', async () => {
    const anonymous = new HttpClient(server.url);
    conforms(healthSchema, await ok(anonymous.get('/api/health')), 'health');
    conforms(adminHealthSchema, await ok(admin.get('/api/admin/health')), 'system health');
    conforms(clientErrorResponseSchema, await ok(anonymous.post('/api/client-errors', { message: 'TypeError: x is undefined' })), 'client error');
    expect((await ok(anonymous.get('/api/openapi.json'))).openapi).toBe('3.1.0');
    expect((await anonymous.request('GET', '/api/docs')).status).toBe(200);
  });

  it('sharing: POST, GET and DELETE /api/admin/forms/share, POST /api/admin/forms/live and the e-mail shares', async () => {
    const { users } = await ok(admin.get(`/api/users?schoolName=${encodeURIComponent(HARBOR)}&limit=200`));
    const colleague = users.find((user: { email: string; level: number }) => user.email !== PRINCIPAL_HARBOR && user.level < 4);
    const shared = conforms(
      shareResponseSchema,
      await ok(admin.post('/api/admin/forms/share', { formId, userIds: [colleague._id], permissions: 'view' })),
      'share',
    );
    expect(shared.userIds).toEqual([colleague._id]);
    const { shares } = conforms(planSharesSchema, await ok(admin.get(`/api/admin/forms/share?formId=${formId}`)), 'shares');
    expect(shares.map((share) => share.userId)).toContain(colleague._id);
    conforms(unshareResponseSchema, await ok(admin.delete('/api/admin/forms/share', { formId, userIds: [colleague._id] })), 'unshare');
    conforms(liveResponseSchema, await ok(admin.post('/api/admin/forms/live', { formId: previousFormId, live: true })), 'live override');
    await ok(admin.post('/api/admin/forms/live', { formId: previousFormId, live: false }));
    const { sharedWithEmails } = await ok(admin.get(planPath(formId)));
    conforms(emailShareResponseSchema, await ok(admin.post(planPath(formId, '/share'), { sharedWithEmails })), 'e-mail shares');
  });

  it('the copy of last year’s plan: transfer candidates, transfer, DELETE', async () => {
    const { principals } = conforms(transferCandidatesSchema, await ok(admin.get('/api/forms/transfer-ownership')), 'transfer candidates');
    const to = principals.find((candidate) => candidate.email !== PRINCIPAL_HARBOR)!;
    const transferred = conforms(
      transferResponseSchema,
      await ok(admin.post('/api/forms/transfer-ownership', { formId: copyId, newOwnerEmail: to.email })),
      'transfer',
    );
    expect(transferred.principalEmail).toBe(to.email);
    conforms(successSchema, await ok(admin.delete(planPath(copyId))), 'delete plan');
  });

  it('exports, reports and the audit log’s CSV and actors', async () => {
    for (const [client, path] of [
      [principal, planPath(formId, '/export/pdf')],
      [principal, planPath(formId, '/export/docx')],
      [admin, `/api/admin/reports/year.csv?schoolYear=${YEAR}`],
      [admin, '/api/admin/audit-logs/export.csv?action=plan.submit'],
    ] as const) {
      const response = await client.request('GET', path);
      expect(response.status, path).toBe(200);
      await response.arrayBuffer();
    }
    const timeline = conforms(statusTimelineSchema, await ok(admin.get(`/api/admin/reports/timeline?schoolYear=${YEAR}`)), 'timeline');
    expect(timeline.events.map((event) => event.action)).toContain('plan.submit');
    conforms(yearFiguresSchema, await ok(admin.get('/api/admin/reports/figures')), 'figures');
    conforms(notStartedListSchema, await ok(admin.get(`/api/admin/reports/not-started?schoolYear=${YEAR}`)), 'not started');
    const { actors } = conforms(auditActorListSchema, await ok(admin.get('/api/admin/audit-logs/actors?q=example')), 'audit actors');
    expect(actors.map((actor) => actor.actorEmail)).toContain(SUPERADMIN);
  });

  it('the rest of the writes: a notification read, a year’s settings removed, a step added to the draft, a user deleted', async () => {
    const inbox = await ok(principal.get('/api/notifications'));
    const read = conforms(
      markNotificationReadResponseSchema,
      await ok(principal.post('/api/notifications', { notificationId: inbox.notifications[0]._id })),
      'notification read',
    );
    expect(read.notification.readAt).not.toBeNull();

    await ok(admin.put('/api/school-year', { schoolYear: '2091-2092', archived: false }));
    conforms(deleteYearResponseSchema, await ok(admin.delete('/api/school-year', { schoolYear: '2091-2092' })), 'DELETE school-year');

    const bank = conforms(adminBankSchema, await ok(admin.post('/api/admin/question-bank/steps', { key: 'responsesCheck', title: 'Added' })), 'step add');
    expect(bank.steps.map((step) => step.key)).toContain('responsesCheck');
    await ok(admin.delete('/api/admin/question-bank/draft'));

    const { user } = await ok(admin.post('/api/users/create', { name: 'Del Etable', email: `delete.${Date.now()}@example.org`, level: 1, schoolName: HARBOR }));
    conforms(successSchema, await ok(admin.delete('/api/users', { userId: user._id })), 'DELETE user');
  });

  it('e-mail: one’s preferences, the development mailbox, a one-click unsubscribe, a message sent again', async () => {
    conforms(mailSettingsSchema, await ok(principal.get('/api/profile/mail')), 'mail settings');
    const changed = conforms(mailSettingsSchema, await ok(principal.put('/api/profile/mail', { comments: 'digest' })), 'mail settings changed');
    expect(changed.preferences.comments).toBe('digest');
    await server.mail.runOnce();
    const mailbox = conforms(mailboxSchema, await ok(principal.get('/api/dev/mailbox?limit=5')), 'mailbox');
    expect(mailbox.messages.length).toBeGreaterThan(0);
    const me = await userByEmail(server, PRINCIPAL_HARBOR);
    const token = unsubscribeToken(server.services.config.sessionSecret, me.id, 'reminders');
    const unsubscribed = conforms(unsubscribeResponseSchema, await ok(new HttpClient(server.url).post(`/api/mail/unsubscribe/${token}`)), 'unsubscribe');
    expect(unsubscribed.turnedOff).toEqual(['reminders']);
    const messageId = mailbox.messages[0]!._id;
    await server.services.storage.db.update(mailMessages).set({ status: 'failed' }).where(eq(mailMessages.id, messageId));
    conforms(successSchema, await ok(admin.post(`/api/admin/mail/${messageId}/resend`)), 'resend');
  });

  it('error answers: 400, 401, 403, 404', async () => {
    for (const [client, method, path, body, status] of [
      [principal, 'POST', '/api/forms', { schoolName: '' }, 400],
      [new HttpClient(server.url), 'GET', '/api/forms', undefined, 401],
      [principal, 'DELETE', '/api/school-year', { schoolYear: EMPTY_YEAR }, 403],
      [principal, 'GET', planPath('f'.repeat(24)), undefined, 404],
    ] as const) {
      conforms(errorBodySchema, await ok(client.json(method, path, body), status), `${method} ${path}`);
    }
  });

  it('stopping a preview and signing out', async () => {
    const stopped = conforms(previewResponseSchema, await ok(previewer.delete('/api/auth/preview', {})), 'stop preview');
    expect(stopped).toMatchObject({ previewing: false, user: { email: SUPERADMIN } });
    conforms(successSchema, await ok(previewer.post('/api/auth/signout')), 'sign out');
    expect((await previewer.get('/api/auth/session')).status).toBe(401);
  });

  it('every answer above conforms to the OpenAPI document, and every operation it documents answered', async () => {
    const document = await ok(new HttpClient(server.url).get('/api/openapi.json'));
    const conformance = new OpenApiConformance(document);
    const api = exchanges.filter((exchange) => exchange.path.startsWith('/api/'));
    expect(api.flatMap((exchange) => conformance.problems(exchange))).toEqual([]);
    const answered = new Set(api.filter((exchange) => exchange.status < 400).map((exchange) => conformance.operationOf(exchange.method, exchange.path)));
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.filter((operation) => !answered.has(operation))).toEqual([]);
    expect(documented.length).toBeGreaterThan(70);
  });
});
