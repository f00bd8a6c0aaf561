import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { currentSchoolYear, previousSchoolYear } from '@csp/shared';
import type { Storage } from '../storage/database.ts';
import { openTestStorage } from '../testing/testDatabase.ts';
import { planSteps, plans, schoolYearSettings, users } from '../storage/schema.ts';
import { ensureBundledBank } from '../domain/questionBank/ensureBundledBank.ts';
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
  it('has exactly the users DESIGN.md lists', async () => {
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

  it('loading again changes nothing', async () => {
    const before = await storage.db.select().from(plans);
    await seedDemoDistrict(storage.db, now);
    expect(await storage.db.select().from(plans)).toEqual(before);
  });
});
