/**
 * A plan's life, over HTTP against a real server: the status machine of docs/decisions.md, the
 * attestation a copied plan needs before submit, archived years and the live override, creation
 * rules (archived year, one plan per school and year, initialOwnerEmail), review notifications and
 * their stored read state, audit records of plan mutations, ownership transfer and deletion.
 *
 * Fixture plans are inserted straight into the database (each in a school year of its own, since a
 * school has one plan per year) so that no test depends on another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, desc, eq } from 'drizzle-orm';
import { currentSchoolYear, previousSchoolYear, NEEDS_UPDATE_LABELS, type NeedsUpdateFlag, type PlanStatus } from '@csp/shared';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';

import { answerRevisions, auditLogs, collabUpdates, comments, notifications, planShares, planSteps, planVersions, plans, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { freshYear, insertPlan, planRow } from '../../testing/factories.ts';
import type { UserRow } from '../../storage/rows.ts';
import { userByEmail } from '../../testing/users.ts';

const HARBOR = 'Harbor View Academy';
const RIVERSIDE = 'Riverside Learning Center';
const STEP_KEYS = BUNDLED_BANK.steps.map((step) => step.key);
const OWNER_EMAIL = 'lifecycle.owner@example.org';
const DEMO_PRINCIPAL_EMAIL = 'demo.principal@example.org';

const FLAGS: NeedsUpdateFlag[] = [
  { questionId: 'att_coordinatorName', stepKey: 'attendancePlan', reason: 'revisit', label: NEEDS_UPDATE_LABELS.revisit },
  { questionId: 'sth_liaison', stepKey: 'temporaryHousing', reason: 'revisit', label: NEEDS_UPDATE_LABELS.revisit },
];

let server: TestServer;
/** Super Admin, Harbor's principal, Riverside's principal, a Harbor teacher who owns the fixtures, a previewing Super Admin. */
let admin: HttpClient;
let principal: HttpClient;
let riversidePrincipal: HttpClient;
let owner: HttpClient;
let teacher: HttpClient;
let preview: HttpClient;
const user: Record<'admin' | 'principal' | 'riversidePrincipal' | 'owner' | 'teacher' | 'demo', UserRow> = {} as never;

const db = () => server.services.storage.db;

/** A Harbor plan in a fresh year, owned by the teacher `owner`, with Harbor's principal as principalEmail. */
const insertHarborPlan = (fields: Partial<typeof plans.$inferInsert> = {}) =>
  insertPlan(server, { schoolName: HARBOR, schoolYear: freshYear(), userId: user.owner.id, principalEmail: user.principal.email, ...fields });

const saveStep6 = (client: HttpClient, formId: string, value: string) =>
  client.put(`/api/forms/${formId}/step/6`, { stepData: { data: { att_coordinatorName: value } }, lastUpdated: null, mergeStrategy: 'last-write-wins' });

beforeAll(async () => {
  server = await startTestServer();
  await db().insert(users).values({ id: newId(), email: OWNER_EMAIL, name: 'Lifecycle Owner', level: 1, schoolName: HARBOR });
  const emails = {
    admin: 'superadmin@example.org',
    principal: 'principal.harbor@example.org',
    riversidePrincipal: 'principal.riverside@example.org',
    owner: OWNER_EMAIL,
    teacher: 'teacher.harbor@example.org',
    demo: DEMO_PRINCIPAL_EMAIL,
  } as const;
  for (const [key, email] of Object.entries(emails) as [keyof typeof emails, string][]) user[key] = await userByEmail(server, email);
  [admin, principal, riversidePrincipal, owner, teacher, preview] = await signInAll(server.url, [
    emails.admin,
    emails.principal,
    emails.riversidePrincipal,
    emails.owner,
    emails.teacher,
    emails.admin,
  ]);
  expect((await preview.post('/api/auth/preview', { userId: user.demo.id })).status).toBe(200);
});
afterAll(() => server?.stop());

// ── status machine ──────────────────────────────────────────────────────────────────────────────

type Action = 'submit' | 'review';
/**
 * Every (from, action, to): submit (by an editor, here the owner) moves draft or rejected to
 * submitted; review (level 5) moves submitted to under_review and under_review to approved or
 * rejected. Everything else is 400 naming `from` and `to`, and changes nothing.
 */
// prettier-ignore
const MOVES: [from: PlanStatus, action: Action, to: PlanStatus, status: 200 | 400][] = [
  ['draft',        'submit', 'submitted',    200],
  ['draft',        'review', 'draft',        400],
  ['draft',        'review', 'submitted',    400],
  ['draft',        'review', 'under_review', 400],
  ['draft',        'review', 'approved',     400],
  ['draft',        'review', 'rejected',     400],
  ['submitted',    'submit', 'submitted',    400],
  ['submitted',    'review', 'draft',        400],
  ['submitted',    'review', 'submitted',    400],
  ['submitted',    'review', 'under_review', 200],
  ['submitted',    'review', 'approved',     400],
  ['submitted',    'review', 'rejected',     400],
  ['under_review', 'submit', 'submitted',    400],
  ['under_review', 'review', 'draft',        400],
  ['under_review', 'review', 'submitted',    400],
  ['under_review', 'review', 'under_review', 400],
  ['under_review', 'review', 'approved',     200],
  ['under_review', 'review', 'rejected',     200],
  ['approved',     'submit', 'submitted',    400],
  ['approved',     'review', 'draft',        400],
  ['approved',     'review', 'submitted',    400],
  ['approved',     'review', 'under_review', 400],
  ['approved',     'review', 'approved',     400],
  ['approved',     'review', 'rejected',     200],
  ['rejected',     'submit', 'submitted',    200],
  ['rejected',     'review', 'draft',        400],
  ['rejected',     'review', 'submitted',    400],
  ['rejected',     'review', 'under_review', 400],
  ['rejected',     'review', 'approved',     400],
  ['rejected',     'review', 'rejected',     400],
];

describe('status machine', () => {
  it.each(MOVES)('%s --%s--> %s: %i', async (from, action, to, status) => {
    const id = await insertHarborPlan({ status: from });
    const client = action === 'submit' ? owner : admin;
    // A return carries its reason (one without is refused: below).
    const response = await client.put(`/api/forms/${id}`, { action, status: to, ...(to === 'rejected' ? { comment: 'Please revise.' } : {}) });
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    if (status === 200) {
      expect(response.body).toMatchObject({ success: true, status: to, form: { _id: id, status: to } });
    } else {
      expect(response.body).toMatchObject({ error: expect.any(String), from, to });
    }
    expect((await planRow(server, id))!.status).toBe(status === 200 ? to : from);
  });

  it('a refused submit without an explicit status still names from and to (to: submitted)', async () => {
    for (const from of ['submitted', 'under_review', 'approved'] as const) {
      const id = await insertHarborPlan({ status: from });
      const response = await owner.put(`/api/forms/${id}`, { action: 'submit' });
      expect(response.status).toBe(400);
      expect(response.body, from).toMatchObject({ error: expect.any(String), from, to: 'submitted' });
    }
  });

  it('runs draft → submitted → under_review → rejected → submitted → under_review → approved', async () => {
    const id = await insertHarborPlan();
    const steps: [HttpClient, object, PlanStatus][] = [
      [owner, { action: 'submit' }, 'submitted'],
      [admin, { action: 'review' }, 'under_review'],
      [admin, { action: 'review', status: 'rejected', comment: 'Attendance targets missing' }, 'rejected'],
      [owner, { action: 'submit' }, 'submitted'],
      [admin, { action: 'review', status: 'under_review' }, 'under_review'],
      [admin, { action: 'review', status: 'approved' }, 'approved'],
    ];
    for (const [client, body, expected] of steps) {
      const response = await client.put(`/api/forms/${id}`, body);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.status).toBe(expected);
    }
    const row = (await planRow(server, id))!;
    expect(row).toMatchObject({ status: 'approved', reviewedBy: user.admin.id, reviewComment: 'Attendance targets missing' });
    expect(row.submittedAt).toBeInstanceOf(Date);
    expect(row.reviewedAt).toBeInstanceOf(Date);
    // No further move from approved.
    expect((await owner.put(`/api/forms/${id}`, { action: 'submit' })).status).toBe(400);
    expect((await admin.put(`/api/forms/${id}`, { action: 'review', status: 'rejected' })).status).toBe(400);
  });

  it('only level 5 reviews; a non-editor cannot submit', async () => {
    const submitted = await insertHarborPlan({ status: 'submitted' });
    expect((await principal.put(`/api/forms/${submitted}`, { action: 'review', status: 'under_review' })).status).toBe(403);
    expect((await preview.put(`/api/forms/${submitted}`, { action: 'review', status: 'under_review' })).status).toBe(403);
    const draft = await insertHarborPlan();
    expect((await teacher.put(`/api/forms/${draft}`, { action: 'submit' })).status).toBe(403);
    expect((await planRow(server, submitted))!.status).toBe('submitted');
    expect((await planRow(server, draft))!.status).toBe('draft');
  });
});

// ── attestation ─────────────────────────────────────────────────────────────────────────────────

describe('attestation of a copied plan', () => {
  it('cannot be submitted before its principal attests, and can after', async () => {
    const id = await insertHarborPlan({ copiedFromId: newId() });
    const refused = await owner.put(`/api/forms/${id}`, { action: 'submit' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body).toMatchObject({ error: 'Attestation required' });
    expect((await planRow(server, id))!.status).toBe('draft');

    // Not the plan's principal: the owner, the Super Admin, another school's principal.
    for (const client of [owner, admin, riversidePrincipal]) expect((await client.post(`/api/forms/${id}/attest`, { name: 'Someone' })).status).toBe(403);
    expect((await planRow(server, id))!.attestation).toBeNull();

    const attested = await principal.post(`/api/forms/${id}/attest`, { name: 'Elena Rodriguez' });
    expect(attested.status, JSON.stringify(attested.body)).toBe(200);
    expect(attested.body.attestation).toMatchObject({ confirmed: true, name: 'Elena Rodriguez', signedBy: user.principal.id, signedAt: expect.any(String) });
    expect(new Date(attested.body.attestation.signedAt).toISOString()).toBe(attested.body.attestation.signedAt);
    expect((await planRow(server, id))!.attestation).toEqual(attested.body.attestation);

    const submitted = await owner.put(`/api/forms/${id}`, { action: 'submit' });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect((await planRow(server, id))!.status).toBe('submitted');
  });

  it('the principal named by principalEmail attests even from another school', async () => {
    const id = await insertHarborPlan({ copiedFromId: newId(), principalEmail: user.riversidePrincipal.email });
    const attested = await riversidePrincipal.post(`/api/forms/${id}/attest`, { name: user.riversidePrincipal.name });
    expect(attested.status, JSON.stringify(attested.body)).toBe(200);
    expect((await planRow(server, id))!.attestation).toMatchObject({ confirmed: true, signedBy: user.riversidePrincipal.id });
  });

  it('a plan that is not a copy needs no attestation', async () => {
    const id = await insertHarborPlan();
    expect((await owner.put(`/api/forms/${id}`, { action: 'submit' })).status).toBe(200);
  });
});

// ── archived years and the live override ────────────────────────────────────────────────────────

describe('archived school year', () => {
  it('rejects every write with 403 until live: true, and again after live: false', async () => {
    const previous = previousSchoolYear(currentSchoolYear());
    const [demoPlan] = await db()
      .select()
      .from(plans)
      .where(and(eq(plans.schoolName, HARBOR), eq(plans.schoolYear, previous)));
    const id = demoPlan!.id;
    await db().update(plans).set({ status: 'draft', needsUpdate: FLAGS }).where(eq(plans.id, id));

    const writes = (label: string) => ({
      stepSave: () => saveStep6(principal, id, `${label} coordinator`),
      update: () => principal.put(`/api/forms/${id}`, { action: 'update', assignedTo: `${label}@example.org` }),
      submit: () => principal.put(`/api/forms/${id}`, { action: 'submit' }),
      review: () => admin.put(`/api/forms/${id}`, { action: 'review', status: 'under_review' }),
      attest: () => principal.post(`/api/forms/${id}/attest`, { name: user.principal.name }),
      reviewFlag: (flag: NeedsUpdateFlag) => principal.post(`/api/forms/${id}/review-flag`, { questionId: flag.questionId, stepKey: flag.stepKey }),
    });
    const expectAllRefused = async (label: string) => {
      const w = writes(label);
      const statuses = {
        stepSave: (await w.stepSave()).status,
        update: (await w.update()).status,
        submit: (await w.submit()).status,
        review: (await w.review()).status,
        attest: (await w.attest()).status,
        reviewFlag: (await w.reviewFlag(FLAGS[1]!)).status,
      };
      expect(statuses).toEqual({ stepSave: 403, update: 403, submit: 403, review: 403, attest: 403, reviewFlag: 403 });
    };
    const snapshot = async () => {
      const row = (await planRow(server, id))!;
      const [step] = await db()
        .select()
        .from(planSteps)
        .where(and(eq(planSteps.formId, id), eq(planSteps.stepKey, 'attendancePlan')));
      return { status: row.status, assignedTo: row.assignedTo, attestation: row.attestation, needsUpdate: row.needsUpdate, step: step!.data };
    };

    // Archived: reads work, the plan is locked, every write is refused and nothing changes.
    const read = await principal.get(`/api/forms/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ locked: true, allowEditsWhenArchived: false, userPermission: { canEdit: false, readOnly: true } });
    const before = await snapshot();
    await expectAllRefused('archived');
    expect(await snapshot()).toEqual(before);

    // Live override on: the same writes land.
    const live = await admin.post('/api/admin/forms/live', { formId: id, live: true });
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    expect((await planRow(server, id))!.allowEditsWhenArchived).toBe(true);
    const w = writes('live');
    expect((await w.stepSave()).status).toBe(200);
    expect((await w.update()).status).toBe(200);
    expect((await w.attest()).status).toBe(200);
    expect((await w.reviewFlag(FLAGS[0]!)).status).toBe(200);
    expect((await w.submit()).status).toBe(200);
    expect((await w.review()).status).toBe(200);
    const during = await snapshot();
    expect(during).toMatchObject({
      status: 'under_review',
      assignedTo: 'live@example.org',
      attestation: { confirmed: true, name: user.principal.name },
      needsUpdate: [FLAGS[1]],
      step: expect.objectContaining({ att_coordinatorName: 'live coordinator' }),
    });
    await principal.post(`/api/forms/${id}/step/6/unlock`);

    // Live override off: read-only again.
    const off = await admin.post('/api/admin/forms/live', { formId: id, live: false });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect((await planRow(server, id))!.allowEditsWhenArchived).toBe(false);
    await expectAllRefused('off');
    expect(await snapshot()).toEqual(during);
  });

  it('POST /api/forms into an archived year → 400, nothing created', async () => {
    const previous = previousSchoolYear(currentSchoolYear());
    const response = await admin.post('/api/forms', { schoolName: 'Archived Year Academy', schoolYear: previous });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(typeof response.body.error).toBe('string');
    const rows = await db().select().from(plans).where(eq(plans.schoolName, 'Archived Year Academy'));
    expect(rows).toEqual([]);
  });
});

// ── creation rules ──────────────────────────────────────────────────────────────────────────────

describe('creating plans', () => {
  it('a second plan for the same school and year → 409 with existingFormId', async () => {
    const current = currentSchoolYear();
    const [existing] = await db()
      .select({ id: plans.id })
      .from(plans)
      .where(and(eq(plans.schoolName, HARBOR), eq(plans.schoolYear, current)));
    for (const client of [principal, admin]) {
      const response = await client.post('/api/forms', { schoolName: HARBOR, schoolYear: current });
      expect(response.status, JSON.stringify(response.body)).toBe(409);
      expect(response.body).toMatchObject({ error: expect.any(String), existingFormId: existing!.id });
    }
    expect(
      await db()
        .select()
        .from(plans)
        .where(and(eq(plans.schoolName, HARBOR), eq(plans.schoolYear, current))),
    ).toHaveLength(1);
  });

  it('initialOwnerEmail: a principal may not choose it (403); it must name a principal (400); a Super Admin sets the owner', async () => {
    const year = freshYear();
    const byPrincipal = await principal.post('/api/forms', { schoolName: HARBOR, schoolYear: year, initialOwnerEmail: user.principal.email });
    expect(byPrincipal.status, JSON.stringify(byPrincipal.body)).toBe(403);

    for (const email of [user.teacher.email, user.admin.email, 'nobody.here@example.org']) {
      const response = await admin.post('/api/forms', { schoolName: 'Owner Choice Academy', schoolYear: year, initialOwnerEmail: email });
      expect(response.status, `${email}: ${JSON.stringify(response.body)}`).toBe(400);
    }
    expect(await db().select().from(plans).where(eq(plans.schoolYear, year))).toEqual([]);

    const created = await admin.post('/api/forms', { schoolName: 'Owner Choice Academy', schoolYear: year, initialOwnerEmail: user.riversidePrincipal.email });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ success: true, formId: expect.any(String), message: expect.any(String) });
    expect(await planRow(server, created.body.formId)).toMatchObject({
      schoolName: 'Owner Choice Academy',
      schoolYear: year,
      status: 'draft',
      userId: user.riversidePrincipal.id,
      principalEmail: user.riversidePrincipal.email,
    });
    const steps = await db().select().from(planSteps).where(eq(planSteps.formId, created.body.formId));
    expect(steps.map((s) => s.stepKey).sort()).toEqual([...STEP_KEYS].sort());
  });
});

// ── notifications ───────────────────────────────────────────────────────────────────────────────

describe('notifications', () => {
  it('a review and a comment notify the owner and the principal; read state is stored; others’ ids are 404', async () => {
    const id = await insertHarborPlan({ status: 'submitted' });
    expect((await admin.put(`/api/forms/${id}`, { action: 'review', status: 'under_review' })).status).toBe(200);
    expect(
      (await admin.post(`/api/forms/${id}/comments`, { comment: 'Please add the liaison', stepKey: 'temporaryHousing', questionId: 'sth_liaison' })).status,
    ).toBe(200);

    const aboutPlan = async (client: HttpClient) => {
      const response = await client.get('/api/notifications');
      expect(response.status).toBe(200);
      return (response.body.notifications as { _id: string; formId: string; kind: string; readAt: string | null }[]).filter((n) => n.formId === id);
    };
    for (const client of [owner, principal]) {
      const mine = await aboutPlan(client);
      expect(mine.map((n) => n.kind).sort()).toEqual(['comment', 'review']);
      expect(mine.every((n) => n.readAt === null)).toBe(true);
    }
    for (const client of [admin, teacher, riversidePrincipal, preview]) expect(await aboutPlan(client)).toEqual([]);

    const [first, second] = await aboutPlan(owner);
    const marked = await owner.post('/api/notifications', { notificationId: first!._id });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    expect(marked.body.notification).toMatchObject({ _id: first!._id, readAt: expect.any(String) });
    const [stored] = await db().select().from(notifications).where(eq(notifications.id, first!._id));
    expect(stored!.readAt).toBeInstanceOf(Date);
    const after = await aboutPlan(owner);
    expect(after.find((n) => n._id === first!._id)!.readAt).toBe(marked.body.notification.readAt);
    expect(after.find((n) => n._id === second!._id)!.readAt).toBeNull();

    // Someone else's notification, and an id that names nothing: 404, and nothing is marked.
    const foreign = await principal.post('/api/notifications', { notificationId: second!._id });
    expect(foreign.status).toBe(404);
    expect((await principal.post('/api/notifications', { notificationId: newId() })).status).toBe(404);
    expect((await aboutPlan(owner)).find((n) => n._id === second!._id)!.readAt).toBeNull();
    // The principal's own ones are untouched by the owner's read.
    expect((await aboutPlan(principal)).every((n) => n.readAt === null)).toBe(true);
  });
});

// ── audit ───────────────────────────────────────────────────────────────────────────────────────

async function auditOf(targetId: string) {
  return db().select().from(auditLogs).where(eq(auditLogs.targetId, targetId)).orderBy(desc(auditLogs.createdAt));
}

/**
 * Each plan mutation on a fresh plan, with the client that makes it, the signed-in user recorded
 * as actor, and the action name expected in audit_logs.
 */
type Mutation = {
  name: string;
  action: string | RegExp;
  actor: () => UserRow;
  run: (id: string) => Promise<{ status: number; body: any }>;
  plan?: Partial<typeof plans.$inferInsert>;
};
const MUTATIONS: Mutation[] = [
  {
    name: 'update metadata',
    action: 'plan.update',
    actor: () => user.principal,
    run: (id) => principal.put(`/api/forms/${id}`, { action: 'update', assignedTo: 'audit@example.org' }),
  },
  { name: 'submit', action: 'plan.submit', actor: () => user.owner, run: (id) => owner.put(`/api/forms/${id}`, { action: 'submit' }) },
  {
    name: 'review',
    action: 'plan.review',
    actor: () => user.admin,
    plan: { status: 'submitted' },
    run: (id) => admin.put(`/api/forms/${id}`, { action: 'review', status: 'under_review' }),
  },
  { name: 'attest', action: 'plan.attest', actor: () => user.principal, run: (id) => principal.post(`/api/forms/${id}/attest`, { name: 'Elena Rodriguez' }) },
  {
    name: 'mark a review flag reviewed',
    action: /flag/,
    actor: () => user.principal,
    plan: { needsUpdate: FLAGS },
    run: (id) => principal.post(`/api/forms/${id}/review-flag`, { questionId: 'att_coordinatorName', stepKey: 'attendancePlan' }),
  },
  {
    name: 'e-mail share',
    action: 'plan.email-share',
    actor: () => user.admin,
    run: (id) => admin.post(`/api/forms/${id}/share`, { sharedWithEmails: [user.teacher.email] }),
  },
  {
    name: 'admin share',
    action: 'plan.share',
    actor: () => user.principal,
    run: (id) => principal.post('/api/admin/forms/share', { formId: id, userIds: [user.teacher.id], permissions: 'view', sections: [] }),
  },
  {
    name: 'admin unshare',
    action: 'plan.unshare',
    actor: () => user.principal,
    run: async (id) => {
      await db().insert(planShares).values({ formId: id, userId: user.teacher.id, permission: 'view', sections: [] });
      return principal.delete('/api/admin/forms/share', { formId: id, userIds: [user.teacher.id] });
    },
  },
  {
    name: 'live override',
    action: 'plan.live-override',
    actor: () => user.admin,
    run: (id) => admin.post('/api/admin/forms/live', { formId: id, live: true }),
  },
  {
    name: 'transfer ownership',
    action: 'plan.transfer',
    actor: () => user.admin,
    run: (id) => admin.post('/api/forms/transfer-ownership', { formId: id, newOwnerEmail: user.riversidePrincipal.email }),
  },
  { name: 'comment', action: 'comment.create', actor: () => user.admin, run: (id) => admin.post(`/api/forms/${id}/comments`, { comment: 'Audit me' }) },
  {
    name: 'comment marked read',
    action: 'comment.read',
    actor: () => user.owner,
    run: async (id) => {
      const commentId = newId();
      await db().insert(comments).values({ id: commentId, formId: id, comment: 'Read me', authorId: user.admin.id, authorName: user.admin.name });
      return owner.put(`/api/forms/${id}/comments/${commentId}`, { action: 'read' });
    },
  },
  { name: 'delete', action: 'plan.delete', actor: () => user.admin, run: (id) => admin.delete(`/api/forms/${id}`) },
];

describe('audit records of plan mutations', () => {
  it('creating a plan records plan.create with the new id and the creator', async () => {
    const created = await admin.post('/api/forms', { schoolName: 'Audit Academy', schoolYear: freshYear() });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const records = await auditOf(created.body.formId);
    expect(records).toEqual([
      expect.objectContaining({
        action: 'plan.create',
        targetType: 'plan',
        targetId: created.body.formId,
        actorId: user.admin.id,
        actorEmail: user.admin.email,
      }),
    ]);
  });

  it.each(MUTATIONS.map((m) => [m.name, m] as const))('%s writes an audit record (action, target id, actor)', async (_name, mutation) => {
    const id = await insertHarborPlan(mutation.plan);
    const before = await auditOf(id);
    const response = await mutation.run(id);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const added = (await auditOf(id)).filter((row) => !before.some((old) => old.id === row.id));
    expect(added).toEqual([
      expect.objectContaining({
        action: typeof mutation.action === 'string' ? mutation.action : expect.stringMatching(mutation.action),
        targetId: id,
        actorId: mutation.actor().id,
        actorEmail: mutation.actor().email,
      }),
    ]);
  });

  it('a previewing Super Admin is recorded as the Super Admin, with the previewed user named', async () => {
    const id = await insertHarborPlan();
    const response = await preview.post(`/api/forms/${id}/attest`, { name: 'Demo Principal' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.attestation.signedBy).toBe(user.demo.id);
    const [record] = await auditOf(id);
    expect(record).toMatchObject({ action: 'plan.attest', actorId: user.admin.id, summary: expect.objectContaining({ previewAs: DEMO_PRINCIPAL_EMAIL }) });
  });
});

// ── transfer and delete ─────────────────────────────────────────────────────────────────────────

describe('transfer ownership', () => {
  it('appends transferHistory and retargets userId and principalEmail', async () => {
    const id = await insertHarborPlan();
    expect((await owner.get(`/api/forms/${id}`)).status).toBe(200);

    const first = await admin.post('/api/forms/transfer-ownership', { formId: id, newOwnerEmail: user.riversidePrincipal.email });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ success: true, formId: id, userId: user.riversidePrincipal.id, principalEmail: user.riversidePrincipal.email });
    const firstRecord = {
      fromUserId: user.owner.id,
      fromEmail: user.owner.email,
      toUserId: user.riversidePrincipal.id,
      toEmail: user.riversidePrincipal.email,
      transferredBy: user.admin.email,
      transferredAt: expect.any(String),
    };
    expect(first.body.transferHistory).toEqual([firstRecord]);
    expect(await planRow(server, id)).toMatchObject({
      userId: user.riversidePrincipal.id,
      principalEmail: user.riversidePrincipal.email,
      transferHistory: [firstRecord],
    });

    // The previous owner (a teacher) loses the plan; the new owner has it.
    expect((await owner.get(`/api/forms/${id}`)).status).toBe(403);
    expect((await riversidePrincipal.get(`/api/forms/${id}`)).status).toBe(200);

    const second = await admin.post('/api/forms/transfer-ownership', { formId: id, newOwnerEmail: user.principal.email });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect((await planRow(server, id))!.transferHistory).toEqual([
      firstRecord,
      {
        ...firstRecord,
        fromUserId: user.riversidePrincipal.id,
        fromEmail: user.riversidePrincipal.email,
        toUserId: user.principal.id,
        toEmail: user.principal.email,
      },
    ]);
    expect(await planRow(server, id)).toMatchObject({ userId: user.principal.id, principalEmail: user.principal.email });
  });

  it('refuses a new owner who is not an active principal (400), changing nothing', async () => {
    const id = await insertHarborPlan();
    const before = await planRow(server, id);
    for (const email of [user.teacher.email, user.admin.email, DEMO_PRINCIPAL_EMAIL, 'nobody.here@example.org']) {
      const response = await admin.post('/api/forms/transfer-ownership', { formId: id, newOwnerEmail: email });
      expect(response.status, email).toBe(400);
    }
    expect(await planRow(server, id)).toEqual(before);
  });
});

describe('delete', () => {
  it('level 5 removes the plan with its steps, shares, comments, notifications and write-ahead rows', async () => {
    const id = await insertHarborPlan();
    const other = await insertHarborPlan();
    expect((await saveStep6(owner, id, 'Before delete')).status).toBe(200);
    await db().insert(planShares).values({ formId: id, userId: user.teacher.id, permission: 'view', sections: [] });
    // Rows a process appended and never compacted (it died), of this plan and of another.
    const update = new Uint8Array([0, 0]);
    await db()
      .insert(collabUpdates)
      .values([`plan:${id}:step:a`, `plan:${id}:step:b`, `plan:${other}:step:a`].map((name) => ({ name, update })));
    expect((await admin.post(`/api/forms/${id}/comments`, { comment: 'Soon gone' })).status).toBe(200);
    expect((await db().select().from(notifications).where(eq(notifications.formId, id))).length).toBeGreaterThan(0);

    expect((await principal.delete(`/api/forms/${id}`)).status).toBe(403);
    expect((await owner.delete(`/api/forms/${id}`)).status).toBe(403);
    expect(await planRow(server, id)).toBeDefined();

    const deleted = await admin.delete(`/api/forms/${id}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(await planRow(server, id)).toBeUndefined();
    expect(await db().select().from(planSteps).where(eq(planSteps.formId, id))).toEqual([]);
    expect(await db().select().from(planShares).where(eq(planShares.formId, id))).toEqual([]);
    expect(await db().select().from(comments).where(eq(comments.formId, id))).toEqual([]);
    expect(await db().select().from(notifications).where(eq(notifications.formId, id))).toEqual([]);
    const appended = await db().select({ name: collabUpdates.name }).from(collabUpdates);
    expect(appended.filter(({ name }) => name.includes(id))).toEqual([]);
    expect(appended.filter(({ name }) => name.includes(other))).toHaveLength(1);
    expect((await admin.get(`/api/forms/${id}`)).status).toBe(404);
    expect((await admin.delete(`/api/forms/${id}`)).status).toBe(404);
  });
});

// ── the demo district the tests rely on ─────────────────────────────────────────────────────────

describe('fixtures', () => {
  it('the demo district has an archived previous year and a live current year', async () => {
    const current = await admin.get(`/api/forms?schoolYear=${currentSchoolYear()}`);
    const previous = await admin.get(`/api/forms?schoolYear=${previousSchoolYear(currentSchoolYear())}`);
    const schools = (forms: { schoolName: string; locked: boolean }[]) => forms.filter((f) => [HARBOR, RIVERSIDE].includes(f.schoolName));
    expect(schools(current.body.forms).map((f) => f.locked)).toEqual([false, false]);
    expect(schools(previous.body.forms).map((f) => f.locked)).toEqual([true, true]);
  });
});

// ── the lifecycle holds ───────────────────────────────────────────────────────────────────────────

describe('a plan with the district holds still', () => {
  const LOCKED: PlanStatus[] = ['submitted', 'under_review', 'approved'];
  /** An earlier text of an answer, and an earlier version of the plan, for the restores to bring back. */
  async function insertPast(id: string) {
    const revisionId = newId();
    const versionId = newId();
    await db()
      .insert(answerRevisions)
      .values({
        id: revisionId,
        formId: id,
        stepKey: 'attendancePlan',
        questionId: 'att_coordinatorName',
        kind: 'edit',
        authorIds: [user.owner.id],
        before: 'EARLIER TEXT',
        after: null,
        stepRevision: 1,
      });
    await db()
      .insert(planVersions)
      .values({
        id: versionId,
        formId: id,
        kind: 'returned',
        actorName: 'Someone',
        steps: { attendancePlan: { data: { att_coordinatorName: 'FROM A VERSION' }, completed: false } },
      });
    return { revisionId, versionId };
  }
  const doors = (id: string, who: HttpClient, past: { revisionId: string; versionId: string }) => ({
    'step save': () => saveStep6(who, id, 'CHANGED WHILE LOCKED'),
    'review flag': () => who.post(`/api/forms/${id}/review-flag`, { questionId: FLAGS[0]!.questionId, stepKey: FLAGS[0]!.stepKey }),
    attest: () => who.post(`/api/forms/${id}/attest`, { name: user.principal.name }),
    'restore from history': () => who.post(`/api/forms/${id}/history/${past.revisionId}/restore`, { to: 'before' }),
    'restore from a version': () => who.post(`/api/forms/${id}/versions/${past.versionId}/restore`, { stepKey: 'attendancePlan' }),
  });

  for (const status of LOCKED) {
    for (const [role, client] of [
      ['principal', () => principal],
      ['Super Admin', () => admin],
    ] as const) {
      it(`${status} × ${role}: the step save, the review flag, the attestation and both restores are refused with a message naming the state, and nothing changes`, async () => {
        const id = await insertHarborPlan({ status, needsUpdate: FLAGS });
        const past = await insertPast(id);
        const before = await planRow(server, id);
        for (const [door, run] of Object.entries(doors(id, client(), past))) {
          const response = await run();
          // The attestation is the principal's alone: a Super Admin is refused before the state is asked.
          if (door === 'attest' && role === 'Super Admin') {
            expect(response.status, door).toBe(403);
            continue;
          }
          expect(response.status, `${door}: ${JSON.stringify(response.body)}`).toBe(403);
          expect(response.body.error, door).toMatch(
            new RegExp(`^This plan is ${status === 'under_review' ? 'under review' : status}: its answers cannot change`),
          );
        }
        expect(await planRow(server, id)).toEqual(before);
        const [step] = await db()
          .select()
          .from(planSteps)
          .where(and(eq(planSteps.formId, id), eq(planSteps.stepKey, 'attendancePlan')));
        expect(step!.data).toEqual({});
        const read = await principal.get(`/api/forms/${id}`);
        expect(read.body.userPermission).toMatchObject({ canEdit: false, canAttest: false, canSubmit: false, readOnly: true });
      });
    }
  }

  it('an approved plan is returned for changes with a reason (none is refused); returned, it is editable again and its attestation is gone', async () => {
    const id = await insertHarborPlan({
      status: 'approved',
      attestation: { confirmed: true, name: user.principal.name, signedAt: new Date().toISOString(), signedBy: user.principal.id },
    });
    const noReason = await admin.put(`/api/forms/${id}`, { action: 'review', status: 'rejected' });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error).toMatch(/reason is required/);
    expect((await planRow(server, id))!.status).toBe('approved');

    const returned = await admin.put(`/api/forms/${id}`, { action: 'review', status: 'rejected', comment: 'Add the second attendance contact.' });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);
    expect(await planRow(server, id)).toMatchObject({ status: 'rejected', reviewComment: 'Add the second attendance contact.', attestation: null });
    expect((await saveStep6(principal, id, 'Returned and fixed')).status).toBe(200);
    const read = await principal.get(`/api/forms/${id}`);
    expect(read.body.userPermission).toMatchObject({ canEdit: true, canAttest: true, canSubmit: true });
  });

  it('the attestation carries the signer’s own name (case and spacing forgiven) and id, and an answer changed after it clears it', async () => {
    const id = await insertHarborPlan();
    const wrong = await principal.post(`/api/forms/${id}/attest`, { name: 'Mickey Mouse' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain(user.principal.name);
    expect((await planRow(server, id))!.attestation).toBeNull();

    const spaced = await principal.post(`/api/forms/${id}/attest`, { name: `  ${user.principal.name.toUpperCase().replace(' ', '   ')} ` });
    expect(spaced.status, JSON.stringify(spaced.body)).toBe(200);
    expect(spaced.body.attestation).toMatchObject({ name: user.principal.name, signedBy: user.principal.id });

    expect((await saveStep6(principal, id, 'Changed after signing')).status).toBe(200);
    expect((await planRow(server, id))!.attestation, 'a change after the signature clears it').toBeNull();
  });
});
