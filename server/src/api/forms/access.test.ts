/**
 * Access matrix of every plan route: each route is called by every kind of caller and answers the
 * status written out in MATRIX below; the effect (or its absence) is read back from the database.
 *
 * The plan under test belongs to Harbor View Academy. It is owned by a Harbor teacher (so that
 * ownership is the owner's only grant), its principalEmail is Harbor's principal, and it is shared
 * four ways: a `view` share, an `edit` share (a second assistant principal of Harbor, who edits only
 * because of it), an `edit` share limited to `attendancePlan` (step 6), and an e-mail share
 * (`sharedWithEmails`). The shared read-only plan gets its shares through the API (POST
 * /api/admin/forms/share and POST /api/forms/:id/share); rows that change something get a fresh
 * plan of their own, inserted straight into the database with the same shares (in a school year of
 * its own, since a school has one plan per year), so no row depends on another.
 *
 * The expected statuses follow docs/access-rules.md:
 *   read      owner; level 4 of the school or the principalEmail; level 2 of the school; users it is
 *             assigned or shared with; level 5.
 *   edit      owner; principal; level 5; `edit` shares (only their sections); sharedWithEmails.
 *             Level 3 never from the school alone.
 *   presence  (editors, locks) same-school levels 2, 3, 4; owner; assigned or shared; level 5.
 *   principal (attest) level 4 of the plan's school or its principalEmail — not level 5, not another
 *             school's principal.
 *   level 5   review, delete, comment, e-mail share, transfer ownership, live override.
 *   share     (admin share routes) level 4 of the plan's school, or level 5.
 * A Super Admin previewing the demo principal of Harbor acts as that level-4 Harbor user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { currentSchoolYear, previousSchoolYear, NEEDS_UPDATE_LABELS, type NeedsUpdateFlag, type PlanStatus } from '@csp/shared';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';

import { comments, notifications, planShares, planSteps, plans, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { freshYear, insertPlan, insertShares, planRow } from '../../testing/factories.ts';
import type { UserRow } from '../../storage/rows.ts';
import { userByEmail } from '../../testing/users.ts';

const HARBOR = 'Harbor View Academy';
const RIVERSIDE = 'Riverside Learning Center';
const STEP_KEYS = BUNDLED_BANK.steps.map((step) => step.key);

// ── callers ─────────────────────────────────────────────────────────────────────────────────────

/**
 * Column order of MATRIX. H = the plan's school (Harbor), R = another school (Riverside); L5 the
 * Super Admin; owner/view/edit/section/email the plan's owner and its four kinds of share; preview
 * a Super Admin previewing the demo principal of Harbor.
 */
const CALLERS = ['none', 'H1', 'H2', 'H3', 'H4', 'L5', 'R1', 'R2', 'R3', 'R4', 'owner', 'view', 'edit', 'section', 'email', 'preview'] as const;
type Caller = (typeof CALLERS)[number];

const DEMO_EMAIL: Partial<Record<Caller, string>> = {
  H1: 'teacher.harbor@example.org',
  H2: 'coordinator.harbor@example.org',
  H3: 'ap.harbor@example.org',
  H4: 'principal.harbor@example.org',
  L5: 'superadmin@example.org',
  R1: 'teacher.riverside@example.org',
  R2: 'coordinator.riverside@example.org',
  R3: 'ap.riverside@example.org',
  R4: 'principal.riverside@example.org',
};

/** Users made for this test: each one's only link to the plan is the one its name says. */
const MADE_USERS: Partial<Record<Caller, { email: string; name: string; level: number; schoolName: string }>> = {
  owner: { email: 'matrix.owner@example.org', name: 'Matrix Owner', level: 1, schoolName: HARBOR },
  view: { email: 'matrix.view@example.org', name: 'Matrix Viewer', level: 1, schoolName: RIVERSIDE },
  edit: { email: 'matrix.edit@example.org', name: 'Matrix Editor', level: 3, schoolName: HARBOR },
  section: { email: 'matrix.section@example.org', name: 'Matrix Section Editor', level: 1, schoolName: RIVERSIDE },
  email: { email: 'matrix.email@example.org', name: 'Matrix Mail Share', level: 3, schoolName: HARBOR },
};
const PRINCIPAL_EMAIL = DEMO_EMAIL.H4!;
const DEMO_PRINCIPAL_EMAIL = 'demo.principal@example.org';

// ── the expected matrix ─────────────────────────────────────────────────────────────────────────

type Route =
  | 'GET /api/forms'
  | 'POST /api/forms'
  | 'GET /api/forms/:id'
  | 'PUT /api/forms/:id update'
  | 'PUT /api/forms/:id submit'
  | 'PUT /api/forms/:id review'
  | 'DELETE /api/forms/:id'
  | 'GET step/6'
  | 'GET step/7'
  | 'PUT step/6'
  | 'PUT step/7'
  | 'POST step/6/unlock'
  | 'POST step/7/unlock'
  | 'GET locks'
  | 'GET editors'
  | 'POST editors/register'
  | 'POST attest'
  | 'POST review-flag step 6'
  | 'POST review-flag step 7'
  | 'POST comments'
  | 'PUT comments/:commentId'
  | 'POST /api/forms/:id/share'
  | 'GET transfer-ownership'
  | 'POST transfer-ownership'
  | 'POST admin share'
  | 'GET admin share'
  | 'DELETE admin share'
  | 'POST admin live'
  | 'GET notifications'
  | 'POST notifications';

const U = 401;
const F = 403;
const NF = 404;
const OK = 200;

// prettier-ignore
const MATRIX: [Route, ...number[]][] = [
  //                                 none  H1  H2  H3  H4  L5  R1  R2  R3  R4 owner view edit sect mail prev
  // every signed-in user lists (which plans: LISTED below)
  ['GET /api/forms',                   U, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK],
  // level >= 4, a principal for the own school (the preview acts as Harbor's demo principal)
  ['POST /api/forms',                  U,  F,  F,  F, OK, OK,  F,  F,  F, OK,  F,  F,  F,  F,  F, OK],
  // read
  ['GET /api/forms/:id',               U,  F, OK,  F, OK, OK,  F,  F,  F,  F, OK, OK, OK, OK, OK, OK],
  ['GET step/6',                       U,  F, OK,  F, OK, OK,  F,  F,  F,  F, OK, OK, OK, OK, OK, OK],
  // the section-limited share covers step 6 only
  ['GET step/7',                       U,  F, OK,  F, OK, OK,  F,  F,  F,  F, OK, OK, OK,  F, OK, OK],
  // metadata: the school's principal or level 5
  ['PUT /api/forms/:id update',        U,  F,  F,  F, OK, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F, OK],
  // submit: an editor of the whole plan (a share limited to one section is not)
  ['PUT /api/forms/:id submit',        U,  F,  F,  F, OK, OK,  F,  F,  F,  F, OK,  F, OK,  F, OK, OK],
  // review, delete: level 5 only (a previewing Super Admin acts as level 4)
  ['PUT /api/forms/:id review',        U,  F,  F,  F,  F, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F,  F],
  ['DELETE /api/forms/:id',            U,  F,  F,  F,  F, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F,  F],
  // edit, per step
  ['PUT step/6',                       U,  F,  F,  F, OK, OK,  F,  F,  F,  F, OK,  F, OK, OK, OK, OK],
  ['PUT step/7',                       U,  F,  F,  F, OK, OK,  F,  F,  F,  F, OK,  F, OK,  F, OK, OK],
  ['POST step/6/unlock',               U,  F,  F,  F, OK, OK,  F,  F,  F,  F, OK,  F, OK, OK, OK, OK],
  ['POST step/7/unlock',               U,  F,  F,  F, OK, OK,  F,  F,  F,  F, OK,  F, OK,  F, OK, OK],
  ['POST review-flag step 6',          U,  F,  F,  F, OK, OK,  F,  F,  F,  F, OK,  F, OK, OK, OK, OK],
  ['POST review-flag step 7',          U,  F,  F,  F, OK, OK,  F,  F,  F,  F, OK,  F, OK,  F, OK, OK],
  // presence and locks: same-school levels 2-4, owner, assigned or shared, level 5
  ['GET locks',                        U,  F, OK, OK, OK, OK,  F,  F,  F,  F, OK, OK, OK, OK, OK, OK],
  ['GET editors',                      U,  F, OK, OK, OK, OK,  F,  F,  F,  F, OK, OK, OK, OK, OK, OK],
  ['POST editors/register',            U,  F, OK, OK, OK, OK,  F,  F,  F,  F, OK, OK, OK, OK, OK, OK],
  // the plan's principal only: not level 5, not another school's principal
  ['POST attest',                      U,  F,  F,  F, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F,  F, OK],
  // comments: level 5 creates; editors (and level 5) mark read/fixed (the comment is on step 6)
  ['POST comments',                    U,  F,  F,  F,  F, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F,  F],
  ['PUT comments/:commentId',          U,  F,  F,  F, OK, OK,  F,  F,  F,  F, OK,  F, OK, OK, OK, OK],
  // level 5 only
  ['POST /api/forms/:id/share',        U,  F,  F,  F,  F, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F,  F],
  ['GET transfer-ownership',           U,  F,  F,  F,  F, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F,  F],
  ['POST transfer-ownership',          U,  F,  F,  F,  F, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F,  F],
  ['POST admin live',                  U,  F,  F,  F,  F, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F,  F],
  // admin share: level 4 of the plan's school, or level 5
  ['POST admin share',                 U,  F,  F,  F, OK, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F, OK],
  ['GET admin share',                  U,  F,  F,  F, OK, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F, OK],
  ['DELETE admin share',               U,  F,  F,  F, OK, OK,  F,  F,  F,  F,  F,  F,  F,  F,  F, OK],
  // own notifications; marking the owner's notification read is the owner's alone (404 for others)
  ['GET notifications',                U, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK],
  ['POST notifications',               U, NF, NF, NF, NF, NF, NF, NF, NF, NF, OK, NF, NF, NF, NF, NF],
];

/** Plans whose presence in GET /api/forms is checked for each caller. */
type Listed = 'plan' | 'riversideShared' | 'harborPrevious' | 'harborCurrent' | 'riversidePrevious' | 'riversideCurrent';

/**
 * What GET /api/forms lists: level 5 all; levels 4 and 2 their own school plus what they are
 * assigned or shared (`riversideShared` is a Riverside plan shared with Harbor's principal); levels 3
 * and 1 only what they own, are assigned or are shared: what each may read (listScope.test.ts).
 */
// prettier-ignore
const LISTED: Record<Exclude<Caller, 'none'>, Listed[]> = {
  H1: [],
  H2: ['plan', 'harborPrevious', 'harborCurrent'],
  H3: [],
  H4: ['plan', 'riversideShared', 'harborPrevious', 'harborCurrent'],
  L5: ['plan', 'riversideShared', 'harborPrevious', 'harborCurrent', 'riversidePrevious', 'riversideCurrent'],
  R1: [],
  R2: ['riversideShared', 'riversidePrevious', 'riversideCurrent'],
  R3: [],
  R4: ['riversideShared', 'riversidePrevious', 'riversideCurrent'],
  owner: ['plan'],
  view: ['plan'],
  edit: ['plan'],
  section: ['plan'],
  email: ['plan'],
  preview: ['plan', 'harborPrevious', 'harborCurrent'],
};

/** Who received a notification about the shared plan's review comment (on the whole plan): its editors. */
const NOTIFIED: Caller[] = ['owner', 'H4', 'edit', 'section', 'email'];

// ── fixtures ────────────────────────────────────────────────────────────────────────────────────

const REVIEW_FLAGS: NeedsUpdateFlag[] = [
  { questionId: 'att_coordinatorName', stepKey: 'attendancePlan', reason: 'revisit', label: NEEDS_UPDATE_LABELS.revisit },
  { questionId: 'sth_liaison', stepKey: 'temporaryHousing', reason: 'revisit', label: NEEDS_UPDATE_LABELS.revisit },
];
const FLAG_OF = { 'POST review-flag step 6': REVIEW_FLAGS[0]!, 'POST review-flag step 7': REVIEW_FLAGS[1]! } as const;

/** A valid answer per step: step 6 (attendancePlan) text, step 7 (temporaryHousing) table. */
const ANSWER = {
  6: (marker: string) => ({ att_coordinatorName: marker }),
  7: (marker: string) => ({
    sth_liaison: {
      headers: ['First Name', 'Last Name', 'Title', 'E-mail', 'Telephone'],
      rows: [[marker, 'Diaz', 'Liaison', 'liaison@example.org', '555-0100']],
    },
  }),
} as const;

let server: TestServer;
const clients = new Map<Caller, HttpClient>();
/** The user each caller acts as (the demo principal for the preview). */
const actorOf = new Map<Caller, UserRow>();
let superAdmin: UserRow;

/** The shared plan for rows that change nothing (shares set up through the API). */
let plan: { id: string; schoolYear: string };
const listedIds = new Map<Listed, string>();
/** The owner's notification about the shared plan (made by a review comment in beforeAll). */
let ownerNotificationId: string;

const db = () => server.services.storage.db;

/**
 * A plan of Harbor in a fresh year, owned by `owner`, principal Harbor's principal, with review
 * flags on steps 6 and 7, one open comment on step 6, and (unless `shares` is false) the same
 * shares the API gives the shared plan: view, edit, edit limited to attendancePlan, e-mail share.
 */
async function insertHarborPlan(options: { status?: PlanStatus; shares?: boolean } = {}): Promise<{ id: string; schoolYear: string; commentId: string }> {
  const schoolYear = freshYear();
  const withShares = options.shares ?? true;
  const id = await insertPlan(server, {
    schoolName: HARBOR,
    schoolYear,
    status: options.status ?? 'draft',
    userId: actorOf.get('owner')!.id,
    principalEmail: PRINCIPAL_EMAIL,
    sharedWithEmails: withShares ? [MADE_USERS.email!.email] : [],
    needsUpdate: REVIEW_FLAGS,
  });
  if (withShares) {
    await insertShares(server, [
      { formId: id, userId: actorOf.get('view')!.id, permission: 'view', sections: [], sharedBy: superAdmin.id },
      { formId: id, userId: actorOf.get('edit')!.id, permission: 'edit', sections: [], sharedBy: superAdmin.id },
      { formId: id, userId: actorOf.get('section')!.id, permission: 'edit', sections: ['attendancePlan'], sharedBy: superAdmin.id },
    ]);
  }
  const commentId = newId();
  await db().insert(comments).values({
    id: commentId,
    formId: id,
    stepKey: 'attendancePlan',
    questionId: 'att_coordinatorName',
    comment: 'Please confirm the coordinator',
    authorId: superAdmin.id,
    authorName: superAdmin.name,
  });
  return { id, schoolYear, commentId };
}

async function stepRow(formId: string, stepKey: string) {
  const [row] = await db()
    .select()
    .from(planSteps)
    .where(and(eq(planSteps.formId, formId), eq(planSteps.stepKey, stepKey)))
    .limit(1);
  return row;
}

async function sharesOf(formId: string) {
  return db().select().from(planShares).where(eq(planShares.formId, formId));
}

beforeAll(async () => {
  server = await startTestServer();
  for (const made of Object.values(MADE_USERS))
    await db()
      .insert(users)
      .values({ id: newId(), ...made });

  clients.set('none', new HttpClient(server.url));
  for (const caller of CALLERS) {
    if (caller === 'none') continue;
    const email = DEMO_EMAIL[caller] ?? MADE_USERS[caller]?.email ?? DEMO_EMAIL.L5!;
    clients.set(caller, await signIn(server.url, email));
    actorOf.set(caller, await userByEmail(server, caller === 'preview' ? DEMO_PRINCIPAL_EMAIL : email));
  }
  superAdmin = actorOf.get('L5')!;
  const preview = await clients.get('preview')!.post('/api/auth/preview', { userId: actorOf.get('preview')!.id });
  expect(preview.status, JSON.stringify(preview.body)).toBe(200);

  // The shared plan: shares through the API, as users would make them.
  plan = await insertHarborPlan({ shares: false });
  const admin = clients.get('L5')!;
  for (const [caller, permissions, sections] of [
    ['view', 'view', []],
    ['edit', 'edit', []],
    ['section', 'edit', ['attendancePlan']],
  ] as const) {
    const shared = await admin.post('/api/admin/forms/share', { formId: plan.id, userIds: [actorOf.get(caller)!.id], permissions, sections });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
  }
  const emailShare = await admin.post(`/api/forms/${plan.id}/share`, { sharedWithEmails: [MADE_USERS.email!.email] });
  expect(emailShare.status, JSON.stringify(emailShare.body)).toBe(200);
  // A review comment: the owner and the principal get a notification.
  const comment = await admin.post(`/api/forms/${plan.id}/comments`, { comment: 'Matrix review comment' });
  expect(comment.status, JSON.stringify(comment.body)).toBe(200);
  const [ownerNotification] = await db()
    .select()
    .from(notifications)
    .where(and(eq(notifications.formId, plan.id), eq(notifications.userId, actorOf.get('owner')!.id)));
  ownerNotificationId = ownerNotification!.id;

  // Plans whose listing is checked: the shared plan, a Riverside plan shared (view) with Harbor's
  // principal, and the demo district's four plans.
  listedIds.set('plan', plan.id);
  const riversideSharedId = newId();
  await db()
    .insert(plans)
    .values({
      id: riversideSharedId,
      schoolName: RIVERSIDE,
      schoolYear: plan.schoolYear,
      userId: actorOf.get('R4')!.id,
      principalEmail: DEMO_EMAIL.R4!,
      questionBankVersion: BUNDLED_BANK.version,
    });
  await db()
    .insert(planShares)
    .values({ formId: riversideSharedId, userId: actorOf.get('H4')!.id, permission: 'view', sections: [] });
  listedIds.set('riversideShared', riversideSharedId);
  const current = currentSchoolYear();
  const previous = previousSchoolYear(current);
  for (const [name, school, year] of [
    ['harborPrevious', HARBOR, previous],
    ['harborCurrent', HARBOR, current],
    ['riversidePrevious', RIVERSIDE, previous],
    ['riversideCurrent', RIVERSIDE, current],
  ] as const) {
    const [row] = await db()
      .select({ id: plans.id })
      .from(plans)
      .where(and(eq(plans.schoolName, school), eq(plans.schoolYear, year)));
    listedIds.set(name, row!.id);
  }
  // The demo district shares this year's Harbor plan with H3 for editing: removed, so that H3's only
  // link to Harbor's plans is the school name (which gives level 3 nothing).
  await db()
    .delete(planShares)
    .where(and(eq(planShares.formId, listedIds.get('harborCurrent')!), eq(planShares.userId, actorOf.get('H3')!.id)));
});
afterAll(() => server?.stop());

describe('fixtures', () => {
  it('the previewing Super Admin acts as the demo principal of Harbor', async () => {
    const session = await clients.get('preview')!.get('/api/auth/session');
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ previewing: true, user: { email: DEMO_PRINCIPAL_EMAIL, level: 4, schoolName: HARBOR } });
  });

  it('shares made through the API are the rows fresh fixtures insert', async () => {
    const byUser = (rows: Awaited<ReturnType<typeof sharesOf>>) =>
      rows.map((row) => ({ userId: row.userId, permission: row.permission, sections: row.sections })).sort((a, b) => a.userId.localeCompare(b.userId));
    const fresh = await insertHarborPlan();
    expect(byUser(await sharesOf(plan.id))).toEqual(byUser(await sharesOf(fresh.id)));
    expect((await planRow(server, plan.id))!.sharedWithEmails).toEqual((await planRow(server, fresh.id))!.sharedWithEmails);
  });

  it('every row of the matrix names all callers', () => {
    for (const [route, ...statuses] of MATRIX) expect(statuses, route).toHaveLength(CALLERS.length);
    expect(new Set(MATRIX.map(([route]) => route)).size).toBe(MATRIX.length);
  });
});

const ROWS = MATRIX.flatMap(([route, ...statuses]) => CALLERS.map((caller, index) => [route, caller, statuses[index]!] as const));

describe('plan routes access matrix', () => {
  it.each(ROWS)('%s by %s → %i', async (route, caller, status) => {
    const client = clients.get(caller)!;
    const actor = actorOf.get(caller);
    const marker = `matrix ${route} ${caller}`;
    const expectStatus = (response: { status: number; body: any }) => {
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      if (status >= 400) expect(typeof response.body?.error).toBe('string');
    };

    switch (route) {
      case 'GET /api/forms': {
        // One request per school year involved (the listing pages at 200 and fresh plans pile up).
        const seen: string[] = [];
        for (const year of [plan.schoolYear, currentSchoolYear(), previousSchoolYear(currentSchoolYear())]) {
          const response = await client.get(`/api/forms?schoolYear=${year}`);
          expectStatus(response);
          if (status !== OK) return;
          for (const form of response.body.forms) {
            expect(form).not.toHaveProperty('formData');
            expect(form.schoolYear).toBe(year);
            seen.push(form._id);
          }
        }
        const known = [...listedIds].filter(([, id]) => seen.includes(id)).map(([name]) => name);
        expect(known.sort()).toEqual([...LISTED[caller as Exclude<Caller, 'none'>]].sort());
        return;
      }

      case 'POST /api/forms': {
        // Principals create for their own school; the Super Admin for a new school; lower levels try their own.
        const schoolName = caller === 'L5' ? `Matrix School ${newId().slice(0, 6)}` : (actor?.schoolName ?? HARBOR);
        const schoolYear = freshYear();
        const response = await client.post('/api/forms', { schoolName, schoolYear });
        expectStatus(response);
        const [created] = await db()
          .select()
          .from(plans)
          .where(and(eq(plans.schoolName, schoolName), eq(plans.schoolYear, schoolYear)));
        if (status === OK) {
          expect(response.body).toMatchObject({ success: true, formId: created?.id, message: expect.any(String) });
          expect(created?.userId).toBe(actor!.id);
        } else expect(created).toBeUndefined();
        return;
      }

      case 'GET /api/forms/:id': {
        const response = await client.get(`/api/forms/${plan.id}`);
        expectStatus(response);
        if (status !== OK) return;
        expect(response.body._id).toBe(plan.id);
        const readable = caller === 'section' ? ['attendancePlan'] : STEP_KEYS;
        expect(Object.keys(response.body.formData).sort()).toEqual([...readable].sort());
        const editors: Caller[] = ['H4', 'L5', 'owner', 'edit', 'section', 'email', 'preview'];
        expect(response.body.userPermission.canEdit).toBe(editors.includes(caller));
        // What the plan page offers comes from the same policy as the routes' answers.
        expect(response.body.userPermission).toMatchObject({
          canSubmit: editors.includes(caller) && caller !== 'section',
          canShare: ['H4', 'L5', 'preview'].includes(caller),
          canReview: caller === 'L5',
        });
        expect(response.body.comments.map((c: { comment: string }) => c.comment)).toContain('Matrix review comment');
        return;
      }

      case 'PUT /api/forms/:id update': {
        const fixture = await insertHarborPlan();
        const assignedTo = `assignee.${fixture.id.slice(0, 8)}@example.org`;
        expectStatus(await client.put(`/api/forms/${fixture.id}`, { action: 'update', assignedTo }));
        expect((await planRow(server, fixture.id))!.assignedTo).toBe(status === OK ? assignedTo : null);
        return;
      }

      case 'PUT /api/forms/:id submit': {
        const fixture = await insertHarborPlan({ status: 'draft' });
        const response = await client.put(`/api/forms/${fixture.id}`, { action: 'submit' });
        expectStatus(response);
        if (status === OK) expect(response.body.status).toBe('submitted');
        expect((await planRow(server, fixture.id))!.status).toBe(status === OK ? 'submitted' : 'draft');
        return;
      }

      case 'PUT /api/forms/:id review': {
        const fixture = await insertHarborPlan({ status: 'submitted' });
        const response = await client.put(`/api/forms/${fixture.id}`, { action: 'review', status: 'under_review' });
        expectStatus(response);
        expect((await planRow(server, fixture.id))!.status).toBe(status === OK ? 'under_review' : 'submitted');
        return;
      }

      case 'DELETE /api/forms/:id': {
        const fixture = await insertHarborPlan();
        expectStatus(await client.delete(`/api/forms/${fixture.id}`));
        expect(await planRow(server, fixture.id)).toEqual(status === OK ? undefined : expect.objectContaining({ id: fixture.id }));
        return;
      }

      case 'GET step/6':
      case 'GET step/7': {
        const n = route === 'GET step/6' ? 6 : 7;
        const response = await client.get(`/api/forms/${plan.id}/step/${n}`);
        expectStatus(response);
        if (status === OK) {
          expect(response.body).toMatchObject({
            success: true,
            stepKey: STEP_KEYS[n - 1],
            stepNumber: n,
            stepData: { completed: false, data: {} },
            revisionCount: 0,
          });
        }
        return;
      }

      case 'PUT step/6':
      case 'PUT step/7': {
        const n = route === 'PUT step/6' ? 6 : 7;
        const fixture = await insertHarborPlan();
        const data = ANSWER[n](marker);
        const response = await client.put(`/api/forms/${fixture.id}/step/${n}`, {
          stepData: { completed: false, data },
          lastUpdated: null,
          mergeStrategy: 'last-write-wins',
        });
        expectStatus(response);
        const stored = await stepRow(fixture.id, STEP_KEYS[n - 1]!);
        if (status === OK) {
          expect(response.body).toMatchObject({ success: true, stepKey: STEP_KEYS[n - 1], stepNumber: n, revisionCount: 1, stepData: { data } });
          expect(stored!.data).toEqual(data);
        } else {
          expect(stored!.data).toEqual({});
          expect(stored!.revisionCount).toBe(0);
        }
        return;
      }

      case 'POST step/6/unlock':
      case 'POST step/7/unlock': {
        // Nobody holds a lock on the shared plan: an editor's unlock is a no-op.
        const response = await client.post(`/api/forms/${plan.id}/step/${route === 'POST step/6/unlock' ? 6 : 7}/unlock`);
        expectStatus(response);
        if (status === OK) expect(response.body).toEqual({ success: true, released: false });
        return;
      }

      case 'GET locks': {
        const response = await client.get(`/api/forms/${plan.id}/locks`);
        expectStatus(response);
        if (status === OK) expect(response.body).toEqual({ locks: [] });
        return;
      }

      case 'GET editors': {
        const response = await client.get(`/api/forms/${plan.id}/editors`);
        expectStatus(response);
        if (status === OK) expect(Array.isArray(response.body.editors)).toBe(true);
        return;
      }

      case 'POST editors/register': {
        const response = await client.post(`/api/forms/${plan.id}/editors/register`, { stepKey: 'attendancePlan' });
        expectStatus(response);
        const listed = await clients.get('L5')!.get(`/api/forms/${plan.id}/editors`);
        const here = listed.body.editors.some((editor: { email: string }) => editor.email === actor?.email);
        expect(here).toBe(status === OK);
        if (status === OK) expect(response.body.editor).toMatchObject({ userId: actor!.id, email: actor!.email, stepKey: 'attendancePlan' });
        return;
      }

      case 'POST attest': {
        const fixture = await insertHarborPlan();
        // A principal signs with their own name (anyone else's is refused: lifecycle.test.ts).
        const response = await client.post(`/api/forms/${fixture.id}/attest`, { name: actor?.name ?? marker });
        expectStatus(response);
        const { attestation } = (await planRow(server, fixture.id))!;
        if (status === OK) expect(attestation).toMatchObject({ confirmed: true, name: actor!.name, signedBy: actor!.id, signedAt: expect.any(String) });
        else expect(attestation).toBeNull();
        return;
      }

      case 'POST review-flag step 6':
      case 'POST review-flag step 7': {
        const flag = FLAG_OF[route];
        const fixture = await insertHarborPlan();
        expectStatus(await client.post(`/api/forms/${fixture.id}/review-flag`, { questionId: flag.questionId, stepKey: flag.stepKey }));
        const { needsUpdate } = (await planRow(server, fixture.id))!;
        expect(needsUpdate).toEqual(status === OK ? REVIEW_FLAGS.filter((f) => f !== flag) : REVIEW_FLAGS);
        return;
      }

      case 'POST comments': {
        const fixture = await insertHarborPlan();
        expectStatus(await client.post(`/api/forms/${fixture.id}/comments`, { comment: marker, stepKey: 'temporaryHousing' }));
        const stored = await db()
          .select()
          .from(comments)
          .where(and(eq(comments.formId, fixture.id), eq(comments.comment, marker)));
        expect(stored).toHaveLength(status === OK ? 1 : 0);
        return;
      }

      case 'PUT comments/:commentId': {
        const fixture = await insertHarborPlan();
        expectStatus(await client.put(`/api/forms/${fixture.id}/comments/${fixture.commentId}`, { action: 'read' }));
        const [stored] = await db().select().from(comments).where(eq(comments.id, fixture.commentId));
        expect(stored!.status).toBe(status === OK ? 'read' : 'open');
        return;
      }

      case 'POST /api/forms/:id/share': {
        const fixture = await insertHarborPlan();
        const emails = [MADE_USERS.email!.email, DEMO_EMAIL.H1!];
        expectStatus(await client.post(`/api/forms/${fixture.id}/share`, { sharedWithEmails: emails }));
        expect((await planRow(server, fixture.id))!.sharedWithEmails).toEqual(status === OK ? emails : [MADE_USERS.email!.email]);
        return;
      }

      case 'GET transfer-ownership': {
        const response = await client.get('/api/forms/transfer-ownership');
        expectStatus(response);
        if (status === OK) {
          const emails = response.body.principals.map((p: { email: string }) => p.email);
          expect(emails).toEqual(expect.arrayContaining([DEMO_EMAIL.H4, DEMO_EMAIL.R4]));
          expect(emails).not.toContain(DEMO_PRINCIPAL_EMAIL);
        }
        return;
      }

      case 'POST transfer-ownership': {
        const fixture = await insertHarborPlan();
        const newOwner = actorOf.get('R4')!;
        expectStatus(await client.post('/api/forms/transfer-ownership', { formId: fixture.id, newOwnerEmail: newOwner.email }));
        const after = (await planRow(server, fixture.id))!;
        if (status === OK) {
          expect(after).toMatchObject({ userId: newOwner.id, principalEmail: newOwner.email });
          expect(after.transferHistory).toHaveLength(1);
        } else {
          expect(after).toMatchObject({ userId: actorOf.get('owner')!.id, principalEmail: PRINCIPAL_EMAIL, transferHistory: [] });
        }
        return;
      }

      case 'POST admin share': {
        const fixture = await insertHarborPlan();
        const target = actorOf.get('H1')!;
        expectStatus(
          await client.post('/api/admin/forms/share', { formId: fixture.id, userIds: [target.id], permissions: 'edit', sections: ['attendancePlan'] }),
        );
        const share = (await sharesOf(fixture.id)).find((row) => row.userId === target.id);
        if (status === OK) expect(share).toMatchObject({ permission: 'edit', sections: ['attendancePlan'] });
        else expect(share).toBeUndefined();
        return;
      }

      case 'GET admin share': {
        const response = await client.get(`/api/admin/forms/share?formId=${plan.id}`);
        expectStatus(response);
        if (status === OK) {
          const shares = response.body.shares.map((s: { email: string; permissions: string; sections: string[] }) => [s.email, s.permissions, s.sections]);
          expect(shares.sort()).toEqual(
            [
              [MADE_USERS.view!.email, 'view', []],
              [MADE_USERS.edit!.email, 'edit', []],
              [MADE_USERS.section!.email, 'edit', ['attendancePlan']],
            ].sort(),
          );
        }
        return;
      }

      case 'DELETE admin share': {
        const fixture = await insertHarborPlan();
        const target = actorOf.get('view')!;
        expectStatus(await client.delete('/api/admin/forms/share', { formId: fixture.id, userIds: [target.id] }));
        const remaining = (await sharesOf(fixture.id)).map((row) => row.userId);
        expect(remaining.includes(target.id)).toBe(status !== OK);
        expect(remaining).toHaveLength(status === OK ? 2 : 3);
        return;
      }

      case 'POST admin live': {
        const fixture = await insertHarborPlan();
        expectStatus(await client.post('/api/admin/forms/live', { formId: fixture.id, live: true }));
        expect((await planRow(server, fixture.id))!.allowEditsWhenArchived).toBe(status === OK);
        return;
      }

      case 'GET notifications': {
        const response = await client.get('/api/notifications');
        expectStatus(response);
        if (status !== OK) return;
        const aboutComment = response.body.notifications.filter((n: { formId: string; kind: string }) => n.formId === plan.id && n.kind === 'comment');
        expect(aboutComment.length > 0, `${caller} has a notification about the plan's comment`).toBe(NOTIFIED.includes(caller));
        return;
      }

      case 'POST notifications': {
        const response = await client.post('/api/notifications', { notificationId: ownerNotificationId });
        expectStatus(response);
        if (status === OK) expect(response.body.notification).toMatchObject({ _id: ownerNotificationId, readAt: expect.any(String) });
        return;
      }
    }
  });
});
