/**
 * The district at full size (the district fixture: 1,600 schools, last year's plans and this
 * year's rolled-over copies): the figures the dashboard and the public home show equal counts made
 * here from the fixture's rules, never from the database; the "not started" list pages to its end;
 * lists in the light view carry counts instead of flags; audit records name their targets; the
 * status timeline pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { PRINCIPAL_LETTER_KEY, PLAN_STATUSES } from '@csp/shared';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn, signInAll } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { plans } from '../../storage/schema.ts';
import { DISTRICT_RULES, DISTRICT_SIZE, districtPrincipalEmail, districtSchoolName, growDistrict, type GrownDistrict } from '../../testing/districtFixture.ts';

/** The district's size, with a shorter audit log than the benchmark's (the figures do not read it). */
const SIZE = { ...DISTRICT_SIZE, auditRecords: 10_000 };
const SCHOOLS = Array.from({ length: SIZE.schools }, (_, index) => index + 1);
const count = (test: (n: number) => boolean) => SCHOOLS.filter(test).length;

let server: TestServer;
let admin: HttpClient;
let district: GrownDistrict;

beforeAll(async () => {
  server = await startTestServer();
  // The district alone: the demo district's plans would count too.
  await server.services.storage.db.delete(plans);
  district = await growDistrict(server.services.storage.db, SIZE);
  [admin] = await signInAll(server.url, ['superadmin@example.org']);
}, 240_000);

afterAll(async () => {
  await server?.stop();
});

/** This year's plans nobody has started: drafts no one has saved in (the copies untouched since the rollover). */
const notStartedThisYear = count((n) => DISTRICT_RULES.thisYearStatus(n) === 'draft' && !DISTRICT_RULES.thisYearEdited(n));

describe('district figures at 1,600 schools', () => {
  it('equal the counts of the fixture: statuses, completion by step, not started, deadlines', async () => {
    const { status, body } = await admin.get(`/api/admin/reports/figures?schoolYear=${district.thisYear}`);
    expect(status).toBe(200);
    expect(body.planCount).toBe(SIZE.schools);
    expect(Object.fromEntries(body.byStatus.map((row: { status: string; count: number }) => [row.status, row.count]))).toEqual(
      Object.fromEntries(PLAN_STATUSES.map((status) => [status, count((n) => DISTRICT_RULES.thisYearStatus(n) === status)])),
    );
    // The copies keep last year's completion: the first five steps everywhere, the rest where last year's plan was finished.
    const unfinished = count((n) => n % 10 === 9);
    expect(body.completionByStep).toEqual(
      BUNDLED_BANK.steps
        .map((step, index) => ({ step, ord: index + 1 }))
        .filter(({ step }) => step.key !== PRINCIPAL_LETTER_KEY)
        .map(({ step, ord }) => ({
          stepKey: step.key,
          title: step.title,
          completed: ord <= 5 ? SIZE.schools : SIZE.schools - unfinished,
          total: SIZE.schools,
        })),
    );
    expect(body.notStartedCount).toBe(notStartedThisYear);
    const today = new Date().toISOString().slice(0, 10);
    const expected = district.deadlines.map((deadline) => ({ ...deadline, plansNotComplete: unfinished }));
    expect(body.deadlines).toEqual(expected);
    expect(body.overdue).toEqual(expected.filter((deadline) => deadline.dueDate < today));

    const lastYear = (await admin.get(`/api/admin/reports/figures?schoolYear=${district.lastYear}`)).body;
    expect(Object.fromEntries(lastYear.byStatus.map((row: { status: string; count: number }) => [row.status, row.count]))).toEqual(
      Object.fromEntries(PLAN_STATUSES.map((status) => [status, count((n) => DISTRICT_RULES.lastYearStatus(n) === status)])),
    );
    // Last year every plan was written in: none is "not started", drafts included.
    expect(lastYear.notStartedCount).toBe(0);
  });

  it('the public home counts started plans the same way', async () => {
    await server.services.kv.delete('public:overview');
    const { body } = await new HttpClient(server.url).get('/api/public/overview');
    expect(body).toMatchObject({
      currentYear: district.thisYear,
      schoolsServed: SIZE.schools,
      currentYearPlans: SIZE.schools,
      startedThisYear: SIZE.schools - notStartedThisYear,
      submittedThisYear: count((n) => DISTRICT_RULES.thisYearStatus(n) !== 'draft'),
    });
  });

  it('lists the schools not started 50 a page, to the last page', async () => {
    const expected = SCHOOLS.filter((n) => DISTRICT_RULES.thisYearStatus(n) === 'draft' && !DISTRICT_RULES.thisYearEdited(n)).map(districtSchoolName);
    const lastPage = Math.ceil(expected.length / 50);
    const first = await admin.get(`/api/admin/reports/not-started?schoolYear=${district.thisYear}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: expected.length, page: 1, limit: 50 });
    expect(first.body.plans.map((row: { schoolName: string }) => row.schoolName)).toEqual(expected.slice(0, 50));
    // Rolled-over copies, every one.
    expect(first.body.plans.every((row: { copied: boolean }) => row.copied)).toBe(true);
    const last = await admin.get(`/api/admin/reports/not-started?schoolYear=${district.thisYear}&page=${lastPage}`);
    expect(last.body.plans.map((row: { schoolName: string }) => row.schoolName)).toEqual(expected.slice((lastPage - 1) * 50));
    // Past the end: no rows, and the total to find the last page by.
    const past = await admin.get(`/api/admin/reports/not-started?schoolYear=${district.thisYear}&page=${lastPage + 1}`);
    expect(past.body).toEqual({ plans: [], total: expected.length, page: lastPage + 1, limit: 50 });
    expect((await admin.get('/api/admin/reports/not-started?page=0')).status).toBe(400);
    expect((await admin.get('/api/admin/reports/not-started?limit=201')).status).toBe(400);
    const principal = await signIn(server.url, 'principal.harbor@example.org');
    expect((await principal.get('/api/admin/reports/not-started')).status).toBe(403);
  });
});

describe('GET /api/forms?view=light at 1,600 schools', () => {
  const listOf = async (client: HttpClient, query: string) => {
    const response = await client.get(`/api/forms?schoolYear=${district.thisYear}&${query}`);
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    return { body: response.body, bytes: JSON.stringify(response.body).length };
  };
  const schoolNumber = (name: string) => Number(name.slice(-4));

  it('carries counts of flags and open comments instead of the flags, and keeps the full view by default', async () => {
    const light = await listOf(admin, 'view=light&limit=200');
    const full = await listOf(admin, 'limit=200');
    expect(light.body.total).toBe(SIZE.schools);
    expect(light.body.forms.map((form: { _id: string }) => form._id)).toEqual(full.body.forms.map((form: { _id: string }) => form._id));
    for (const [index, form] of light.body.forms.entries()) {
      const n = schoolNumber(form.schoolName);
      const flags =
        DISTRICT_RULES.thisYearStatus(n) === 'submitted' ? 0 : DISTRICT_RULES.thisYearEdited(n) ? Math.ceil(SIZE.flagsPerCopy / 2) : SIZE.flagsPerCopy;
      expect(form, form.schoolName).toMatchObject({ flagsToReview: flags, openComments: DISTRICT_RULES.openComments(n) });
      expect(form).not.toHaveProperty('needsUpdate');
      expect(form).not.toHaveProperty('transferHistory');
      const { needsUpdate, transferHistory, ...fullRest } = full.body.forms[index];
      expect(needsUpdate).toHaveLength(flags);
      expect(transferHistory).toEqual([]);
      const { flagsToReview, openComments, ...lightRest } = form;
      expect(lightRest).toEqual(fullRest);
      expect([flagsToReview, openComments]).toEqual([flags, DISTRICT_RULES.openComments(n)]);
    }
    // Rolled-over plans with their flags weigh several times as much as their counts.
    expect(light.bytes * 3).toBeLessThan(full.bytes);
  });

  it('keeps the caller’s scope, sorts by flags and refuses an unknown view', async () => {
    const principal = await signIn(server.url, districtPrincipalEmail(7));
    const own = await listOf(principal, 'view=light');
    expect(own.body.forms.map((form: { schoolName: string }) => form.schoolName)).toEqual([districtSchoolName(7)]);
    const byFlags = await listOf(admin, 'view=light&sort=flags&order=desc&limit=5');
    expect(byFlags.body.forms.map((form: { flagsToReview: number }) => form.flagsToReview)).toEqual(Array(5).fill(SIZE.flagsPerCopy));
    const refused = await admin.get('/api/forms?view=heavy');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBeTruthy();
  });
});

describe('the audit log at district size', () => {
  it('names each record’s target and actor: a plan by school and year, a person by name', async () => {
    const { body } = await admin.get(`/api/users/audit-logs?action=plan.create&limit=5`);
    expect(body.total).toBe(SIZE.schools);
    for (const record of body.logs) {
      const n = Number(/(\d{4})$/.exec(record.actorEmail.split('@')[0])![1]);
      expect(record).toMatchObject({
        targetType: 'plan',
        targetName: `${districtSchoolName(n)} ${district.lastYear}`,
        actorEmail: districtPrincipalEmail(n),
        actorName: `Principal ${String(n).padStart(4, '0')}`,
      });
    }
    // A person changed through the API is named too.
    const staff = (await admin.get('/api/users?q=staff.d0001')).body.users[0];
    expect((await admin.put(`/api/users/${staff._id}/permissions`, { permissions: { canViewPlans: true } })).status).toBe(200);
    const [change] = (await admin.get(`/api/users/audit-logs?targetType=user&targetId=${staff._id}`)).body.logs;
    expect(change).toMatchObject({ action: 'user.permissions', targetName: 'Staff Member 0001', actorEmail: 'superadmin@example.org' });
    expect(change.actorName).toBeTruthy();
    // A user's trail names them as well.
    const [trail] = (await admin.get(`/api/users/${staff._id}/audit`)).body.logs;
    expect(trail).toMatchObject({ _id: change._id, targetName: 'Staff Member 0001' });
  });

  it('pages last year’s status timeline, oldest first', async () => {
    const events = SIZE.schools + count((n) => n % 10 < 9);
    const first = await admin.get(`/api/admin/reports/timeline?schoolYear=${district.lastYear}&limit=200`);
    expect(first.body).toMatchObject({ total: events, page: 1, limit: 200 });
    expect(first.body.events).toHaveLength(200);
    expect(first.body.events.every((event: { action: string }) => event.action === 'plan.create')).toBe(true);
    const lastPage = Math.ceil(events / 200);
    const last = await admin.get(`/api/admin/reports/timeline?schoolYear=${district.lastYear}&limit=200&page=${lastPage}`);
    expect(last.body.events).toHaveLength(events - (lastPage - 1) * 200);
    expect(last.body.events.every((event: { action: string; to: string }) => event.action === 'plan.submit' && event.to === 'submitted')).toBe(true);
  });
});
