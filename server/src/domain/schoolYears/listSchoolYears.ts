import { ne, sql } from 'drizzle-orm';
import { currentSchoolYear } from '@csp/shared';
import type { YearList } from '@csp/shared/api/schoolYears';
import type { BaseDomainServices } from '../domainServices.ts';
import { plans, questionBankVersions, schoolYearSettings } from '../../storage/schema.ts';

/**
 * Every year that has stored settings or plans, newest first, with its plan counts (one grouped
 * query, however many schools), and the bank versions a year may pin (published or archived).
 * A year without stored settings shows the defaults it would get: live, the published bank.
 */
export async function listSchoolYears({ storage, banks }: BaseDomainServices): Promise<YearList> {
  const db = storage.db;
  const [stored, counts, versions] = await Promise.all([
    db
      .select({ schoolYear: schoolYearSettings.schoolYear, archived: schoolYearSettings.archived, questionBankVersion: schoolYearSettings.questionBankVersion })
      .from(schoolYearSettings),
    db
      .select({
        schoolYear: plans.schoolYear,
        total: sql<number>`count(*)::int`,
        unfinished: sql<number>`(count(*) filter (where ${plans.status} in ('draft', 'rejected')))::int`,
        liveOverrides: sql<number>`(count(*) filter (where ${plans.allowEditsWhenArchived}))::int`,
      })
      .from(plans)
      .groupBy(plans.schoolYear),
    db
      .select({
        version: questionBankVersions.version,
        status: questionBankVersions.status,
        schoolYear: questionBankVersions.schoolYear,
        publishedAt: questionBankVersions.publishedAt,
      })
      .from(questionBankVersions)
      .where(ne(questionBankVersions.status, 'draft')),
  ]);
  const settingsOf = new Map(stored.map((row) => [row.schoolYear, row]));
  const countsOf = new Map(counts.map((row) => [row.schoolYear, row]));
  const labels = [...new Set([...settingsOf.keys(), ...countsOf.keys()])].sort((a, b) => b.localeCompare(a));
  const published = labels.some((label) => !settingsOf.has(label)) ? await banks.publishedVersion() : null;
  return {
    currentYear: currentSchoolYear(),
    years: labels.map((schoolYear) => {
      const settings = settingsOf.get(schoolYear);
      const count = countsOf.get(schoolYear);
      return {
        schoolYear,
        stored: Boolean(settings),
        archived: settings?.archived ?? false,
        questionBankVersion: settings ? settings.questionBankVersion : published,
        planCounts: { total: count?.total ?? 0, unfinished: count?.unfinished ?? 0, liveOverrides: count?.liveOverrides ?? 0 },
      };
    }),
    bankVersions: versions
      .filter((row): row is typeof row & { status: 'published' | 'archived' } => row.status !== 'draft')
      .map((row) => ({ version: row.version, status: row.status, schoolYear: row.schoolYear, publishedAt: row.publishedAt?.toISOString() ?? null }))
      .sort((a, b) => b.version - a.version),
  };
}
