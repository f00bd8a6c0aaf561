import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq } from 'drizzle-orm';
import { currentSchoolYear, previousSchoolYear, writeAnswers } from '@csp/shared';
import { BUNDLED_BANK } from '@csp/shared/bank';
import type { Storage } from '../storage/database.ts';
import { openTestStorage } from '../testing/testDatabase.ts';
import { planShares, planSteps, plans, schoolYearSettings, users } from '../storage/schema.ts';
import { ensureBundledBank } from '../domain/questionBank/ensureBundledBank.ts';
import { planAccess } from '../policy/plans.ts';
import { startTestServer } from '../testing/testServer.ts';
import { signInAll, sessionToken } from '../testing/signIn.ts';
import { waitFor } from '../testing/wait.ts';
import { openLiveClient, type LiveClient } from '../testing/collab.ts';
import { isDatabaseEmpty, seedDemoDistrict } from './demoDistrict.ts';

let storage: Storage;
const now = new Date('2026-11-22T12:00:00Z');

beforeAll(async () => {
  storage = await openTestStorage();
  await ensureBundledBank(storage.db);
  expect(await isDatabaseEmpty(storage.db)).toBe(true);
  await seedDemoDistrict(storage.db, now);
});
afterAll(() => storage?.close());

describe('demo district', () => {
  it('has exactly the users the README lists', async () => {
    const rows = await storage.db.select().from(users).orderBy(asc(users.email));
    const summary = rows.map((u) => [u.email, u.level, u.schoolName, u.isActive, u.isDemo]);
    expect(summary).toEqual([
      ['ap.harbor@example.org', 3, 'Harbor View Academy', true, false],
      ['ap.riverside@example.org', 3, 'Riverside Learning Center', true, false],
      ['coordinator.harbor@example.org', 2, 'Harbor View Academy', true, false],
      ['coordinator.riverside@example.org', 2, 'Riverside Learning Center', true, false],
      ['demo.principal@example.org', 4, 'Harbor View Academy', true, true],
      ['inactive.harbor@example.org', 1, 'Harbor View Academy', false, false],
      ['principal.harbor@example.org', 4, 'Harbor View Academy', true, false],
      ['principal.riverside@example.org', 4, 'Riverside Learning Center', true, false],
      ['superadmin@example.org', 5, 'District Office', true, false],
      ['teacher.harbor@example.org', 1, 'Harbor View Academy', true, false],
      ['teacher.riverside@example.org', 1, 'Riverside Learning Center', true, false],
    ]);
  });

  it('gives each school an answered plan last year (archived) and a draft this year owned by its principal', async () => {
    const current = currentSchoolYear(now);
    const previous = previousSchoolYear(current);
    const years = await storage.db.select().from(schoolYearSettings).orderBy(asc(schoolYearSettings.schoolYear));
    expect(years.map((y) => [y.schoolYear, y.archived, y.questionBankVersion])).toEqual([
      [previous, true, 1],
      [current, false, 1],
    ]);
    for (const school of ['Harbor View Academy', 'Riverside Learning Center']) {
      const schoolPlans = await storage.db.select().from(plans).where(eq(plans.schoolName, school)).orderBy(asc(plans.schoolYear));
      expect(schoolPlans.map((p) => p.schoolYear)).toEqual([previous, current]);
      const [last, thisYear] = schoolPlans;
      const [principal] = await storage.db.select().from(users).where(eq(users.id, thisYear!.userId!));
      expect(principal).toMatchObject({ level: 4, schoolName: school, isDemo: false });
      expect(thisYear).toMatchObject({ status: 'draft', principalEmail: principal!.email });
      const lastSteps = await storage.db.select().from(planSteps).where(eq(planSteps.formId, last!.id));
      expect(lastSteps).toHaveLength(14);
      const answered = lastSteps.filter((s) => Object.keys(s.data).length > 0);
      expect(answered.length).toBeGreaterThanOrEqual(5);
      expect(answered.every((s) => s.revisionCount === 1 && s.lastUpdated)).toBe(true);
      const thisSteps = await storage.db.select().from(planSteps).where(eq(planSteps.formId, thisYear!.id));
      expect(thisSteps.every((s) => Object.keys(s.data).length === 0 && !s.completed)).toBe(true);
    }
  });

  it('shares this year’s Harbor plan for editing (every step) with Harbor’s assistant principal, and nothing else', async () => {
    const current = currentSchoolYear(now);
    const planOf = async (school: string) => {
      const [plan] = await storage.db
        .select()
        .from(plans)
        .where(and(eq(plans.schoolName, school), eq(plans.schoolYear, current)));
      return plan!;
    };
    const userOf = async (email: string) => (await storage.db.select().from(users).where(eq(users.email, email)))[0]!;
    const [harbor, riverside] = [await planOf('Harbor View Academy'), await planOf('Riverside Learning Center')];
    const [ap, principal, riversideAp] = [
      await userOf('ap.harbor@example.org'),
      await userOf('principal.harbor@example.org'),
      await userOf('ap.riverside@example.org'),
    ];

    // The row the admin share route writes: edit, no section limit.
    const shares = await storage.db.select().from(planShares);
    expect(shares).toEqual([{ formId: harbor.id, userId: ap.id, permission: 'edit', sections: [], sharedBy: principal.id, createdAt: expect.any(Date) }]);

    // With it the AP edits every step and joins presence (level 3 gets nothing from the school alone).
    expect(planAccess(ap, harbor, null)).toMatchObject({ read: false, edit: false });
    expect(planAccess(ap, harbor, shares[0]!)).toMatchObject({ read: true, edit: true, readSections: null, editSections: null, presence: true });
    // Riverside's plan is shared with no one, its AP included.
    expect(shares.filter((share) => share.formId === riverside.id || share.userId === riversideAp.id)).toEqual([]);
  });

  it('loading again changes nothing', async () => {
    const before = await storage.db.select().from(plans);
    const sharesBefore = await storage.db.select().from(planShares);
    await seedDemoDistrict(storage.db, now);
    expect(await storage.db.select().from(plans)).toEqual(before);
    expect(await storage.db.select().from(planShares)).toEqual(sharesBefore);
  });
});

describe('demo district on a running server', () => {
  it('principal.harbor and ap.harbor co-edit this year’s Harbor plan live; Riverside’s AP cannot open Riverside’s plan', async () => {
    const server = await startTestServer();
    const live: LiveClient[] = [];
    try {
      const [principal, ap, riversideAp] = await signInAll(server.url, ['principal.harbor@example.org', 'ap.harbor@example.org', 'ap.riverside@example.org']);
      const year = currentSchoolYear();
      const listed = await ap.get(`/api/forms?schoolYear=${year}`);
      expect(listed.status).toBe(200);
      expect(listed.body.forms.map((form: { schoolName: string }) => form.schoolName)).toEqual(['Harbor View Academy']);
      const formId = listed.body.forms[0]._id as string;
      const plan = await ap.get(`/api/forms/${formId}`);
      expect(plan.status).toBe(200);
      expect(plan.body.userPermission).toMatchObject({ canEdit: true, sections: null, canSeePresence: true, readOnly: false });

      const step = BUNDLED_BANK.steps.find((candidate) => candidate.key === 'attendancePlan')!;
      const [principalDoc, apDoc] = await Promise.all([
        openLiveClient(server.url, sessionToken(principal), formId, step.key, { label: 'principal' }),
        openLiveClient(server.url, sessionToken(ap), formId, step.key, { label: 'ap' }),
      ]);
      live.push(principalDoc, apDoc);
      expect([principalDoc.scope(), apDoc.scope()]).toEqual(['read-write', 'read-write']);
      writeAnswers(apDoc.doc, step, { att_barriers: 'Typed by the AP' });
      writeAnswers(principalDoc.doc, step, { att_strategy: 'Typed by the principal' });
      await waitFor('both edits in both documents', () =>
        [principalDoc, apDoc].every(
          (client) => client.answers().att_barriers === 'Typed by the AP' && client.answers().att_strategy === 'Typed by the principal',
        ),
      );

      const riversideList = await riversideAp.get(`/api/forms?schoolYear=${year}`);
      expect(riversideList.body.forms).toEqual([]);
      const [riverside] = await server.services.storage.db
        .select({ id: plans.id })
        .from(plans)
        .where(and(eq(plans.schoolName, 'Riverside Learning Center'), eq(plans.schoolYear, year)));
      expect((await riversideAp.get(`/api/forms/${riverside!.id}`)).status).toBe(403);
    } finally {
      for (const client of live) client.destroy();
      await server.stop();
    }
  });
});
