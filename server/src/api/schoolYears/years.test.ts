/**
 * School-year settings over HTTP against a real server: reading a year with its plan counts and the
 * coming cycle; next-year setup (term, pinned bank, goals, deadlines a year later — February 29
 * included — 409 when it exists, source year and plans untouched); updates of the archive flag,
 * pinned bank version, deadlines and goals; what archiving does to plan writes (and the single-plan
 * live override); and that only a Super Admin changes any of it.
 *
 * The demo district holds the previous (archived) and current school years. Tests that need plans
 * of their own use years in the past (19xx), so the latest stored year stays the demo's current one
 * until the next-year setup test moves it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, nextSchoolYear, previousSchoolYear, schoolYearTerm } from '@csp/shared';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { planSteps, plans, questionBankVersions, schoolYearSettings } from '../../storage/schema.ts';
import { insertPlan } from '../../testing/factories.ts';
import { findUserByEmail } from '../../testing/users.ts';

const HARBOR = 'Harbor View Academy';
const RIVERSIDE = 'Riverside Learning Center';
const CURRENT = currentSchoolYear();
const PREVIOUS = previousSchoolYear(CURRENT);
const NEXT = nextSchoolYear(CURRENT);
const AFTER_NEXT = nextSchoolYear(NEXT);
const STEP_KEYS = BUNDLED_BANK.steps.map((step) => step.key);
const ATTENDANCE_STEP = STEP_KEYS.indexOf('attendancePlan') + 1;

let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
let riversidePrincipal: HttpClient;
let ap: HttpClient;
let teacher: HttpClient;

const db = () => server.services.storage.db;

async function settingsRow(schoolYear: string) {
  const [row] = await db().select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, schoolYear)).limit(1);
  return row;
}

async function planCount(schoolYear?: string): Promise<number> {
  const [row] = await db()
    .select({ n: count() })
    .from(plans)
    .where(schoolYear ? eq(plans.schoolYear, schoolYear) : undefined);
  return row!.n;
}

const saveAttendance = (client: HttpClient, formId: string, value: string) =>
  client.put(`/api/forms/${formId}/step/${ATTENDANCE_STEP}`, {
    stepData: { data: { att_coordinatorName: value } },
    lastUpdated: null,
    mergeStrategy: 'last-write-wins',
  });

beforeAll(async () => {
  server = await startTestServer();
  [admin, principal, riversidePrincipal, ap, teacher] = await signInAll(server.url, [
    'superadmin@example.org',
    'principal.harbor@example.org',
    'principal.riverside@example.org',
    'ap.harbor@example.org',
    'teacher.harbor@example.org',
  ]);
});
afterAll(() => server?.stop());

describe('GET /api/school-year', () => {
  it('returns a year’s settings with its plan counts and the coming cycle, to any signed-in user', async () => {
    const { status, body } = await teacher.get('/api/school-year');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      schoolYear: CURRENT,
      archived: false,
      questionBankVersion: BUNDLED_BANK.version,
      deadlines: [],
      districtGoals: [],
      term: schoolYearTerm(CURRENT),
      stored: true,
      // The demo district: one draft plan per school this year.
      planCounts: { total: 2, unfinished: 2, liveOverrides: 0 },
      cycle: {
        latestYear: CURRENT,
        nextYear: NEXT,
        term: schoolYearTerm(NEXT),
        carriedOver: { questionBankVersion: BUNDLED_BANK.version, districtGoals: [], deadlines: [] },
      },
    });
    expect(body.term).toMatchObject({ start: `${CURRENT.slice(0, 4)}-07-01`, end: `${CURRENT.slice(5)}-06-30` });

    // Last year: archived; its plans were submitted and approved, so none is unfinished.
    const previous = await principal.get(`/api/school-year?schoolYear=${PREVIOUS}`);
    expect(previous.status).toBe(200);
    expect(previous.body).toMatchObject({ schoolYear: PREVIOUS, archived: true, planCounts: { total: 2, unfinished: 0, liveOverrides: 0 } });
    expect(previous.body.cycle.latestYear).toBe(CURRENT);

    // A year nobody set up: defaults, not stored, nothing created by reading it.
    const unknown = await principal.get('/api/school-year?schoolYear=1980-1981');
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({
      schoolYear: '1980-1981',
      archived: false,
      stored: false,
      term: schoolYearTerm('1980-1981'),
      planCounts: { total: 0, unfinished: 0, liveOverrides: 0 },
    });
    expect(await settingsRow('1980-1981')).toBeUndefined();
  });

  it('needs a session and a valid year', async () => {
    const anonymous = new HttpClient(server.url);
    expect((await anonymous.get('/api/school-year')).status).toBe(401);
    for (const bad of ['2026', '2026-27', 'abcd-efgh', '2026_2027']) {
      expect((await teacher.get(`/api/school-year?schoolYear=${bad}`)).status, bad).toBe(400);
    }
  });
});

describe('PUT /api/school-year', () => {
  const YEAR = '1995-1996';

  it('is for Super Admins only', async () => {
    const before = await settingsRow(CURRENT);
    for (const client of [principal, ap, teacher]) {
      expect((await client.put('/api/school-year', { schoolYear: CURRENT, archived: true })).status).toBe(403);
      expect((await client.put('/api/school-year', { schoolYear: CURRENT, districtGoals: [] })).status).toBe(403);
    }
    expect(await settingsRow(CURRENT)).toEqual(before);
    expect((await new HttpClient(server.url).put('/api/school-year', { schoolYear: CURRENT, archived: true })).status).toBe(401);
  });

  it('sets deadlines and district goals, creating the year’s settings when missing', async () => {
    const deadlines = [
      { stepKey: 'attendancePlan', label: 'Attendance plan', dueDate: '1995-10-15' },
      { stepKey: 'counselingPlan', label: 'Counseling plan', dueDate: '1996-02-29' },
    ];
    const districtGoals = [
      { key: 'attendance', label: 'Attendance rate', target: 93, unit: '%' },
      { key: 'chronic', label: 'Chronic absenteeism', target: 'below 15', unit: '%' },
    ];
    const { status, body } = await admin.put('/api/school-year', { schoolYear: YEAR, deadlines, districtGoals });
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.settings).toMatchObject({ schoolYear: YEAR, stored: true, archived: false, deadlines, districtGoals, term: schoolYearTerm(YEAR) });
    expect((await teacher.get(`/api/school-year?schoolYear=${YEAR}`)).body).toMatchObject({ deadlines, districtGoals });
    expect(await settingsRow(YEAR)).toMatchObject({ deadlines, districtGoals, archived: false });

    // Changing one field leaves the others as they are.
    const goalsOnly = await admin.put('/api/school-year', { schoolYear: YEAR, districtGoals: [districtGoals[0]] });
    expect(goalsOnly.status).toBe(200);
    expect(goalsOnly.body.settings).toMatchObject({ deadlines, districtGoals: [districtGoals[0]] });
  });

  it('pins only published or archived bank versions', async () => {
    // Publish a second bank version through the admin routes: v1 is archived, v2 published, v3 the new draft.
    expect((await admin.put('/api/admin/question-bank/steps/tableOfContents', { intro: 'Read this plan with your team.' })).status).toBe(200);
    const published = await admin.post('/api/admin/question-bank/publish', {});
    expect(published.status).toBe(200);
    const version: number = published.body.version;
    const draftVersion: number = published.body.draftVersion;
    const [draft] = await db().select().from(questionBankVersions).where(eq(questionBankVersions.version, draftVersion));
    expect(draft!.status).toBe('draft');

    const before = await settingsRow(YEAR);
    for (const bad of [draftVersion, 999]) {
      const response = await admin.put('/api/school-year', { schoolYear: YEAR, questionBankVersion: bad });
      expect(response.status, String(bad)).toBe(400);
    }
    expect(await settingsRow(YEAR)).toEqual(before);

    const pinned = await admin.put('/api/school-year', { schoolYear: YEAR, questionBankVersion: version });
    expect(pinned.status).toBe(200);
    expect(pinned.body.settings.questionBankVersion).toBe(version);
    // The archived first version can be pinned too.
    const archived = await admin.put('/api/school-year', { schoolYear: YEAR, questionBankVersion: BUNDLED_BANK.version });
    expect(archived.status).toBe(200);
    expect((await settingsRow(YEAR))!.questionBankVersion).toBe(BUNDLED_BANK.version);
    // The question bank a year serves follows its pin.
    expect((await teacher.get(`/api/question-bank?schoolYear=${YEAR}`)).body.version).toBe(BUNDLED_BANK.version);
    expect((await admin.put('/api/school-year', { schoolYear: YEAR, questionBankVersion: version })).status).toBe(200);
    expect((await teacher.get(`/api/question-bank?schoolYear=${YEAR}`)).body.version).toBe(version);
  });

  it('answers 400 to invalid bodies and changes nothing', async () => {
    const before = await settingsRow(YEAR);
    for (const body of [
      {},
      { archived: true },
      { schoolYear: '1995', archived: true },
      { schoolYear: YEAR, archived: 'yes' },
      { schoolYear: YEAR, status: 'archived' },
      { schoolYear: YEAR, questionBankVersion: 0 },
      { schoolYear: YEAR, questionBankVersion: 1.5 },
      { schoolYear: YEAR, deadlines: [{ stepKey: 'attendancePlan', label: 'Due', dueDate: '1996-02-30' }] },
      { schoolYear: YEAR, deadlines: [{ stepKey: 'attendancePlan', label: 'Due', dueDate: 'next week' }] },
      { schoolYear: YEAR, deadlines: [{ stepKey: 'attendance plan', label: 'Due', dueDate: '1996-01-15' }] },
      { schoolYear: YEAR, deadlines: [{ stepKey: 'attendancePlan', label: '', dueDate: '1996-01-15' }] },
      { schoolYear: YEAR, deadlines: [{ stepKey: 'attendancePlan', label: 'Due', dueDate: '1996-01-15', owner: 'x' }] },
      { schoolYear: YEAR, districtGoals: [{ key: 'attendance', label: 'Attendance', target: 93 }] },
      { schoolYear: YEAR, districtGoals: [{ key: '', label: 'Attendance', target: 93, unit: '%' }] },
      { schoolYear: YEAR, districtGoals: 'none' },
    ]) {
      const response = await admin.put('/api/school-year', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect(await settingsRow(YEAR)).toEqual(before);
  });
});

describe('archiving a year', () => {
  const YEAR = '1990-1991';
  let harborPlan: string;
  let riversidePlan: string;

  beforeAll(async () => {
    const insertPlanOwnedBy = async (schoolName: string, ownerEmail: string) => {
      const owner = (await findUserByEmail(server, ownerEmail))!;
      return insertPlan(server, { schoolName, schoolYear: YEAR, userId: owner.id, principalEmail: owner.email });
    };
    harborPlan = await insertPlanOwnedBy(HARBOR, 'principal.harbor@example.org');
    riversidePlan = await insertPlanOwnedBy(RIVERSIDE, 'principal.riverside@example.org');
  });

  it('makes writes to the year’s plans fail unless a plan has the live override; un-archiving makes them writable', async () => {
    expect((await saveAttendance(principal, harborPlan, 'Before archiving')).status).toBe(200);

    const archived = await admin.put('/api/school-year', { schoolYear: YEAR, archived: true });
    expect(archived.status).toBe(200);
    expect(archived.body.settings).toMatchObject({ archived: true, planCounts: { total: 2, unfinished: 2, liveOverrides: 0 } });

    expect((await saveAttendance(principal, harborPlan, 'While archived')).status).toBe(403);
    expect((await saveAttendance(riversidePrincipal, riversidePlan, 'While archived')).status).toBe(403);
    expect((await saveAttendance(admin, harborPlan, 'While archived')).status).toBe(403);
    expect((await principal.put(`/api/forms/${harborPlan}`, { action: 'update', assignedTo: 'ap.harbor@example.org' })).status).toBe(403);
    expect((await principal.post(`/api/forms/${harborPlan}/attest`, { name: 'Elena Rodriguez' })).status).toBe(403);
    expect((await admin.post('/api/forms', { schoolName: 'Archived Year School', schoolYear: YEAR })).status).toBe(400);
    // Reading still works, and lists show the plan as locked.
    const step = await principal.get(`/api/forms/${harborPlan}/step/${ATTENDANCE_STEP}`);
    expect(step.status).toBe(200);
    expect(step.body.stepData.data.att_coordinatorName).toBe('Before archiving');
    const listed = (await principal.get(`/api/forms?schoolYear=${YEAR}`)).body.forms.find((form: { _id: string }) => form._id === harborPlan);
    expect(listed.locked).toBe(true);

    // The live override makes that one plan writable, and only for a Super Admin to set.
    expect((await principal.post('/api/admin/forms/live', { formId: harborPlan, live: true })).status).toBe(403);
    expect((await admin.post('/api/admin/forms/live', { formId: harborPlan, live: true })).status).toBe(200);
    expect((await saveAttendance(principal, harborPlan, 'Live override')).status).toBe(200);
    expect((await saveAttendance(riversidePrincipal, riversidePlan, 'Still archived')).status).toBe(403);
    expect((await teacher.get(`/api/school-year?schoolYear=${YEAR}`)).body).toMatchObject({ archived: true, planCounts: { liveOverrides: 1 } });
    expect((await admin.post('/api/admin/forms/live', { formId: harborPlan, live: false })).status).toBe(200);
    expect((await saveAttendance(principal, harborPlan, 'Override removed')).status).toBe(403);

    // Un-archiving makes the whole year writable again.
    const live = await admin.put('/api/school-year', { schoolYear: YEAR, archived: false });
    expect(live.status).toBe(200);
    expect(live.body.settings.archived).toBe(false);
    expect((await saveAttendance(principal, harborPlan, 'Live again')).status).toBe(200);
    expect((await saveAttendance(riversidePrincipal, riversidePlan, 'Live again')).status).toBe(200);
    const [row] = await db()
      .select({ data: planSteps.data })
      .from(planSteps)
      .where(and(eq(planSteps.formId, harborPlan), eq(planSteps.stepKey, 'attendancePlan')));
    expect(row!.data.att_coordinatorName).toBe('Live again');
  });
});

describe('POST /api/school-year (next-year setup)', () => {
  // Keep this describe last: it moves the latest stored year forward.
  const deadlines = [
    { stepKey: 'attendancePlan', label: 'Attendance plan', dueDate: `${CURRENT.slice(0, 4)}-10-15` },
    { stepKey: 'counselingPlan', label: 'Counseling plan', dueDate: '2028-02-29' },
    { stepKey: 'temporaryHousing', label: 'Temporary housing', dueDate: '2027-02-28' },
    { stepKey: 'suicidePrevention', label: 'Suicide prevention', dueDate: '2027-12-31' },
  ];
  const shifted = [
    { stepKey: 'attendancePlan', label: 'Attendance plan', dueDate: `${Number(CURRENT.slice(0, 4)) + 1}-10-15` },
    { stepKey: 'counselingPlan', label: 'Counseling plan', dueDate: '2029-02-28' },
    { stepKey: 'temporaryHousing', label: 'Temporary housing', dueDate: '2028-02-28' },
    { stepKey: 'suicidePrevention', label: 'Suicide prevention', dueDate: '2028-12-31' },
  ];
  const districtGoals = [{ key: 'attendance', label: 'Attendance rate', target: 94, unit: '%' }];

  it('is for Super Admins only', async () => {
    for (const client of [principal, ap, teacher]) {
      expect((await client.post('/api/school-year', {})).status).toBe(403);
      expect((await client.post('/api/school-year', { fromYear: CURRENT })).status).toBe(403);
    }
    expect(await settingsRow(NEXT)).toBeUndefined();
  });

  it('shows the same coming cycle whichever year is read (the cycle is what a setup would do)', async () => {
    const fromCurrent = (await teacher.get('/api/school-year')).body.cycle;
    expect(fromCurrent).toMatchObject({ latestYear: CURRENT, nextYear: NEXT });
    // Reading a year nobody set up (past or future) must not change what "latest" and "next" are:
    // POST /api/school-year without fromYear would still set up NEXT from CURRENT.
    for (const year of ['1985-1986', '2999-3000']) {
      const { body } = await teacher.get(`/api/school-year?schoolYear=${year}`);
      expect(body.stored).toBe(false);
      expect(body.cycle, year).toEqual(fromCurrent);
    }
  });

  it('sets up the year after the latest: default term, same pinned bank and goals, deadlines a year later; no plans; source untouched', async () => {
    // The current year pins the first bank while a later version is published (see the PUT tests):
    // the new year must carry the pin, not pick up whatever is published.
    const published = async () => (await db().select().from(questionBankVersions).where(eq(questionBankVersions.status, 'published')))[0]!.version;
    if ((await published()) === BUNDLED_BANK.version) {
      expect((await admin.put('/api/admin/question-bank/steps/tableOfContents', { intro: 'Read this plan with your team.' })).status).toBe(200);
      expect((await admin.post('/api/admin/question-bank/publish', {})).status).toBe(200);
    }
    expect(await published()).not.toBe(BUNDLED_BANK.version);
    expect((await settingsRow(CURRENT))!.questionBankVersion).toBe(BUNDLED_BANK.version);
    expect((await admin.put('/api/school-year', { schoolYear: CURRENT, deadlines, districtGoals })).status).toBe(200);
    const cycle = (await teacher.get('/api/school-year')).body.cycle;
    expect(cycle).toEqual({
      latestYear: CURRENT,
      nextYear: NEXT,
      term: schoolYearTerm(NEXT),
      carriedOver: { questionBankVersion: BUNDLED_BANK.version, districtGoals, deadlines: shifted },
    });
    const sourceBefore = await settingsRow(CURRENT);
    const plansBefore = await db().select().from(plans);

    const { status, body } = await admin.post('/api/school-year', {});
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.settings).toMatchObject({
      schoolYear: NEXT,
      stored: true,
      archived: false,
      questionBankVersion: BUNDLED_BANK.version,
      districtGoals,
      deadlines: shifted,
      term: schoolYearTerm(NEXT),
      planCounts: { total: 0, unfinished: 0, liveOverrides: 0 },
    });
    expect(await settingsRow(NEXT)).toMatchObject({
      archived: false,
      questionBankVersion: BUNDLED_BANK.version,
      districtGoals,
      deadlines: shifted,
      termStart: `${NEXT.slice(0, 4)}-07-01`,
      termEnd: `${NEXT.slice(5)}-06-30`,
    });
    // The source year and every plan are as they were.
    expect(await settingsRow(CURRENT)).toEqual(sourceBefore);
    expect(await db().select().from(plans)).toEqual(plansBefore);
    expect(await planCount(NEXT)).toBe(0);
    // The cycle moved on.
    expect((await teacher.get('/api/school-year')).body.cycle).toMatchObject({ latestYear: NEXT, nextYear: AFTER_NEXT });
  });

  it('answers 409 when the next year’s settings exist, and changes nothing', async () => {
    const before = await settingsRow(NEXT);
    const again = await admin.post('/api/school-year', { fromYear: CURRENT });
    expect(again.status).toBe(409);
    expect(typeof again.body.error).toBe('string');
    expect((await admin.post('/api/school-year', { fromYear: PREVIOUS })).status).toBe(409);
    expect(await settingsRow(NEXT)).toEqual(before);
  });

  it('sets up from an archived year without un-archiving it; the new year is live', async () => {
    expect((await admin.put('/api/school-year', { schoolYear: NEXT, archived: true })).status).toBe(200);
    const { status, body } = await admin.post('/api/school-year', { fromYear: NEXT });
    expect(status).toBe(200);
    expect(body.settings).toMatchObject({ schoolYear: AFTER_NEXT, archived: false, questionBankVersion: BUNDLED_BANK.version, districtGoals });
    expect(body.settings.deadlines.map((deadline: { dueDate: string }) => deadline.dueDate)).toEqual([
      `${Number(CURRENT.slice(0, 4)) + 2}-10-15`,
      '2030-02-28',
      '2029-02-28',
      '2029-12-31',
    ]);
    expect((await settingsRow(NEXT))!.archived).toBe(true);
  });

  it('answers 400 to bad bodies and 404 to a year that was never set up', async () => {
    for (const body of [{ fromYear: '2026' }, { fromYear: 2026 }, { fromYear: CURRENT, extra: true }]) {
      expect((await admin.post('/api/school-year', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await admin.post('/api/school-year', { fromYear: '1900-1901' })).status).toBe(404);
    expect(await settingsRow('1901-1902')).toBeUndefined();
  });
});
