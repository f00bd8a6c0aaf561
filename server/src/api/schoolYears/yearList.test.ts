/**
 * GET /api/school-year/years over HTTP against a real server: every year with stored settings or
 * plans, newest first, with the same plan counts the single-year read gives; a year that has plans
 * but no settings shows the defaults it would get; the bank versions a year may pin (never the
 * draft); Super Admins only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, previousSchoolYear } from '@csp/shared';
import { yearListSchema } from '@csp/shared/api/schoolYears';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { plans, questionBankVersions, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';

const CURRENT = currentSchoolYear();
const PREVIOUS = previousSchoolYear(CURRENT);
/** Plans but no stored settings. */
const UNSTORED = '1991-1992';
/** Stored settings but no plans. */
const EMPTY = '1993-1994';

let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
let ap: HttpClient;

const db = () => server.services.storage.db;

beforeAll(async () => {
  server = await startTestServer();
  [admin, principal, ap] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org', 'ap.harbor@example.org']);
  const [owner] = await db().select().from(users).where(eq(users.email, 'principal.harbor@example.org'));
  await db()
    .insert(plans)
    .values([
      { id: newId(), schoolName: 'School A', schoolYear: UNSTORED, userId: owner!.id, status: 'approved', questionBankVersion: BUNDLED_BANK.version },
      { id: newId(), schoolName: 'School B', schoolYear: UNSTORED, userId: owner!.id, status: 'rejected', allowEditsWhenArchived: true },
    ]);
  expect((await admin.put('/api/school-year', { schoolYear: EMPTY, districtGoals: [] })).status).toBe(200);
  // A draft bank version exists: it is never offered for pinning.
  await db()
    .insert(questionBankVersions)
    .values({ version: BUNDLED_BANK.version + 50, status: 'draft', steps: BUNDLED_BANK.steps });
});
afterAll(() => server?.stop());

describe('GET /api/school-year/years', () => {
  it('lists every year with settings or plans, newest first, with the plan counts of the single-year read', async () => {
    const { status, body } = await admin.get('/api/school-year/years');
    expect(status).toBe(200);
    const list = yearListSchema.parse(body);
    expect(list.currentYear).toBe(CURRENT);
    expect(list.years.map((year) => year.schoolYear)).toEqual([CURRENT, PREVIOUS, EMPTY, UNSTORED]);
    for (const year of list.years) {
      const single = await admin.get(`/api/school-year?schoolYear=${year.schoolYear}`);
      expect(year, year.schoolYear).toEqual({
        schoolYear: single.body.schoolYear,
        stored: single.body.stored,
        archived: single.body.archived,
        questionBankVersion: single.body.questionBankVersion,
        planCounts: single.body.planCounts,
      });
    }
    expect(list.years.find((year) => year.schoolYear === PREVIOUS)).toMatchObject({ archived: true, stored: true, planCounts: { total: 2, unfinished: 0 } });
    expect(list.years.find((year) => year.schoolYear === UNSTORED)).toEqual({
      schoolYear: UNSTORED,
      stored: false,
      archived: false,
      questionBankVersion: BUNDLED_BANK.version,
      planCounts: { total: 2, unfinished: 1, liveOverrides: 1 },
    });
    expect(list.years.find((year) => year.schoolYear === EMPTY)?.planCounts).toEqual({ total: 0, unfinished: 0, liveOverrides: 0 });
  });

  it('offers the published and archived bank versions, never a draft', async () => {
    const { body } = await admin.get('/api/school-year/years');
    const versions = yearListSchema.parse(body).bankVersions;
    expect(versions.map((version) => version.version)).toContain(BUNDLED_BANK.version);
    expect(versions.some((version) => version.version === BUNDLED_BANK.version + 50)).toBe(false);
    expect(versions.every((version) => version.status === 'published' || version.status === 'archived')).toBe(true);
    expect(versions.filter((version) => version.status === 'published')).toHaveLength(1);
  });

  it('is for Super Admins only, and needs a session', async () => {
    for (const client of [principal, ap]) expect((await client.get('/api/school-year/years')).status).toBe(403);
    expect((await new HttpClient(server.url).get('/api/school-year/years')).status).toBe(401);
  });
});
