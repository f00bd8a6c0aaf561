/**
 * Year-over-year duplication of one plan, over HTTP against a real server: what a copy carries and
 * what it leaves behind (field by field), the 409 conflict and the fill-only `force` merge, the
 * attestation a copy needs before submit, archived target years, who may duplicate, bad bodies;
 * review flags across two real published bank versions (edited through the admin routes); and the
 * compare view (rows, normalisation, `changed`, district goals).
 *
 * Fixture plans are inserted straight into the database, each in a school year of its own, so no
 * test depends on another. The two-bank-versions test publishes a new bank; it runs last.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import {
  COMPARE_STEP_KEYS,
  NEEDS_UPDATE_LABELS,
  currentSchoolYear,
  isActive,
  isStepComplete,
  previousSchoolYear,
  type NeedsUpdateFlag,
  type Question,
  type StepAnswers,
} from '@csp/shared';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { comments, planShares, planSteps, plans, schoolYearSettings, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { freshYear, planRow } from '../../testing/factories.ts';
import { sampleStepAnswers } from '../../seed/sampleAnswers.ts';
import { userByEmail } from '../../testing/users.ts';

const HARBOR = 'Harbor View Academy';
const STEPS = BUNDLED_BANK.steps;
const STEP_KEYS = STEPS.map((step) => step.key);
const CURRENT = currentSchoolYear();
const PREVIOUS = previousSchoolYear(CURRENT);

let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
let riversidePrincipal: HttpClient;
let ap: HttpClient;
let coordinator: HttpClient;
let teacher: HttpClient;
type UserRow = typeof users.$inferSelect;
const user = {} as Record<'admin' | 'principal' | 'ap' | 'coordinator' | 'teacher', UserRow>;

const db = () => server.services.storage.db;

const stepNumberOf = (stepKey: string) => STEP_KEYS.indexOf(stepKey) + 1;

/** Sample answers for every step but counseling, which stays empty (as in the demo district). */
function sourceAnswers(stepKey: string, schoolName: string): StepAnswers {
  if (stepKey === 'counselingPlan') return {};
  return sampleStepAnswers(
    STEPS.find((step) => step.key === stepKey)!,
    schoolName,
  );
}

interface SourceOptions {
  schoolName?: string;
  schoolYear?: string;
  /** Gives the source everything a copy must leave behind (review fields, shares, attestation...). */
  extras?: boolean;
  answers?: (stepKey: string) => StepAnswers;
  questionBankVersion?: number | null;
}

/**
 * A Harbor source plan in a fresh year: owned by the Harbor teacher (so "owner kept" is not the
 * caller), principal Harbor's principal, assigned to the coordinator; answered steps, except
 * counseling which is empty yet marked completed, and sexual harassment answered but not completed.
 */
/** Harbor's plans of one year (one at most, whatever was tried). */
const harborPlansIn = (schoolYear: string) =>
  db()
    .select({ id: plans.id })
    .from(plans)
    .where(and(eq(plans.schoolName, HARBOR), eq(plans.schoolYear, schoolYear)));

/** The signature an approved source carries (a save after it would clear it). */
const sourceAttestation = { confirmed: true, name: 'Elena Rodriguez', signedAt: '2025-05-01T12:00:00.000Z', signedBy: 'signer' };

async function insertSource(options: SourceOptions = {}): Promise<{ id: string; schoolYear: string }> {
  const id = newId();
  const schoolYear = options.schoolYear ?? freshYear();
  const schoolName = options.schoolName ?? HARBOR;
  const extras = options.extras
    ? {
        status: 'approved' as const,
        sharedWithEmails: [user.ap.email],
        needsUpdate: [{ questionId: 'att_coordinatorName', stepKey: 'attendancePlan', reason: 'revisit' as const, label: NEEDS_UPDATE_LABELS.revisit }],
        attestation: sourceAttestation,
        transferHistory: [
          {
            fromUserId: user.principal.id,
            fromEmail: user.principal.email,
            toUserId: user.teacher.id,
            toEmail: user.teacher.email,
            transferredBy: user.admin.email,
            transferredAt: '2025-03-01T10:00:00.000Z',
          },
        ],
        notificationSent: true,
        allowEditsWhenArchived: true,
        copiedFromId: newId(),
        reviewComment: 'Approved with thanks',
        reviewedBy: user.admin.id,
        reviewedAt: new Date('2025-05-20T10:00:00Z'),
        submittedAt: new Date('2025-05-15T10:00:00Z'),
      }
    : {};
  await db()
    .insert(plans)
    .values({
      id,
      schoolName,
      schoolYear,
      userId: user.teacher.id,
      principalEmail: user.principal.email,
      assignedTo: user.coordinator.email,
      questionBankVersion: options.questionBankVersion === undefined ? BUNDLED_BANK.version : options.questionBankVersion,
      ...extras,
    });
  await db()
    .insert(planSteps)
    .values(
      STEPS.map((step) => {
        const data = options.answers ? options.answers(step.key) : sourceAnswers(step.key, schoolName);
        const answered = Object.keys(data).length > 0;
        const completed = step.key === 'counselingPlan' ? true : step.key === 'sexualHarassment' ? false : answered && isStepComplete(step, data);
        return {
          formId: id,
          stepKey: step.key,
          data,
          completed,
          revisionCount: answered ? 3 : 0,
          lastUpdated: answered ? new Date('2025-04-20T14:00:00Z') : null,
        };
      }),
    );
  if (options.extras) {
    await db().insert(comments).values({
      id: newId(),
      formId: id,
      stepKey: 'attendancePlan',
      comment: 'Please update the coordinator',
      authorId: user.admin.id,
      authorName: 'Dana Whitfield',
    });
    await db().insert(planShares).values({ formId: id, userId: user.ap.id, permission: 'edit', sections: [] });
  }
  return { id, schoolYear };
}

async function stepsOf(id: string) {
  const rows = await db().select().from(planSteps).where(eq(planSteps.formId, id));
  return new Map(rows.map((row) => [row.stepKey, row]));
}

async function formIdOf(schoolName: string, schoolYear: string): Promise<string | undefined> {
  const [row] = await db()
    .select({ id: plans.id })
    .from(plans)
    .where(and(eq(plans.schoolName, schoolName), eq(plans.schoolYear, schoolYear)));
  return row?.id;
}

const duplicate = (client: HttpClient, formId: string, body: unknown) => client.post(`/api/forms/${formId}/duplicate`, body);

const saveStep = (client: HttpClient, formId: string, stepKey: string, data: StepAnswers) =>
  client.put(`/api/forms/${formId}/step/${stepNumberOf(stepKey)}`, { stepData: { data }, lastUpdated: null, mergeStrategy: 'last-write-wins' });

beforeAll(async () => {
  server = await startTestServer();
  const emails = {
    admin: 'superadmin@example.org',
    principal: 'principal.harbor@example.org',
    ap: 'ap.harbor@example.org',
    coordinator: 'coordinator.harbor@example.org',
    teacher: 'teacher.harbor@example.org',
  } as const;
  for (const [key, email] of Object.entries(emails) as [keyof typeof emails, string][]) user[key] = await userByEmail(server, email);
  [admin, principal, riversidePrincipal, ap, coordinator, teacher] = await signInAll(server.url, [
    emails.admin,
    emails.principal,
    'principal.riverside@example.org',
    emails.ap,
    emails.coordinator,
    emails.teacher,
  ]);
});
afterAll(() => server?.stop());

// ── duplicate, field by field ───────────────────────────────────────────────────────────────────

describe('POST /api/forms/:id/duplicate', () => {
  it('copies answers, school, principal, owner and completion of answered steps, and nothing else', async () => {
    const source = await insertSource({ extras: true });
    // The source holds a step lock (its principal saved a step before it was approved): the copy must not.
    await db().update(plans).set({ status: 'draft' }).where(eq(plans.id, source.id));
    expect((await saveStep(principal, source.id, 'attendancePlan', { att_lastYearRate: '91.5%' })).status).toBe(200);
    await db().update(plans).set({ status: 'approved', attestation: sourceAttestation }).where(eq(plans.id, source.id));
    expect((await admin.get(`/api/forms/${source.id}/locks`)).body.locks).toHaveLength(1);
    const sourceRow = (await planRow(server, source.id))!;
    const sourceSteps = await stepsOf(source.id);

    const target = freshYear();
    const { status, body } = await duplicate(principal, source.id, { schoolYear: target });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, schoolYear: target, sourceYear: source.schoolYear });
    expect(typeof body.message).toBe('string');
    expect(body.formId).toMatch(/^[0-9a-f]{24}$/);
    expect(body.formId).not.toBe(source.id);

    const copy = (await planRow(server, body.formId))!;
    const [settings] = await db().select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, target));
    // Kept.
    expect(copy.schoolName).toBe(HARBOR);
    expect(copy.schoolYear).toBe(target);
    expect(copy.userId).toBe(user.teacher.id);
    expect(copy.principalEmail).toBe(user.principal.email);
    expect(copy.assignedTo).toBe(user.coordinator.email);
    expect(copy.copiedFromId).toBe(source.id);
    expect(copy.questionBankVersion).toBe(settings!.questionBankVersion);
    // Left behind.
    expect(copy.status).toBe('draft');
    expect(copy.sharedWithEmails).toEqual([]);
    expect(copy.attestation).toBeNull();
    expect(copy.transferHistory).toEqual([]);
    expect(copy.reviewComment).toBeNull();
    expect(copy.reviewedBy).toBeNull();
    expect(copy.reviewedAt).toBeNull();
    expect(copy.submittedAt).toBeNull();
    expect(copy.notificationSent).toBe(false);
    expect(copy.allowEditsWhenArchived).toBe(false);
    expect(await db().select().from(comments).where(eq(comments.formId, copy.id))).toEqual([]);
    expect(await db().select().from(planShares).where(eq(planShares.formId, copy.id))).toEqual([]);
    expect((await admin.get(`/api/forms/${copy.id}/locks`)).body.locks).toEqual([]);
    // The source is unchanged.
    expect(await planRow(server, source.id)).toEqual(sourceRow);

    // Answers of every step, exactly; completion only where there are answers.
    const copySteps = await stepsOf(copy.id);
    expect([...copySteps.keys()].sort()).toEqual([...STEP_KEYS].sort());
    for (const stepKey of STEP_KEYS) {
      const from = sourceSteps.get(stepKey)!;
      const to = copySteps.get(stepKey)!;
      expect(to.data, stepKey).toEqual(from.data);
      expect(to.completed, stepKey).toBe(Object.keys(from.data).length > 0 ? from.completed : false);
    }
    expect(copySteps.get('sexualHarassment')!.completed).toBe(false);
    expect(copySteps.get('attendancePlan')!.data.att_lastYearRate).toBe('91.5%');
    // The empty counseling step stays empty (and not completed, although the source said so).
    expect(copySteps.get('counselingPlan')!.data).toEqual({});
    expect(copySteps.get('counselingPlan')!.completed).toBe(false);

    // The same, as the API presents it.
    const read = await principal.get(`/api/forms/${copy.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      _id: copy.id,
      status: 'draft',
      userId: user.teacher.id,
      principalEmail: user.principal.email,
      assignedTo: user.coordinator.email,
      sharedWithEmails: [],
      attestation: null,
      transferHistory: [],
      copiedFromId: source.id,
      comments: [],
    });
    for (const stepKey of STEP_KEYS) expect(read.body.formData[stepKey].data, stepKey).toEqual(sourceSteps.get(stepKey)!.data);
    expect(read.body.collaborationInfo.shares).toEqual([]);
  });

  it('answers 409 with existingFormId when the school already has a plan for the year', async () => {
    const source = await insertSource();
    const target = freshYear();
    const first = await duplicate(principal, source.id, { schoolYear: target });
    expect(first.status).toBe(200);
    const again = await duplicate(principal, source.id, { schoolYear: target });
    expect(again.status).toBe(409);
    expect(again.body.existingFormId).toBe(first.body.formId);
    expect(typeof again.body.error).toBe('string');
    expect(await harborPlansIn(target)).toHaveLength(1);

    // The demo district: last year's Harbor plan into this year, where Harbor has its draft.
    const demoPrevious = (await formIdOf(HARBOR, PREVIOUS))!;
    const demoCurrent = (await formIdOf(HARBOR, CURRENT))!;
    const demo = await duplicate(principal, demoPrevious, { schoolYear: CURRENT });
    expect(demo.status).toBe(409);
    expect(demo.body.existingFormId).toBe(demoCurrent);
  });

  it('with force fills only the empty questions of the existing target plan and returns its id', async () => {
    const source = await insertSource();
    const sourceSteps = await stepsOf(source.id);
    const target = freshYear();
    const created = await principal.post('/api/forms', { schoolName: HARBOR, schoolYear: target });
    expect(created.status).toBe(200);
    const existingId: string = created.body.formId;
    // Written in the target before the copy: a different coordinator, a "No" where the source says
    // yes, a table of its own; and an answer that was cleared (null) is empty and gets filled.
    const written: StepAnswers = {
      att_coordinatorName: 'Written in the target',
      att_hasCommittee: false,
      att_roles: { headers: ['Role', 'Name'], rows: [['Coordinator', 'Target Person']] },
      att_barriers: null,
    };
    expect((await saveStep(principal, existingId, 'attendancePlan', written)).status).toBe(200);
    expect((await saveStep(principal, existingId, 'temporaryHousing', { sth_studentCount: '17' })).status).toBe(200);
    const before = (await planRow(server, existingId))!;

    const { status, body } = await duplicate(principal, source.id, { schoolYear: target, force: true });
    expect(status).toBe(200);
    expect(body.formId).toBe(existingId);
    expect(await harborPlansIn(target)).toHaveLength(1);

    const after = await stepsOf(existingId);
    const attendance = after.get('attendancePlan')!.data;
    expect(attendance.att_coordinatorName).toBe('Written in the target');
    expect(attendance.att_hasCommittee).toBe(false);
    expect(attendance.att_roles).toEqual(written.att_roles);
    expect(attendance.att_barriers).toEqual(sourceSteps.get('attendancePlan')!.data.att_barriers);
    expect(after.get('temporaryHousing')!.data.sth_studentCount).toBe('17');
    // Every other source answer landed; nothing that was not in the source appeared.
    const keptInTarget = new Set([
      'attendancePlan:att_coordinatorName',
      'attendancePlan:att_hasCommittee',
      'attendancePlan:att_roles',
      'temporaryHousing:sth_studentCount',
    ]);
    for (const stepKey of STEP_KEYS) {
      const sourceData = sourceSteps.get(stepKey)!.data;
      for (const [questionId, answer] of Object.entries(sourceData)) {
        if (keptInTarget.has(`${stepKey}:${questionId}`)) continue;
        expect(after.get(stepKey)!.data[questionId], `${stepKey}.${questionId}`).toEqual(answer);
      }
    }
    expect(after.get('counselingPlan')!.data).toEqual({});
    // The target plan itself keeps what it was: its owner, status, no copy marker.
    const plan = (await planRow(server, existingId))!;
    expect(plan).toMatchObject({ userId: before.userId, status: 'draft', copiedFromId: null, schoolYear: target });
    // Flags describe filled answers only: the coordinator the target wrote itself is not flagged.
    const flagged = new Set(plan.needsUpdate.map((flag) => `${flag.stepKey}:${flag.questionId}`));
    expect(flagged.has('attendancePlan:att_coordinatorName')).toBe(false);
    expect(flagged.has('temporaryHousing:sth_liaison')).toBe(true);

    // A second forced copy finds nothing left to fill.
    const again = await duplicate(principal, source.id, { schoolYear: target, force: true });
    expect(again.status).toBe(200);
    expect(again.body.formId).toBe(existingId);
    const afterAgain = await stepsOf(existingId);
    for (const stepKey of STEP_KEYS) expect(afterAgain.get(stepKey)!.data, stepKey).toEqual(after.get(stepKey)!.data);
  });

  it('with force keeps a checkbox the target unchecked: false is an answer written there, not an empty question', async () => {
    const source = await insertSource();
    const sourceSteps = await stepsOf(source.id);
    expect(sourceSteps.get('sexualHarassment')!.data.sh_postersDisplayed).toBe(true);
    const target = freshYear();
    const existingId: string = (await principal.post('/api/forms', { schoolName: HARBOR, schoolYear: target })).body.formId;
    // This year the posters are not up: the principal unchecked the box.
    expect((await saveStep(principal, existingId, 'sexualHarassment', { sh_postersDisplayed: false })).status).toBe(200);
    expect((await stepsOf(existingId)).get('sexualHarassment')!.data.sh_postersDisplayed).toBe(false);

    expect((await duplicate(principal, source.id, { schoolYear: target, force: true })).status).toBe(200);
    const after = (await stepsOf(existingId)).get('sexualHarassment')!.data;
    expect(after.sh_postersDisplayed).toBe(false);
    // The questions that were empty were filled.
    expect(after.sh_preventionPlan).toEqual(sourceSteps.get('sexualHarassment')!.data.sh_preventionPlan);
  });

  it('with force writes a new revision of the steps it fills, so a stale writer conflicts instead of overwriting', async () => {
    const source = await insertSource();
    const target = freshYear();
    const existingId: string = (await principal.post('/api/forms', { schoolName: HARBOR, schoolYear: target })).body.formId;
    expect((await saveStep(principal, existingId, 'attendancePlan', { att_coordinatorName: 'Written in the target' })).status).toBe(200);
    // An editor has the step open at this revision.
    const opened = await principal.get(`/api/forms/${existingId}/step/${stepNumberOf('attendancePlan')}`);
    expect(opened.status).toBe(200);
    const seenRevision: number = opened.body.revisionCount;
    const seenLastUpdated: string = opened.body.lastUpdated;

    expect((await duplicate(admin, source.id, { schoolYear: target, force: true })).status).toBe(200);
    const filled = (await stepsOf(existingId)).get('attendancePlan')!;
    const sourceBarriers = (await stepsOf(source.id)).get('attendancePlan')!.data.att_barriers;
    expect(filled.data.att_barriers).toEqual(sourceBarriers);

    // The editor, still on the old revision, writes the same question with the `reject` strategy:
    // the server changed it since, so this is a 409 and the filled answer survives.
    const stale = await principal.put(`/api/forms/${existingId}/step/${stepNumberOf('attendancePlan')}`, {
      stepData: { data: { att_barriers: 'Typed by the stale editor' } },
      revisionCount: seenRevision,
      lastUpdated: seenLastUpdated,
      mergeStrategy: 'reject',
    });
    // The fill changed the step, so its revision must have moved on (docs/decisions.md, merge strategies).
    expect.soft(filled.revisionCount, 'revision after the fill').toBeGreaterThan(seenRevision);
    expect.soft(stale.status, 'stale reject-save').toBe(409);
    expect((await stepsOf(existingId)).get('attendancePlan')!.data.att_barriers).toEqual(sourceBarriers);
  });

  it('flags every question new when the source plan has no bank version', async () => {
    const source = await insertSource({ questionBankVersion: null });
    const { status, body } = await duplicate(principal, source.id, { schoolYear: freshYear() });
    expect(status).toBe(200);
    const copy = (await planRow(server, body.formId))!;
    const expected = STEPS.flatMap((step) => step.questions.filter(isActive).map((q) => `${step.key}:${q.id}:new`)).sort();
    expect(copy.needsUpdate.map((flag) => `${flag.stepKey}:${flag.questionId}:${flag.reason}`).sort()).toEqual(expected);
    // The answers are still copied.
    expect((await stepsOf(copy.id)).get('attendancePlan')!.data).toEqual((await stepsOf(source.id)).get('attendancePlan')!.data);
  });

  it('with force and no target plan creates the copy', async () => {
    const source = await insertSource();
    const target = freshYear();
    const { status, body } = await duplicate(principal, source.id, { schoolYear: target, force: true });
    expect(status).toBe(200);
    expect(body.formId).toBe(await formIdOf(HARBOR, target));
    expect((await planRow(server, body.formId))!.copiedFromId).toBe(source.id);
  });

  it('needs an attestation before a copied draft can be submitted', async () => {
    const source = await insertSource();
    const copyId: string = (await duplicate(principal, source.id, { schoolYear: freshYear() })).body.formId;
    const refused = await principal.put(`/api/forms/${copyId}`, { action: 'submit' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('Attestation required');
    expect((await planRow(server, copyId))!.status).toBe('draft');

    const attest = await principal.post(`/api/forms/${copyId}/attest`, { name: 'Elena Rodriguez' });
    expect(attest.status).toBe(200);
    expect(attest.body.attestation).toMatchObject({ confirmed: true, name: 'Elena Rodriguez', signedBy: user.principal.id });
    const submitted = await principal.put(`/api/forms/${copyId}`, { action: 'submit' });
    expect(submitted.status).toBe(200);
    expect(submitted.body.status).toBe('submitted');
    expect((await planRow(server, copyId))!.status).toBe('submitted');
  });

  it('refuses an archived target year with 400 and creates nothing', async () => {
    const source = await insertSource();
    const target = freshYear();
    expect((await admin.put('/api/school-year', { schoolYear: target, archived: true })).status).toBe(200);
    for (const force of [false, true]) {
      const { status, body } = await duplicate(admin, source.id, { schoolYear: target, force });
      expect(status).toBe(400);
      expect(body.error).toMatch(/archived/);
    }
    expect(await formIdOf(HARBOR, target)).toBeUndefined();
  });

  it('lets the school’s principal and a Super Admin duplicate, and nobody else', async () => {
    const source = await insertSource({ extras: true });
    // Level 3 (shared by e-mail and by the share route: it may edit), level 2 (assigned), the
    // level-1 owner, and another school's principal: all 403, and nothing is created.
    for (const [who, client] of [
      ['ap', ap],
      ['coordinator', coordinator],
      ['teacher', teacher],
      ['riverside principal', riversidePrincipal],
    ] as const) {
      const target = freshYear();
      const { status } = await duplicate(client, source.id, { schoolYear: target });
      expect(status, who).toBe(403);
      expect(await formIdOf(HARBOR, target), who).toBeUndefined();
    }
    const byPrincipal = await duplicate(principal, source.id, { schoolYear: freshYear() });
    expect(byPrincipal.status).toBe(200);
    const byAdmin = await duplicate(admin, source.id, { schoolYear: freshYear() });
    expect(byAdmin.status).toBe(200);
    // A Super Admin's copy still belongs to the source's owner.
    expect((await planRow(server, byAdmin.body.formId))!.userId).toBe(user.teacher.id);
  });

  it('answers 400 to bad bodies and 404 to unknown plans', async () => {
    const source = await insertSource();
    const target = freshYear();
    for (const body of [
      {},
      { schoolYear: '2027' },
      { schoolYear: '2027/2028' },
      { schoolYear: 20272028 },
      { schoolYear: target, force: 'yes' },
      { schoolYear: target, extra: true },
      { schoolYear: source.schoolYear },
    ]) {
      const response = await duplicate(principal, source.id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect(await formIdOf(HARBOR, target)).toBeUndefined();
    expect((await duplicate(principal, newId(), { schoolYear: target })).status).toBe(404);
    expect((await duplicate(principal, 'not-an-id', { schoolYear: target })).status).toBe(404);
  });
});

// ── compare ─────────────────────────────────────────────────────────────────────────────────────

describe('GET /api/forms/:id/compare', () => {
  const OLDER = '2601-2602';
  const PREV = '2602-2603';
  const CUR = '2603-2604';
  const EMPTY_YEAR = '2590-2591';
  const goals = [
    { key: 'attendance', label: 'Attendance rate', target: 93, unit: '%' },
    { key: 'chronic', label: 'Chronic absenteeism', target: 'below 15', unit: '%' },
  ];
  const table = (name: string) => ({
    headers: [' Role ', 'Name'],
    rows: [
      ['Coordinator', name],
      ['', '  '],
    ],
  });
  let olderId: string;
  let prevId: string;
  let curId: string;

  const answersFor = (values: Record<string, StepAnswers>) => (stepKey: string) => values[stepKey] ?? {};

  beforeAll(async () => {
    olderId = (await insertSource({ schoolYear: OLDER, answers: answersFor({ attendancePlan: { att_coordinatorName: 'Old Name' } }) })).id;
    // The compared answers, last year's and this year's: [coordinator, committee, outreach, role, posters, caseload, training].
    const compared = async (
      schoolYear: string,
      [coordinator, committee, outreach, role, posters, caseload, training]: [string, boolean, string, string, boolean | null, string, string],
    ) =>
      (
        await insertSource({
          schoolYear,
          answers: answersFor({
            attendancePlan: {
              att_coordinatorName: coordinator,
              att_hasCommittee: committee,
              att_outreachMethod: outreach,
              att_roles: table(role),
              att_rateTarget: '92%',
            },
            temporaryHousing: { sth_hasStudents: false, sth_postersDisplayed: posters },
            counselingPlan: { csl_averageCaseload: caseload },
            childAbuseIntervention: { cai_staffTrainingDate: training },
          }),
        })
      ).id;
    prevId = await compared(PREV, ['  Maria Alvarez  ', true, 'phone-call', ' Ana Diaz ', true, '250', '2025-09-10']);
    curId = await compared(CUR, ['Maria Alvarez', false, 'text-message', 'Ana Diaz', null, '   ', '2026-09-10']);
    expect((await admin.put('/api/school-year', { schoolYear: CUR, districtGoals: goals })).status).toBe(200);
  });

  const activeQuestions = (stepKeys: readonly string[]) =>
    STEPS.filter((step) => stepKeys.includes(step.key)).flatMap((step) => step.questions.filter(isActive).map((question) => ({ step, question })));

  it('compares with the previous year by default, question by question, values normalised as text', async () => {
    const { status, body } = await principal.get(`/api/forms/${curId}/compare`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ schoolName: HARBOR, currentYear: CUR, compareYear: PREV, currentFormId: curId, previousFormId: prevId });
    expect(body.districtGoals).toEqual(goals);

    // One row per active question of the attendance, temporary housing and counseling steps, in bank order.
    const expected = activeQuestions(COMPARE_STEP_KEYS);
    expect(body.rows.map((row: { stepKey: string; questionId: string }) => `${row.stepKey}:${row.questionId}`)).toEqual(
      expected.map(({ step, question }) => `${step.key}:${question.id}`),
    );
    const row = (questionId: string) => body.rows.find((candidate: { questionId: string }) => candidate.questionId === questionId);
    const coordinatorQuestion = expected.find(({ question }) => question.id === 'att_coordinatorName')!;
    expect(row('att_coordinatorName')).toEqual({
      stepKey: 'attendancePlan',
      stepTitle: coordinatorQuestion.step.title,
      questionId: 'att_coordinatorName',
      questionNumber: coordinatorQuestion.question.number,
      title: coordinatorQuestion.question.title,
      previousValue: 'Maria Alvarez',
      currentValue: 'Maria Alvarez',
      changed: false,
    });
    // Booleans as Yes/No, selects as their labels, tables as a header line and rows joined with " | ".
    expect(row('att_hasCommittee')).toMatchObject({ previousValue: 'Yes', currentValue: 'No', changed: true });
    expect(row('att_outreachMethod')).toMatchObject({ previousValue: 'Personal phone call', currentValue: 'Text message', changed: true });
    expect(row('att_roles')).toMatchObject({
      previousValue: 'Role | Name\nCoordinator | Ana Diaz',
      currentValue: 'Role | Name\nCoordinator | Ana Diaz',
      changed: false,
    });
    expect(row('att_rateTarget')).toMatchObject({ previousValue: '92%', currentValue: '92%', changed: false });
    expect(row('sth_hasStudents')).toMatchObject({ previousValue: 'No', currentValue: 'No', changed: false });
    expect(row('sth_postersDisplayed')).toMatchObject({ previousValue: 'Yes', currentValue: '', changed: true });
    expect(row('csl_averageCaseload')).toMatchObject({ previousValue: '250', currentValue: '', changed: true });
    expect(row('att_barriers')).toMatchObject({ previousValue: '', currentValue: '', changed: false });
    expect(row('cai_staffTrainingDate')).toBeUndefined();
    expect(body.changedCount).toBe(4);
    expect(body.changedCount).toBe(body.rows.filter((r: { changed: boolean }) => r.changed).length);
  });

  it('covers every step with ?steps=all', async () => {
    const { status, body } = await admin.get(`/api/forms/${curId}/compare?steps=all`);
    expect(status).toBe(200);
    expect(body.rows).toHaveLength(activeQuestions(STEP_KEYS).length);
    expect(new Set(body.rows.map((row: { stepKey: string }) => row.stepKey))).toEqual(new Set(STEP_KEYS));
    expect(body.rows.find((row: { questionId: string }) => row.questionId === 'cai_staffTrainingDate')).toMatchObject({
      previousValue: '2025-09-10',
      currentValue: '2026-09-10',
      changed: true,
    });
    expect(body.changedCount).toBe(5);
  });

  it('compares with a named year, or with nothing when the school has no plan that year', async () => {
    const older = await principal.get(`/api/forms/${curId}/compare?compareYear=${OLDER}`);
    expect(older.status).toBe(200);
    expect(older.body).toMatchObject({ compareYear: OLDER, previousFormId: olderId });
    expect(older.body.rows.find((row: { questionId: string }) => row.questionId === 'att_coordinatorName')).toMatchObject({
      previousValue: 'Old Name',
      currentValue: 'Maria Alvarez',
      changed: true,
    });

    const none = await principal.get(`/api/forms/${curId}/compare?compareYear=${EMPTY_YEAR}`);
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ compareYear: EMPTY_YEAR, previousFormId: null });
    expect(none.body.rows.every((row: { previousValue: string }) => row.previousValue === '')).toBe(true);
    expect(none.body.changedCount).toBe(none.body.rows.filter((row: { currentValue: string }) => row.currentValue !== '').length);

    // The previous year's plan has no plan before it: district goals are those of its own year (none).
    const fromPrev = await principal.get(`/api/forms/${prevId}/compare`);
    expect(fromPrev.body).toMatchObject({ currentYear: PREV, compareYear: '2601-2602', previousFormId: olderId, districtGoals: [] });
  });

  it('answers 400 to bad queries and 403 to readers of other schools', async () => {
    expect((await principal.get(`/api/forms/${curId}/compare?compareYear=2027`)).status).toBe(400);
    expect((await principal.get(`/api/forms/${curId}/compare?steps=some`)).status).toBe(400);
    expect((await riversidePrincipal.get(`/api/forms/${curId}/compare`)).status).toBe(403);
    expect((await principal.get(`/api/forms/${newId()}/compare`)).status).toBe(404);
  });
});

// ── review flags across two real bank versions (publishes a new bank: keep last) ────────────────

describe('review flags across two published bank versions', () => {
  it('flags new, changed and revisit questions on the copy, keyed by step and question; Mark reviewed clears one', async () => {
    const source = await insertSource();
    const sourceSteps = await stepsOf(source.id);
    const attendance = STEPS.find((step) => step.key === 'attendancePlan')!;
    const outreach = attendance.questions.find((q) => q.id === 'att_outreachMethod')!;
    // Preconditions of the scenario in the bundled bank.
    expect(attendance.questions.find((q) => q.id === 'att_coordinatorName')!.reviewYearly).toBe(true);
    expect(attendance.questions.find((q) => q.id === 'att_barriers')!.reviewYearly).toBeFalsy();
    expect(sourceSteps.get('attendancePlan')!.data.att_barriers).toBeTruthy();
    expect(sourceSteps.get('attendancePlan')!.data.att_outreachMethod).toBeTruthy();

    // The Super Admin edits the draft: one title, one question's options, one new question.
    const retitled = await admin.put('/api/admin/question-bank/questions/att_barriers', { title: 'Which barriers to attendance did you find this year?' });
    expect(retitled.status).toBe(200);
    const reoptioned = await admin.put('/api/admin/question-bank/questions/att_outreachMethod', {
      options: [...outreach.options!, { value: 'home-visit', label: 'Home visit' }],
    });
    expect(reoptioned.status).toBe(200);
    const added = await admin.post('/api/admin/question-bank/questions', {
      stepKey: 'attendancePlan',
      question: { number: '6z', title: 'Which community partner supports attendance this year?', type: 'text', required: false },
    });
    expect(added.status).toBe(200);
    const draftAttendance = (added.body.steps as { key: string; questions: Question[] }[]).find((step) => step.key === 'attendancePlan')!;
    const newQuestion = draftAttendance.questions.find((q) => !attendance.questions.some((old) => old.id === q.id))!;
    expect(newQuestion).toBeDefined();

    const target = freshYear();
    const published = await admin.post('/api/admin/question-bank/publish', { schoolYear: target });
    expect(published.status).toBe(200);
    const version: number = published.body.version;
    expect(version).toBeGreaterThan(BUNDLED_BANK.version);

    const { status, body } = await duplicate(principal, source.id, { schoolYear: target });
    expect(status).toBe(200);
    const copy = (await planRow(server, body.formId))!;
    expect(copy.questionBankVersion).toBe(version);

    const key = (flag: Pick<NeedsUpdateFlag, 'stepKey' | 'questionId'>) => `${flag.stepKey}:${flag.questionId}`;
    const byReason = (reason: NeedsUpdateFlag['reason']) =>
      copy.needsUpdate
        .filter((flag) => flag.reason === reason)
        .map(key)
        .sort();
    expect(byReason('new')).toEqual([`attendancePlan:${newQuestion.id}`]);
    expect(byReason('changed')).toEqual(['attendancePlan:att_barriers', 'attendancePlan:att_outreachMethod']);
    // Revisit: every answered, unchanged question about people, dates or targets — no more, no less.
    const expectedRevisit = STEPS.flatMap((step) =>
      step.questions
        .filter((q) => q.reviewYearly && isActive(q) && !['att_barriers', 'att_outreachMethod'].includes(q.id))
        .filter((q) => {
          const answer = sourceSteps.get(step.key)!.data[q.id];
          return answer !== undefined && answer !== null && answer !== '';
        })
        .map((q) => `${step.key}:${q.id}`),
    ).sort();
    expect(byReason('revisit')).toEqual(expectedRevisit);
    expect(byReason('revisit')).toContain('attendancePlan:att_coordinatorName');
    expect(copy.needsUpdate.some((flag) => flag.questionId === 'att_strategy')).toBe(false);
    expect(copy.needsUpdate.some((flag) => flag.stepKey === 'counselingPlan')).toBe(false);
    // One flag per step and question, each with its label.
    expect(new Set(copy.needsUpdate.map(key)).size).toBe(copy.needsUpdate.length);
    for (const flag of copy.needsUpdate) {
      expect(STEPS.find((step) => step.key === flag.stepKey)?.questions.some((q) => q.id === flag.questionId) || flag.questionId === newQuestion.id).toBe(true);
      expect(flag.label).toBe(NEEDS_UPDATE_LABELS[flag.reason]);
    }
    expect(copy.needsUpdate.find((flag) => flag.reason === 'new')!.label).toBe('New this year');
    // The API shows the same flags.
    expect((await principal.get(`/api/forms/${copy.id}`)).body.needsUpdate).toEqual(copy.needsUpdate);

    // Mark reviewed clears exactly that flag.
    const cleared = await principal.post(`/api/forms/${copy.id}/review-flag`, { questionId: 'att_coordinatorName', stepKey: 'attendancePlan' });
    expect(cleared.status).toBe(200);
    const remaining = copy.needsUpdate.filter((flag) => flag.questionId !== 'att_coordinatorName');
    expect(cleared.body.needsUpdate).toEqual(remaining);
    expect((await planRow(server, copy.id))!.needsUpdate).toEqual(remaining);
    expect((await principal.post(`/api/forms/${copy.id}/review-flag`, { questionId: 'att_coordinatorName' })).status).toBe(404);
    const clearedNew = await principal.post(`/api/forms/${copy.id}/review-flag`, { questionId: newQuestion.id });
    expect(clearedNew.status).toBe(200);
    expect(clearedNew.body.needsUpdate).toEqual(remaining.filter((flag) => flag.questionId !== newQuestion.id));
    // Other schools' principals cannot clear flags.
    expect((await riversidePrincipal.post(`/api/forms/${copy.id}/review-flag`, { questionId: 'att_barriers' })).status).toBe(403);
    // Plans still on the old version are not re-flagged.
    const untouched = await db()
      .select({ id: plans.id, needsUpdate: plans.needsUpdate })
      .from(plans)
      .where(inArray(plans.id, [source.id]));
    expect(untouched[0]!.needsUpdate).toEqual([]);
  });
});
