/**
 * GET /api/forms as the admin plans table uses it: status and text filters, sorting by each column
 * with stable paging, and the caller's scope holding under every filter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import type { PlanStatus } from '@csp/shared';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { planSteps, plans } from '../../storage/schema.ts';

const YEAR = '2150-2151';
const PREFIX = `List ${process.pid}`;

/** Made-up schools of the year, with what each one is given. */
const SCHOOLS: { name: string; status: PlanStatus; completed: number; flags: number; owner: string }[] = [
  { name: `${PREFIX} Alder`, status: 'submitted', completed: 3, flags: 0, owner: 'principal.harbor@example.org' },
  { name: `${PREFIX} Birch_1`, status: 'draft', completed: 0, flags: 2, owner: 'principal.riverside@example.org' },
  { name: `${PREFIX} Cedar 100%`, status: 'submitted', completed: 1, flags: 1, owner: 'principal.harbor@example.org' },
  { name: `${PREFIX} Dogwood`, status: 'approved', completed: 14, flags: 0, owner: 'principal.riverside@example.org' },
];

let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
const ids: Record<string, string> = {};

const list = async (client: HttpClient, query: string) => {
  const response = await client.get(`/api/forms?schoolYear=${YEAR}&${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { forms: { _id: string; schoolName: string }[]; total: number; page: number; limit: number };
};
const names = (body: { forms: { schoolName: string }[] }) => body.forms.map((form) => form.schoolName);

beforeAll(async () => {
  server = await startTestServer();
  [admin, principal] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org'] as const);
  const db = server.services.storage.db;
  for (const school of SCHOOLS) {
    const created = await admin.post('/api/forms', { schoolName: school.name, schoolYear: YEAR, initialOwnerEmail: school.owner });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    ids[school.name] = created.body.formId;
    const flags = Array.from({ length: school.flags }, (_, index) => ({
      questionId: `q${index}`,
      stepKey: 'attendancePlan',
      reason: 'new' as const,
      label: 'New',
    }));
    await db.update(plans).set({ status: school.status, needsUpdate: flags }).where(eq(plans.id, created.body.formId));
    const keys = BUNDLED_BANK.steps.slice(0, school.completed).map((step) => step.key);
    if (keys.length)
      await db
        .update(planSteps)
        .set({ completed: true })
        .where(and(eq(planSteps.formId, created.body.formId), inArray(planSteps.stepKey, keys)));
  }
});
afterAll(async () => {
  await server?.services.storage.db.delete(plans).where(inArray(plans.id, Object.values(ids)));
  await server?.stop();
});

describe('GET /api/forms filters and sorting', () => {
  it('filters by status and by part of the school name or principal e-mail, matching % and _ literally', async () => {
    expect(names(await list(admin, 'status=submitted')).sort()).toEqual([`${PREFIX} Alder`, `${PREFIX} Cedar 100%`]);
    expect(names(await list(admin, `q=${encodeURIComponent('birch_')}`))).toEqual([`${PREFIX} Birch_1`]);
    expect(names(await list(admin, `q=${encodeURIComponent('100%')}`))).toEqual([`${PREFIX} Cedar 100%`]);
    expect(names(await list(admin, `q=${encodeURIComponent('_1')}`))).toEqual([`${PREFIX} Birch_1`]);
    expect((await list(admin, 'q=riverside')).total).toBe(2);
    expect((await list(admin, 'q=riverside&status=approved')).forms.map((form) => form._id)).toEqual([ids[`${PREFIX} Dogwood`]]);
  });

  it('sorts by every column both ways, ties broken by school so pages never overlap', async () => {
    expect(names(await list(admin, 'sort=school&order=desc'))).toEqual(SCHOOLS.map((school) => school.name).reverse());
    expect(names(await list(admin, 'sort=progress&order=desc'))).toEqual([`${PREFIX} Dogwood`, `${PREFIX} Alder`, `${PREFIX} Cedar 100%`, `${PREFIX} Birch_1`]);
    expect(names(await list(admin, 'sort=flags&order=desc'))).toEqual([`${PREFIX} Birch_1`, `${PREFIX} Cedar 100%`, `${PREFIX} Alder`, `${PREFIX} Dogwood`]);
    expect(names(await list(admin, 'sort=status'))).toEqual([`${PREFIX} Birch_1`, `${PREFIX} Alder`, `${PREFIX} Cedar 100%`, `${PREFIX} Dogwood`]);
    expect(names(await list(admin, 'sort=principal'))).toEqual([`${PREFIX} Alder`, `${PREFIX} Cedar 100%`, `${PREFIX} Birch_1`, `${PREFIX} Dogwood`]);
    const byUpdate = names(await list(admin, 'sort=updated&order=desc'));
    expect(byUpdate).toHaveLength(4);
    // Paged one at a time, the pages add up to the whole sorted list.
    const paged: string[] = [];
    for (let page = 1; page <= 4; page++) paged.push(...names(await list(admin, `sort=flags&order=desc&limit=1&page=${page}`)));
    expect(paged).toEqual(names(await list(admin, 'sort=flags&order=desc')));
    expect((await list(admin, 'sort=flags&limit=1&page=2')).total).toBe(4);
  });

  it('keeps the caller’s scope under every filter: a principal finds no other school’s plan', async () => {
    // Harbor's principal owns Alder and Cedar; Birch and Dogwood belong to Riverside's principal.
    expect(names(await list(principal, 'sort=school')).sort()).toEqual([`${PREFIX} Alder`, `${PREFIX} Cedar 100%`]);
    expect((await list(principal, 'q=riverside')).forms).toEqual([]);
    expect((await list(principal, 'status=approved')).forms).toEqual([]);
  });

  it('refuses filters it does not know with 400', async () => {
    for (const query of ['status=lost', 'sort=colour', 'order=sideways', 'q=', `q=${'x'.repeat(201)}`]) {
      const response = await admin.get(`/api/forms?schoolYear=${YEAR}&${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body).toEqual(expect.objectContaining({ error: expect.any(String) }));
    }
  });
});
