/**
 * District reports and admin health over HTTP against a real server: the year CSV (header, one row
 * per plan, values normalised as text, formula-looking cells neutralised), the status timeline,
 * and `/api/admin/health` (counts, migrations) — all for Super Admins only: district data is never
 * shown to principals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { and, count, eq, gt, sql } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { COMPARE_STEP_KEYS, currentSchoolYear, isActive } from '@csp/shared';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { clientErrors, collabDocuments, planSteps, plans, sessions, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { insertPlan } from '../../testing/factories.ts';
import { yearFiguresSchema } from '@csp/shared/api/reports';
import { parseCsv } from '../../testing/csv.ts';

const CURRENT = currentSchoolYear();
const REPORT_YEAR = '2801-2802';
const TIMELINE_YEAR = '2803-2804';

let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
let ap: HttpClient;
let teacher: HttpClient;

const db = () => server.services.storage.db;

const reportColumns = BUNDLED_BANK.steps
  .filter((step) => (COMPARE_STEP_KEYS as readonly string[]).includes(step.key))
  .flatMap((step) => step.questions.filter(isActive).map((question) => ({ stepKey: step.key, question })));
const HEADER = ['School', 'Principal', 'E-mail', 'Status', 'Year', ...reportColumns.map(({ question }) => `${question.number} ${question.title}`)];
const columnOf = (questionId: string) => 5 + reportColumns.findIndex(({ question }) => question.id === questionId);

async function getCsv(client: HttpClient, query = '') {
  const response = await client.request('GET', `/api/admin/reports/year.csv${query}`);
  return { response, text: await response.text() };
}

beforeAll(async () => {
  server = await startTestServer();
  [admin, principal, ap, teacher] = await signInAll(server.url, [
    'superadmin@example.org',
    'principal.harbor@example.org',
    'ap.harbor@example.org',
    'teacher.harbor@example.org',
  ]);
});
afterAll(() => server?.stop());

describe('GET /api/admin/reports/year.csv', () => {
  beforeAll(async () => {
    await insertPlan(
      server,
      { schoolName: 'Alpha Academy', schoolYear: REPORT_YEAR, status: 'approved', principalEmail: 'principal.harbor@example.org' },
      {
        attendancePlan: {
          att_coordinatorName: '=HYPERLINK("http://evil.example","click")',
          att_hasCommittee: true,
          att_outreachMethod: 'phone-call',
          att_roles: {
            headers: ['Role', 'Name'],
            rows: [
              ['Coordinator', ' Ana Diaz '],
              ['', ''],
            ],
          },
          att_rateTarget: '+93%',
          att_lastYearRate: '-5',
          att_barriers: '@SUM(A1:A9)',
          att_strategy: '  Morning calls, then home visits.  ',
        },
        temporaryHousing: { sth_hasStudents: false, sth_studentCount: '12' },
        counselingPlan: { csl_averageCaseload: '250' },
        childAbuseIntervention: { cai_staffTrainingDate: 'not in the report' },
      },
    );
    await insertPlan(server, { schoolName: 'Beta School', schoolYear: REPORT_YEAR, status: 'draft', principalEmail: null });
    await insertPlan(
      server,
      { schoolName: '=Gamma School', schoolYear: REPORT_YEAR, status: 'submitted', principalEmail: 'nobody@example.org' },
      { counselingPlan: { csl_averageCaseload: '=1+1' } },
    );
  });

  it('has a header and one row per plan of the year, values normalised, formula-looking cells neutralised', async () => {
    const { response, text } = await getCsv(admin, `?schoolYear=${REPORT_YEAR}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.headers.get('content-disposition')).toMatch(new RegExp(`attachment; filename="Consolidated_Plans_${REPORT_YEAR}\\.csv"`));
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual(HEADER);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toHaveLength(HEADER.length);
    const bySchool = (school: string) => rows.find((row) => row[0] === school)!;

    const alpha = bySchool('Alpha Academy');
    expect(alpha.slice(0, 5)).toEqual(['Alpha Academy', 'Elena Rodriguez', 'principal.harbor@example.org', 'approved', REPORT_YEAR]);
    expect(alpha[columnOf('att_coordinatorName')]).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(alpha[columnOf('att_rateTarget')]).toBe(`'+93%`);
    expect(alpha[columnOf('att_lastYearRate')]).toBe(`'-5`);
    expect(alpha[columnOf('att_barriers')]).toBe(`'@SUM(A1:A9)`);
    expect(alpha[columnOf('att_hasCommittee')]).toBe('Yes');
    expect(alpha[columnOf('att_outreachMethod')]).toBe('Personal phone call');
    expect(alpha[columnOf('att_roles')]).toBe('Role | Name\nCoordinator | Ana Diaz');
    expect(alpha[columnOf('att_strategy')]).toBe('Morning calls, then home visits.');
    expect(alpha[columnOf('sth_hasStudents')]).toBe('No');
    expect(alpha[columnOf('sth_studentCount')]).toBe('12');
    expect(alpha[columnOf('csl_averageCaseload')]).toBe('250');
    expect(alpha[columnOf('csl_counselors')]).toBe('');
    expect(text).not.toContain('not in the report');

    expect(bySchool('Beta School').slice(0, 5)).toEqual(['Beta School', '', '', 'draft', REPORT_YEAR]);
    expect(
      bySchool('Beta School')
        .slice(5)
        .every((cell) => cell === ''),
    ).toBe(true);
    // A school name that looks like a formula is neutralised too; an unknown principal has no name.
    const gamma = bySchool(`'=Gamma School`);
    expect(gamma.slice(0, 5)).toEqual([`'=Gamma School`, '', 'nobody@example.org', 'submitted', REPORT_YEAR]);
    expect(gamma[columnOf('csl_averageCaseload')]).toBe(`'=1+1`);
    // No cell anywhere starts like a formula.
    for (const row of rows) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('defaults to the current year; a year without plans has only the header', async () => {
    const current = parseCsv((await getCsv(admin)).text);
    expect(current[0]).toEqual(HEADER);
    expect(
      current
        .slice(1)
        .map((row) => [row[0], row[4]])
        .sort(),
    ).toEqual([
      ['Harbor View Academy', CURRENT],
      ['Riverside Learning Center', CURRENT],
    ]);
    const empty = await getCsv(admin, '?schoolYear=1950-1951');
    expect(empty.response.status).toBe(200);
    expect(parseCsv(empty.text)).toEqual([HEADER]);
    expect((await getCsv(admin, '?schoolYear=1950')).response.status).toBe(400);
  });

  it('is never shown to principals or other staff', async () => {
    for (const client of [principal, ap, teacher]) {
      const { response, text } = await getCsv(client, `?schoolYear=${REPORT_YEAR}`);
      expect(response.status).toBe(403);
      expect(text).not.toContain('Alpha Academy');
    }
    expect((await getCsv(new HttpClient(server.url))).response.status).toBe(401);
  });
});

describe('GET /api/admin/reports/timeline', () => {
  it('lists when each plan of the year was created, copied, submitted and reviewed, and the status counts', async () => {
    const created = await admin.post('/api/forms', { schoolName: 'Harbor View Academy', schoolYear: TIMELINE_YEAR });
    expect(created.status).toBe(200);
    const harborId: string = created.body.formId;
    expect((await principal.put(`/api/forms/${harborId}`, { action: 'submit' })).status).toBe(200);
    expect((await admin.put(`/api/forms/${harborId}`, { action: 'review' })).status).toBe(200);
    expect((await admin.put(`/api/forms/${harborId}`, { action: 'review', status: 'approved' })).status).toBe(200);
    const [riversidePrincipal] = await db().select().from(users).where(eq(users.email, 'principal.riverside@example.org'));
    const sourceId = await insertPlan(server, {
      schoolName: 'Riverside Learning Center',
      schoolYear: '2802-2803',
      userId: riversidePrincipal!.id,
      principalEmail: riversidePrincipal!.email,
    });
    const copied = await admin.post(`/api/forms/${sourceId}/duplicate`, { schoolYear: TIMELINE_YEAR });
    expect(copied.status).toBe(200);

    const { status, body } = await admin.get(`/api/admin/reports/timeline?schoolYear=${TIMELINE_YEAR}`);
    expect(status).toBe(200);
    expect(body.schoolYear).toBe(TIMELINE_YEAR);
    expect(body.statusCounts).toEqual({ approved: 1, draft: 1 });
    expect(body.events.map((event: Record<string, unknown>) => [event.action, event.formId, event.schoolName, event.from, event.to, event.actorEmail])).toEqual(
      [
        ['plan.create', harborId, 'Harbor View Academy', null, 'draft', 'superadmin@example.org'],
        ['plan.submit', harborId, 'Harbor View Academy', 'draft', 'submitted', 'principal.harbor@example.org'],
        ['plan.review', harborId, 'Harbor View Academy', 'submitted', 'under_review', 'superadmin@example.org'],
        ['plan.review', harborId, 'Harbor View Academy', 'under_review', 'approved', 'superadmin@example.org'],
        ['plan.duplicate', copied.body.formId, 'Riverside Learning Center', null, 'draft', 'superadmin@example.org'],
      ],
    );
    const times = body.events.map((event: { at: string }) => Date.parse(event.at));
    expect(times.every((time: number) => Number.isFinite(time))).toBe(true);
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    const empty = await admin.get('/api/admin/reports/timeline?schoolYear=1950-1951');
    expect(empty.body).toEqual({ schoolYear: '1950-1951', statusCounts: {}, events: [], total: 0, page: 1, limit: 50 });
    // Paged, oldest first: the second page of two events a page holds the third and fourth.
    const second = await admin.get(`/api/admin/reports/timeline?schoolYear=${TIMELINE_YEAR}&page=2&limit=2`);
    expect(second.body).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(second.body.events).toEqual(body.events.slice(2, 4));
    expect((await admin.get('/api/admin/reports/timeline')).body.schoolYear).toBe(CURRENT);
    expect((await admin.get('/api/admin/reports/timeline?schoolYear=x')).status).toBe(400);
  });

  it('is never shown to principals or other staff', async () => {
    for (const client of [principal, ap, teacher]) {
      expect((await client.get(`/api/admin/reports/timeline?schoolYear=${TIMELINE_YEAR}`)).status).toBe(403);
      expect((await client.get('/api/admin/reports/timeline')).status).toBe(403);
    }
    expect((await new HttpClient(server.url).get('/api/admin/reports/timeline')).status).toBe(401);
  });
});

describe('GET /api/admin/health', () => {
  const migrationsFolder = new URL('../../../drizzle/', import.meta.url);
  const journal = JSON.parse(readFileSync(new URL('meta/_journal.json', migrationsFolder), 'utf8')) as { entries: { tag: string; when: number }[] };

  it('shows the probes, record counts and applied migrations to a Super Admin', async () => {
    await db().insert(clientErrors).values({ id: newId(), message: 'Counted in the health view' });
    const { status, body } = await admin.get('/api/admin/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'ok',
      database: 'ok',
      redis: process.env.REDIS_URL ? 'ok' : 'not configured',
      store: server.services.storage.kind,
    });
    const number = async (query: Promise<{ n: number }[]>) => (await query)[0]!.n;
    expect(body.counts).toEqual({
      users: await number(db().select({ n: count() }).from(users)),
      activeUsers: await number(db().select({ n: count() }).from(users).where(eq(users.isActive, true))),
      plans: await number(db().select({ n: count() }).from(plans)),
      sessions: await number(db().select({ n: count() }).from(sessions).where(gt(sessions.expiresAt, new Date()))),
      collabDocuments: await number(db().select({ n: count() }).from(collabDocuments)),
      clientErrorsToday: await number(
        db()
          .select({ n: count() })
          .from(clientErrors)
          .where(sql`${clientErrors.createdAt} > now() - interval '1 day'`),
      ),
    });
    expect(body.counts.sessions).toBeGreaterThanOrEqual(4);
    expect(body.counts.clientErrorsToday).toBeGreaterThanOrEqual(1);
    expect(body.counts.plans).toBeGreaterThanOrEqual(4);

    // One entry per migration of the journal, named by the hash of its SQL.
    expect(body.migrations.map((migration: { hash: string }) => migration.hash)).toEqual(
      journal.entries.map((entry) =>
        createHash('sha256')
          .update(readFileSync(new URL(`${entry.tag}.sql`, migrationsFolder), 'utf8'))
          .digest('hex'),
      ),
    );
    for (const migration of body.migrations) expect(Number.isNaN(Date.parse(migration.generatedAt))).toBe(false);
    expect(body.process).toMatchObject({ pid: expect.any(Number), uptimeSeconds: expect.any(Number), rssBytes: expect.any(Number), node: process.version });
  });

  it('dates each migration by when it was generated (drizzle records the journal time, not when it ran)', async () => {
    const { body } = await admin.get('/api/admin/health');
    expect((body.migrations as { generatedAt: string }[]).map((migration) => Date.parse(migration.generatedAt))).toEqual(
      journal.entries.map((entry) => (entry as { when: number }).when),
    );
  });

  it('is for Super Admins only', async () => {
    for (const client of [principal, ap, teacher]) expect((await client.get('/api/admin/health')).status).toBe(403);
    expect((await new HttpClient(server.url).get('/api/admin/health')).status).toBe(401);
    // The public probe shows no counts.
    const open = await new HttpClient(server.url).get('/api/health');
    expect(open.status).toBe(200);
    expect(open.body.counts).toBeUndefined();
    expect(open.body.migrations).toBeUndefined();
  });
});

describe('GET /api/admin/reports/figures', () => {
  const FIGURES_YEAR = '2811-2812';
  const complete = async (formId: string, stepKeys: string[]) => {
    for (const stepKey of stepKeys) {
      await db()
        .update(planSteps)
        .set({ completed: true, revisionCount: 1 })
        .where(and(eq(planSteps.formId, formId), eq(planSteps.stepKey, stepKey)));
    }
  };

  it('counts plans by status, completion by step, schools not started and overdue deadlines', async () => {
    const alpha = await insertPlan(server, { schoolName: 'Figures Alpha', schoolYear: FIGURES_YEAR, status: 'approved' });
    const beta = await insertPlan(server, { schoolName: 'Figures Beta', schoolYear: FIGURES_YEAR, status: 'draft' });
    const gamma = await insertPlan(server, { schoolName: 'Figures Gamma', schoolYear: FIGURES_YEAR, status: 'submitted' });
    await complete(alpha, ['attendancePlan', 'tableOfContents']);
    await complete(gamma, ['attendancePlan']);
    const deadlines = [
      { stepKey: 'attendancePlan', label: 'Attendance', dueDate: '2020-10-01' },
      { stepKey: 'tableOfContents', label: 'Contents', dueDate: '2020-09-15' },
      { stepKey: 'counselingPlan', label: 'Counseling', dueDate: '2999-01-01' },
    ];
    expect((await admin.put('/api/school-year', { schoolYear: FIGURES_YEAR, deadlines })).status).toBe(200);

    const { status, body } = await admin.get(`/api/admin/reports/figures?schoolYear=${FIGURES_YEAR}`);
    expect(status).toBe(200);
    expect(yearFiguresSchema.parse(body)).toEqual(body);
    expect(body.planCount).toBe(3);
    expect(Object.fromEntries(body.byStatus.map((row: { status: string; count: number }) => [row.status, row.count]))).toEqual({
      draft: 1,
      submitted: 1,
      under_review: 0,
      approved: 1,
      rejected: 0,
    });
    const step = (key: string) => body.completionByStep.find((row: { stepKey: string }) => row.stepKey === key);
    expect(step('attendancePlan')).toMatchObject({ completed: 2, total: 3, title: 'Attendance Plan' });
    expect(step('tableOfContents')).toMatchObject({ completed: 1, total: 3 });
    expect(step('counselingPlan')).toMatchObject({ completed: 0, total: 3 });
    expect(body.completionByStep).toHaveLength(BUNDLED_BANK.steps.length);
    expect(body.notStartedCount).toBe(1);
    const notStarted = await admin.get(`/api/admin/reports/not-started?schoolYear=${FIGURES_YEAR}`);
    expect(notStarted.status).toBe(200);
    expect(notStarted.body).toEqual({ plans: [{ formId: beta, schoolName: 'Figures Beta', copied: false }], total: 1, page: 1, limit: 50 });
    expect(body.overdue).toEqual([
      { stepKey: 'tableOfContents', label: 'Contents', dueDate: '2020-09-15', plansNotComplete: 2 },
      { stepKey: 'attendancePlan', label: 'Attendance', dueDate: '2020-10-01', plansNotComplete: 1 },
    ]);
    // Every deadline, past or not, with the whole district's count: the dashboard's Deadlines card.
    expect(body.deadlines).toEqual([
      { stepKey: 'tableOfContents', label: 'Contents', dueDate: '2020-09-15', plansNotComplete: 2 },
      { stepKey: 'attendancePlan', label: 'Attendance', dueDate: '2020-10-01', plansNotComplete: 1 },
      { stepKey: 'counselingPlan', label: 'Counseling', dueDate: '2999-01-01', plansNotComplete: 3 },
    ]);
  });

  it('is for Super Admins only', async () => {
    for (const client of [principal, ap, teacher]) expect((await client.get('/api/admin/reports/figures')).status).toBe(403);
  });
});
