import { desc, eq, sql } from 'drizzle-orm';
import { isAcceptedSchoolYear, latestSchoolYear, nextSchoolYear, schoolYearTerm } from '@csp/shared';
import type { YearSettings } from '@csp/shared/api/schoolYears';
import type { BaseDomainServices } from '../domainServices.ts';
import { plans, schoolYearSettings } from '../../storage/schema.ts';
import { shiftDeadlines } from './setUpNextYear.ts';

/** A year's settings (defaults when none are stored), its plan counts and the coming cycle. */
export async function readYearSettings({ storage, banks }: BaseDomainServices, schoolYear: string): Promise<YearSettings> {
  const db = storage.db;
  const [[stored], [counts], years] = await Promise.all([
    db.select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, schoolYear)).limit(1),
    db
      .select({
        total: sql<number>`count(*)::int`,
        unfinished: sql<number>`(count(*) filter (where ${plans.status} in ('draft', 'rejected')))::int`,
        liveOverrides: sql<number>`(count(*) filter (where ${plans.allowEditsWhenArchived}))::int`,
      })
      .from(plans)
      .where(eq(plans.schoolYear, schoolYear)),
    db.select({ schoolYear: schoolYearSettings.schoolYear }).from(schoolYearSettings).orderBy(desc(schoolYearSettings.schoolYear)),
  ]);
  const term = schoolYearTerm(schoolYear);
  const settings = stored ?? {
    schoolYear,
    archived: false,
    questionBankVersion: await banks.publishedVersion(),
    deadlines: [],
    districtGoals: [],
    termStart: term.start,
    termEnd: term.end,
  };
  // The coming cycle follows the stored years (accepted labels only), whichever year is being read.
  const latestYear = latestSchoolYear(years.map((y) => y.schoolYear).filter(isAcceptedSchoolYear)) ?? schoolYear;
  const nextYear = nextSchoolYear(latestYear);
  const [latest] =
    latestYear === schoolYear ? [settings] : await db.select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, latestYear)).limit(1);
  return {
    schoolYear: settings.schoolYear,
    archived: settings.archived,
    questionBankVersion: settings.questionBankVersion,
    deadlines: settings.deadlines,
    districtGoals: settings.districtGoals,
    term: { ...term, start: settings.termStart, end: settings.termEnd },
    stored: Boolean(stored),
    planCounts: { total: counts?.total ?? 0, unfinished: counts?.unfinished ?? 0, liveOverrides: counts?.liveOverrides ?? 0 },
    cycle: {
      latestYear,
      nextYear,
      term: schoolYearTerm(nextYear),
      carriedOver: {
        questionBankVersion: latest?.questionBankVersion ?? null,
        districtGoals: latest?.districtGoals ?? [],
        deadlines: shiftDeadlines(latest?.deadlines ?? []),
      },
    },
  };
}
